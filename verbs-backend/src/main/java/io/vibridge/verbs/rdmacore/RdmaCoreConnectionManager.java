package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM over librdmacm with the provider's own queue pairs (created in INIT before any CM id, as the SPI wants):
 * the QP is not attached to the rdma_cm id; {@code rdma_connect}/{@code rdma_accept} carry its number, and the
 * provider moves it to RTR and RTS itself with {@code rdma_init_qp_attr} + {@code ibv_modify_qp} (plus the
 * caller's RNR timer, ACK timeout and MTU cap), then {@code rdma_establish} on the active side (librdmacm
 * cma.c: a CONNECT_RESPONSE instead of ESTABLISHED when the id has no QP). Events are read on one platform thread
 * per device ("rdmacore-cm-NAME", poll(2) on the channel fd), their private data copied before
 * {@code rdma_ack_cm_event}. Service IDs: rdma_cm's RC port spaces, {@code (ps << 16) | port} with ps TCP (0x0106)
 * or IB (0x013F) (Linux cma.c cma_get_service_id; IPoIB and UDP ids are UD, ucma.c ucma_get_qp_type). Private data: what
 * rdma_cm carries over IB/RoCE with IP addressing: 56 REQ bytes (its 36-byte CMA header takes the rest of the 92,
 * {@link #writesCmaHeader()}), 196 REP, 148 REJ.
 */
final class RdmaCoreConnectionManager implements ConnectionManager {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreConnectionManager.class);
    static final int REQ_PRIVATE_DATA_TCP_PS = 56;
    /** The RC port spaces of rdma_cm (rdma_user_cm.h enum rdma_port_space; ucma.c ucma_get_qp_type). */
    private static final int[] PORT_SPACES = {Rdmacm.RDMA_PS_TCP, Rdmacm.RDMA_PS_IB};
    private static final int RESOLVE_MS = 2000;

    final RdmaCoreDevice device;
    private final MemorySegment channel;
    private final int fd;
    private final Thread thread;
    private final Map<Long, RdmaCoreCmId> ids = new ConcurrentHashMap<>();
    private final Map<Long, Listener> listeners = new ConcurrentHashMap<>();
    private volatile boolean closed;

    RdmaCoreConnectionManager(RdmaCoreDevice device) {
        if (Rdmacm.REASON != null) {
            throw new UnsupportedOperationException("the rdma-core provider's connection manager is unusable: "
                    + Rdmacm.REASON);
        }
        this.device = device;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment ch = (MemorySegment) Rdmacm.CREATE_EVENT_CHANNEL.invokeExact(errno);
            if (ch.equals(MemorySegment.NULL)) {
                throw new VerbsException("rdma_create_event_channel: " + Ibv.strerror(Ibv.errno(errno))
                        + " (is /dev/infiniband/rdma_cm accessible?)");
            }
            channel = ch.reinterpret(4);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        fd = channel.get(JAVA_INT, 0);
        thread = new Thread(this::eventLoop, "rdmacore-cm-" + device.name());
        thread.setDaemon(true);
        thread.start();
    }

    /** A listening id. */
    record Listener(long serviceId, MemorySegment id, CmEventHandler handler, Executor executor,
                    RdmaCoreConnectionManager cm) implements CmListener {
        @Override
        public void close() {
            cm.listeners.remove(id.address());
            cm.destroy(id);
        }
    }

    /** rdma_cm writes its CMA header in front of the REQ private data of an AF_INET id. */
    @Override
    public boolean writesCmaHeader() {
        return true;
    }

    @Override
    public boolean takesServiceId(long serviceId) {
        return rcPortSpaceId(serviceId);
    }

    /** {@code (ps << 16) | port} with ps one of rdma_cm's RC port spaces. */
    static boolean rcPortSpaceId(long serviceId) {
        long ps = serviceId >>> 16;
        for (int p : PORT_SPACES) {
            if (p == ps) {
                return true;
            }
        }
        return false;
    }

    static int port(long serviceId) {
        return (int) (serviceId & 0xFFFF);
    }

    private int portSpace(long serviceId) {
        if (!rcPortSpaceId(serviceId)) {
            throw new VerbsException("the rdma-core CM takes only rdma_cm port-space Service IDs (ps << 16 | port, ps "
                    + "0x0106 TCP, 0x013F IB), not 0x" + Long.toHexString(serviceId));
        }
        return (int) (serviceId >>> 16);
    }

    MemorySegment createId(Arena a, int portSpace) throws Throwable {
        MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
        MemorySegment out = a.allocate(ADDRESS);
        int rc = (int) Rdmacm.CREATE_ID.invokeExact(errno, channel, out, MemorySegment.NULL, portSpace);
        if (rc != 0) {
            throw new VerbsException("rdma_create_id: " + Ibv.strerror(Ibv.errno(errno)));
        }
        return out.get(ADDRESS, 0).reinterpret(416);
    }

    static MemorySegment sockaddr(Arena a, InetAddress address, int port) {
        if (!(address instanceof Inet4Address)) {
            throw new VerbsException("the rdma-core CM takes IPv4 addresses only: " + address);
        }
        MemorySegment s = a.allocate(16, 4);                       // struct sockaddr_in
        s.set(JAVA_SHORT, 0, (short) 2);                            // AF_INET
        s.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) port);
        MemorySegment.copy(address.getAddress(), 0, s, JAVA_BYTE, 4, 4);
        return s;
    }

    static void check(String call, int rc, MemorySegment errno) {
        if (rc != 0) {
            throw new VerbsException(call + ": " + Ibv.strerror(Ibv.errno(errno)));
        }
    }

    @Override
    public CmListener listen(long serviceId, CmEventHandler handler, Executor executor) {
        int ps = portSpace(serviceId);
        int port = port(serviceId);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = createId(a, ps);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            try {
                check("rdma_bind_addr(" + device.address().getHostAddress() + ":" + port + ")",
                        (int) Rdmacm.BIND_ADDR.invokeExact(errno, id, sockaddr(a, device.address(), port)), errno);
                check("rdma_listen", (int) Rdmacm.LISTEN.invokeExact(errno, id, 64), errno);
            } catch (RuntimeException e) {
                destroy(id);
                throw e;
            }
            Listener l = new Listener(serviceId, id, handler, executor, this);
            listeners.put(id.address(), l);
            return l;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    @Override
    public CmId connect(ConnectParams params, QueuePair qp, CmEventHandler handler, Executor executor) {
        int ps = portSpace(params.serviceId());
        int port = port(params.serviceId());
        if (params.privateData().length > REQ_PRIVATE_DATA_TCP_PS) {
            throw new IllegalArgumentException("REQ private data of " + params.privateData().length
                    + " bytes: rdma_cm carries at most 56 over IB/RoCE (its CMA header takes the rest of 92)");
        }
        if (!(qp instanceof RdmaCoreQueuePair q)) {
            throw new IllegalArgumentException("the queue pair is not an rdma-core queue pair");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = createId(a, ps);
            RdmaCoreCmId c = new RdmaCoreCmId(this, id, true, params.serviceId(), params.remote(), handler, executor);
            c.active(q, params);
            ids.put(id.address(), c);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            int rc = (int) Rdmacm.RESOLVE_ADDR.invokeExact(errno, id, sockaddr(a, device.address(), 0),
                    sockaddr(a, params.remote(), port), RESOLVE_MS);
            if (rc != 0) {
                ids.remove(id.address());
                destroy(id);
                throw new VerbsException("rdma_resolve_addr(" + params.remote().getHostAddress() + "): "
                        + Ibv.strerror(Ibv.errno(errno)));
            }
            return c;
        } catch (VerbsException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    void forget(RdmaCoreCmId c) {
        ids.remove(c.id.address(), c);
    }

    void destroy(MemorySegment id) {
        try {
            int ignored = (int) Rdmacm.DESTROY_ID.invokeExact(id);
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    // ---- events ------------------------------------------------------------------------------------------

    private void eventLoop() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfd = a.allocate(8, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, (short) 1);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment out = a.allocate(ADDRESS);
            while (!closed) {
                pfd.set(JAVA_SHORT, 6, (short) 0);
                int n = (int) Ibv.POLL.invokeExact(errno, pfd, 1L, 100);
                if (n <= 0 || closed) {
                    continue;
                }
                if ((int) Rdmacm.GET_CM_EVENT.invokeExact(errno, channel, out) != 0) {
                    continue;
                }
                MemorySegment ev = out.get(ADDRESS, 0).reinterpret(Rdmacm.EVENT_SIZE);
                int type = ev.get(JAVA_INT, Rdmacm.EV_EVENT);
                int status = ev.get(JAVA_INT, Rdmacm.EV_STATUS);
                MemorySegment id = ev.get(ADDRESS, Rdmacm.EV_ID).reinterpret(416);
                long listenId = ev.get(ADDRESS, Rdmacm.EV_LISTEN_ID).address();
                int len = Byte.toUnsignedInt(ev.get(JAVA_BYTE, Rdmacm.EV_CONN + Rdmacm.CP_PRIVATE_DATA_LEN));
                MemorySegment pd = ev.get(ADDRESS, Rdmacm.EV_CONN + Rdmacm.CP_PRIVATE_DATA);
                byte[] data = pd.equals(MemorySegment.NULL) || len == 0 ? new byte[0]
                        : pd.reinterpret(len).toArray(JAVA_BYTE);          // copied before the ack
                int resp = Byte.toUnsignedInt(ev.get(JAVA_BYTE, Rdmacm.EV_CONN + Rdmacm.CP_RESPONDER_RESOURCES));
                int init = Byte.toUnsignedInt(ev.get(JAVA_BYTE, Rdmacm.EV_CONN + Rdmacm.CP_INITIATOR_DEPTH));
                InetAddress source = type == 4 ? peer(id) : null;
                int ignored = (int) Rdmacm.ACK_CM_EVENT.invokeExact(ev);
                try {
                    handle(type, status, id, listenId, data, resp, init, source);
                } catch (RuntimeException e) {
                    LOG.warn("rdma-core CM {}: handling {} failed: {}", device.name(), Rdmacm.eventName(type),
                            e.toString());
                }
            }
        } catch (Throwable t) {
            LOG.error("rdma-core CM {}: event thread failed", device.name(), t);
        }
    }

    /** The peer's IPv4 address: rdma_cm_id.route.addr.dst_addr (a sockaddr_in). */
    private static InetAddress peer(MemorySegment id) {
        try {
            return InetAddress.getByAddress(id.asSlice(Rdmacm.ID_DST_ADDR + 4, 4).toArray(JAVA_BYTE));
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private void handle(int type, int status, MemorySegment id, long listenId, byte[] data, int resp, int init,
                        InetAddress source) {
        if (type == 4) {                                            // CONNECT_REQUEST: a new passive id
            Listener l = listeners.get(listenId);
            if (l == null) {
                destroy(id);
                return;
            }
            RdmaCoreCmId c = new RdmaCoreCmId(this, id, false, l.serviceId(), source, l.handler(), l.executor());
            ids.put(id.address(), c);
            // the kernel reports a REQ's depths from the listener's side (cma.c cma_set_req_event_data: its
            // responder_resources is the REQ's initiator depth, and the other way); the SPI has the REQ's own
            c.deliver(new CmEvent.ConnectRequest(c, source, l.serviceId(), data, init, resp));
            return;
        }
        if (type == RdmaCoreCmId.DEVICE_REMOVAL) {                 // on every id, the listeners' too
            device.failed("device removal (RDMA_CM_EVENT_DEVICE_REMOVAL)", "rdma_cm reports the device's removal: "
                    + "its connections fail, and it must be closed before the kernel can finish");
        }
        RdmaCoreCmId c = ids.get(id.address());
        if (c == null) {
            LOG.debug("rdma-core CM {}: {} for an unknown id", device.name(), Rdmacm.eventName(type));
            return;
        }
        c.onEvent(type, status, data, resp, init);
    }

    void shutdown() {
        closed = true;
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Listener l : listeners.values().toArray(Listener[]::new)) {
            l.close();
        }
        for (RdmaCoreCmId c : ids.values().toArray(RdmaCoreCmId[]::new)) {
            c.destroyNow();
        }
        try {
            Rdmacm.DESTROY_EVENT_CHANNEL.invokeExact(channel);
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }
}

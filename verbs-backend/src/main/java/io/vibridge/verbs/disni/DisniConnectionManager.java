package io.vibridge.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rdma_cm through DiSNI. Limits of DiSNI 2.1, stated here so callers are not surprised: only Service IDs
 * of the rdma_cm TCP port space (0x0000000001060000 + port) can be listened on or connected to; the
 * private data of received REQ/REP events is not exposed (events carry an empty array); reject cannot
 * carry private data (the id is destroyed, which makes Linux send REJ reason 28).
 */
final class DisniConnectionManager implements ConnectionManager {
    private static final Logger LOG = LoggerFactory.getLogger(DisniConnectionManager.class);
    private static final long TCP_PS = 0x0000000001060000L;
    private final DisniDevice device;
    private final RdmaEventChannel channel;
    private final Map<RdmaCmId, Id> ids = new IdentityHashMap<>();
    private final Map<RdmaCmId, Listener> listeners = new IdentityHashMap<>();
    private final Thread loop;
    private volatile boolean closed;

    DisniConnectionManager(DisniDevice device, RdmaEventChannel channel) {
        this.device = device;
        this.channel = channel;
        this.loop = new Thread(this::eventLoop, "disni-cm-" + device.address().getHostAddress());
        loop.setDaemon(true);
        loop.start();
    }

    private static int port(long serviceId) {
        if ((serviceId & ~0xFFFFL) != TCP_PS) {
            throw new VerbsException("DiSNI (rdma_cm) supports only TCP port-space Service IDs 0x106xxxx, not 0x"
                    + Long.toHexString(serviceId));
        }
        return (int) (serviceId & 0xFFFF);
    }

    /** rdma_cm with AF_INET/AF_INET6 ids: librdmacm writes the CMA header. */
    @Override
    public boolean writesCmaHeader() {
        return true;
    }

    /** DiSNI creates every id in rdma_cm's TCP port space. */
    @Override
    public boolean takesServiceId(long serviceId) {
        return (serviceId >>> 16) == 0x0106;
    }

    @Override
    public synchronized CmListener listen(long serviceId, CmEventHandler handler, Executor executor) {
        try {
            RdmaCmId lid = channel.createId(RdmaCm.RDMA_PS_TCP);
            lid.bindAddr(new InetSocketAddress(device.address(), port(serviceId)));
            lid.listen(128);
            Listener l = new Listener(lid, serviceId, handler, executor);
            listeners.put(lid, l);
            return l;
        } catch (IOException e) {
            throw new VerbsException("rdma_listen failed: " + e, e);
        }
    }

    @Override
    public synchronized CmId connect(ConnectParams p, QueuePair qp, CmEventHandler handler, Executor executor) {
        if (!(qp instanceof DisniQueuePair dq) || dq.isBound()) {
            throw new VerbsException("connect needs an unconnected disni QP");
        }
        try {
            RdmaCmId cid = channel.createId(RdmaCm.RDMA_PS_TCP);
            Id id = new Id(cid, true, p.remote(), p.serviceId(), handler, executor);
            id.qp = dq;
            id.params = p;
            ids.put(cid, id);
            int timeoutMs = (int) Math.max(1000, (4096L << p.cmResponseTimeout()) / 1_000_000L);
            id.timeoutMs = timeoutMs;
            cid.resolveAddr(null, new InetSocketAddress(p.remote(), port(p.serviceId())), timeoutMs);
            return id;
        } catch (IOException e) {
            throw new VerbsException("rdma_resolve_addr failed: " + e, e);
        }
    }

    void shutdown() {
        closed = true;
    }

    private static String eventName(RdmaCmEvent ev) {
        int e = ev.getEvent();
        RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
        return e >= 0 && e < types.length ? types[e].name() : "type " + e;
    }

    private void eventLoop() {
        while (!closed) {
            RdmaCmEvent ev;
            try {
                ev = channel.getCmEvent(200);
            } catch (IOException e) {
                if (!closed) {
                    LOG.error("rdma_get_cm_event failed", e);
                }
                return;
            }
            if (ev == null) {
                continue;
            }
            try {
                handle(ev);
            } catch (IOException | RuntimeException e) {
                // the id's owner must not wait for an event that will never come: its connect ends here
                Id id = ids.remove(ev.getConnIdPriv());
                LOG.error("handling rdma_cm event {} failed{}", eventName(ev), id == null ? "" : ": the connect fails", e);
                if (id != null) {
                    id.emit(new CmEvent.ConnectTimeout(id));
                }
            } finally {
                try {
                    ev.ackEvent();
                } catch (IOException e) {
                    LOG.warn("rdma_ack_cm_event failed", e);
                }
            }
        }
    }

    private synchronized void handle(RdmaCmEvent ev) throws IOException {
        RdmaCmEvent.EventType type = RdmaCmEvent.EventType.values()[ev.getEvent()];
        RdmaCmId cid = ev.getConnIdPriv();
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST) {
            Listener l = listeners.get(ev.getListenIdPriv());
            if (l == null) {
                cid.destroyId();
                return;
            }
            InetSocketAddress src = (InetSocketAddress) cid.getDestination();
            Id id = new Id(cid, false, src.getAddress(), l.serviceId, l.handler, l.executor);
            ids.put(cid, id);
            RdmaConnParam cp = ev.getConn();
            int rr = cp == null ? 0 : cp.getResponder_resources() & 0xFF;
            int id0 = cp == null ? 0 : cp.getInitiator_depth() & 0xFF;
            id.emit(new CmEvent.ConnectRequest(id, src.getAddress(), l.serviceId, new byte[0], rr, id0));
            return;
        }
        Id id = ids.get(cid);
        if (id == null) {
            return;
        }
        switch (type) {
            case RDMA_CM_EVENT_ADDR_RESOLVED -> cid.resolveRoute(id.timeoutMs);
            case RDMA_CM_EVENT_ROUTE_RESOLVED -> {
                id.qp.bind(cid);
                ConnectParams p = id.params;
                RdmaConnParam cp = new RdmaConnParam();
                id.privateData = direct(p.privateData());
                cp.setPrivate_data(MemorySegment.ofBuffer(id.privateData).address());
                cp.setPrivate_data_len((byte) p.privateData().length);
                // DiSNI 2.1 refuses read depths ("Operation currently not supported"): libdisni's _connect puts
                // the device's max_qp_rd_atom in both
                cp.setRetry_count((byte) p.retryCount());
                cp.setRnr_retry_count((byte) p.rnrRetryCount());
                cid.connect(cp);
            }
            case RDMA_CM_EVENT_ESTABLISHED -> id.emit(new CmEvent.Established(id, new byte[0]));
            case RDMA_CM_EVENT_REJECTED -> id.emit(new CmEvent.Rejected(id, ev.getStatus(), new byte[0]));
            case RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_CONNECT_ERROR,
                 RDMA_CM_EVENT_UNREACHABLE -> id.emit(new CmEvent.ConnectTimeout(id));
            case RDMA_CM_EVENT_DISCONNECTED -> id.emit(new CmEvent.Disconnected(id));
            case RDMA_CM_EVENT_TIMEWAIT_EXIT -> {
                ids.remove(cid);
                id.emit(new CmEvent.TimewaitExit(id));
            }
            default -> LOG.debug("rdma_cm event {} ignored", type);
        }
    }

    private static ByteBuffer direct(byte[] data) {
        ByteBuffer b = ByteBuffer.allocateDirect(Math.max(1, data.length));
        b.put(0, data);
        return b;
    }

    private final class Listener implements CmListener {
        final RdmaCmId lid;
        final long serviceId;
        final CmEventHandler handler;
        final Executor executor;

        Listener(RdmaCmId lid, long serviceId, CmEventHandler handler, Executor executor) {
            this.lid = lid;
            this.serviceId = serviceId;
            this.handler = handler;
            this.executor = executor;
        }

        @Override
        public long serviceId() {
            return serviceId;
        }

        @Override
        public void close() {
            synchronized (DisniConnectionManager.this) {
                listeners.remove(lid);
                try {
                    lid.destroyId();
                } catch (IOException e) {
                    throw new VerbsException("rdma_destroy_id failed: " + e, e);
                }
            }
        }
    }

    private final class Id implements CmId {
        final RdmaCmId cid;
        final boolean active;
        final InetAddress remote;
        final long serviceId;
        final CmEventHandler handler;
        final Executor executor;
        DisniQueuePair qp;
        ConnectParams params;
        ByteBuffer privateData;
        int timeoutMs;

        Id(RdmaCmId cid, boolean active, InetAddress remote, long serviceId, CmEventHandler handler, Executor executor) {
            this.cid = cid;
            this.active = active;
            this.remote = remote;
            this.serviceId = serviceId;
            this.handler = handler;
            this.executor = executor;
        }

        void emit(CmEvent e) {
            (executor != null ? executor : device.eventExecutor()).execute(() -> handler.onEvent(e));
        }

        @Override
        public int localCommId() {
            return System.identityHashCode(cid);     // rdma_cm does not expose the IB CM communication ID
        }

        @Override
        public InetAddress remoteAddress() {
            return remote;
        }

        @Override
        public long serviceId() {
            return serviceId;
        }

        @Override
        public QueuePair queuePair() {
            return qp;
        }

        @Override
        public void accept(QueuePair queuePair, AcceptParams p) {
            if (!(queuePair instanceof DisniQueuePair dq) || dq.isBound()) {
                throw new VerbsException("accept needs an unconnected disni QP");
            }
            synchronized (DisniConnectionManager.this) {
                try {
                    dq.bind(cid);
                    qp = dq;
                    RdmaConnParam cp = new RdmaConnParam();
                    privateData = direct(p.privateData());
                    cp.setPrivate_data(MemorySegment.ofBuffer(privateData).address());
                    cp.setPrivate_data_len((byte) p.privateData().length);
                    // read depths: the device's max_qp_rd_atom (libdisni _accept), as on connect
                    cp.setRnr_retry_count((byte) p.rnrRetryCount());
                    cid.accept(cp);
                } catch (IOException e) {
                    throw new VerbsException("rdma_accept failed: " + e, e);
                }
            }
        }

        @Override
        public void reject(byte[] privateDataIgnored) {
            synchronized (DisniConnectionManager.this) {
                ids.remove(cid);
                try {
                    cid.destroyId();                 // Linux answers the REQ with REJ reason 28
                } catch (IOException e) {
                    throw new VerbsException("rdma_destroy_id failed: " + e, e);
                }
            }
        }

        @Override
        public void disconnect() {
            try {
                cid.disconnect();
            } catch (IOException e) {
                throw new VerbsException("rdma_disconnect failed: " + e, e);
            }
        }
    }
}

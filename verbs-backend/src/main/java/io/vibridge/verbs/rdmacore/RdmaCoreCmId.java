package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One rdma_cm id (active or passive) of {@link RdmaCoreConnectionManager}, with the QP it connects. */
final class RdmaCoreCmId implements CmId {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreCmId.class);
    // enum rdma_cm_event_type (rdma_cma.h)
    static final int ADDR_RESOLVED = 0;
    static final int ROUTE_RESOLVED = 2;
    static final int CONNECT_RESPONSE = 5;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int ADDR_CHANGE = 14;
    static final int TIMEWAIT_EXIT = 15;

    private final RdmaCoreConnectionManager cm;
    final MemorySegment id;
    private final boolean active;
    private final long serviceId;
    private final InetAddress remote;
    private final CmEventHandler handler;
    private final Executor executor;
    private volatile RdmaCoreQueuePair qp;
    /** The peer's DREQ or the device's removal arrived (set before the QP goes to ERROR). */
    private volatile boolean peerDisconnected;
    private volatile boolean failedBeforePeerDisconnect;
    private ConnectParams params;
    private boolean destroyed;
    private boolean disconnected;

    RdmaCoreCmId(RdmaCoreConnectionManager cm, MemorySegment id, boolean active, long serviceId, InetAddress remote,
                 CmEventHandler handler, Executor executor) {
        this.cm = cm;
        this.id = id;
        this.active = active;
        this.serviceId = serviceId;
        this.remote = remote;
        this.handler = handler;
        this.executor = executor;
    }

    void active(RdmaCoreQueuePair q, ConnectParams p) {
        this.qp = q;
        this.params = p;
    }

    void deliver(CmEvent e) {
        if (executor != null) {
            executor.execute(() -> handler.onEvent(e));
        } else {
            handler.onEvent(e);
        }
    }

    /** An event for this id, on the CM thread, its private data already copied and the event acked. */
    void onEvent(int type, int status, byte[] data, int resp, int init) {
        switch (type) {
            case ADDR_RESOLVED -> call("rdma_resolve_route", () -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                    RdmaCoreConnectionManager.check("rdma_resolve_route",
                            (int) Rdmacm.RESOLVE_ROUTE.invokeExact(errno, id, 2000), errno);
                }
            });
            case ROUTE_RESOLVED -> call("rdma_connect", () -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment cp = connParam(a, params.privateData(), params.responderResources(),
                            params.initiatorDepth(), params.retryCount(), params.rnrRetryCount());
                    cp.set(JAVA_INT, Rdmacm.CP_QP_NUM, qp.qpNum());        // our QP, not on the id
                    MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                    RdmaCoreConnectionManager.check("rdma_connect",
                            (int) Rdmacm.CONNECT.invokeExact(errno, id, cp), errno);
                }
            });
            case CONNECT_RESPONSE -> call("RTR/RTS/rdma_establish", () -> {
                // librdmacm reports CONNECT_RESPONSE when the id has no QP: we move ours, then establish (RTU)
                bringUp(params.minRnrTimer(), params.localAckTimeout(), params.pathMtu());
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                    RdmaCoreConnectionManager.check("rdma_establish",
                            (int) Rdmacm.ESTABLISH.invokeExact(errno, id), errno);
                }
                deliver(new CmEvent.Established(this, data, resp, init));
            });
            case ESTABLISHED -> {
                RdmaCoreQueuePair q = qp;
                if (q != null && cm.device.iwarp()) {
                    q.established();                      // iw_cm moved it to RTS
                }
                deliver(active ? new CmEvent.Established(this, data, resp, init) : new CmEvent.Established(this, data));
            }
            case REJECTED -> {
                deliver(new CmEvent.Rejected(this, reason(status), data));
                finish();
            }
            case DISCONNECTED, DEVICE_REMOVAL -> {
                peerDisconnected = true;                  // before the QP's flush can reach its consumer
                RdmaCoreQueuePair q = qp;
                if (q != null && q.state() != QpState.ERROR) {
                    q.toError();                          // the QP is not on the id: rdma_cm leaves it alone
                } else if (q != null && !disconnectSent() && !q.movedToError()) {
                    failedBeforePeerDisconnect = true;    // the device's own doing (ERROR before the DREQ)
                }
                if (!disconnectSent()) {
                    callQuietly();                        // our DREP (the peer's DREQ)
                }
                deliver(new CmEvent.Disconnected(this));
            }
            case TIMEWAIT_EXIT -> {
                deliver(new CmEvent.TimewaitExit(this));
                finish();
            }
            case ADDR_CHANGE -> LOG.warn("rdma-core CM {}: address change on the connection to {}", cm.device.name(),
                    remote);
            default -> {                                   // ADDR/ROUTE/CONNECT errors, UNREACHABLE
                LOG.info("rdma-core CM {}: {} (status {}) for {}", cm.device.name(), Rdmacm.eventName(type), status,
                        remote == null ? "?" : remote.getHostAddress());
                deliver(new CmEvent.ConnectTimeout(this));
                finish();
            }
        }
    }

    /**
     * The REJ reason: over IB/RoCE rdma_cm's status is the IBA reason itself; over iWARP it is an errno
     * (Linux cma.c cma_iw_handler): -ECONNRESET for the peer's MPA reject (a consumer reject, 28), -ECONNREFUSED
     * for a refused TCP connection (nobody listens: as IBA's invalid Service ID, 8).
     */
    int reason(int status) {
        if (!cm.device.iwarp()) {
            return status;
        }
        return switch (status) {
            case -104 -> CmEvent.REJ_CONSUMER;              // ECONNRESET
            case -111 -> CmEvent.REJ_INVALID_SERVICE_ID;    // ECONNREFUSED
            default -> status;
        };
    }

    private interface NativeStep {
        void run() throws Throwable;
    }

    private void call(String what, NativeStep s) {
        try {
            s.run();
        } catch (Throwable t) {
            LOG.warn("rdma-core CM {}: {} to {} failed: {}", cm.device.name(), what,
                    remote == null ? "?" : remote.getHostAddress(), t.getMessage());
            deliver(new CmEvent.ConnectTimeout(this));
            finish();
        }
    }

    private synchronized boolean disconnectSent() {
        boolean was = disconnected;
        disconnected = true;
        return was;
    }

    private void callQuietly() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            int ignored = (int) Rdmacm.DISCONNECT.invokeExact(errno, id);
        } catch (Throwable t) {
            LOG.debug("rdma_disconnect: {}", t.toString());
        }
    }

    static MemorySegment connParam(Arena a, byte[] privateData, int resp, int init, int retry, int rnr) {
        MemorySegment cp = a.allocate(Rdmacm.CONN_PARAM_SIZE, 8);
        if (privateData.length > 0) {
            MemorySegment pd = a.allocate(privateData.length);
            MemorySegment.copy(privateData, 0, pd, JAVA_BYTE, 0, privateData.length);
            cp.set(ADDRESS, Rdmacm.CP_PRIVATE_DATA, pd);
        }
        cp.set(JAVA_BYTE, Rdmacm.CP_PRIVATE_DATA_LEN, (byte) privateData.length);
        cp.set(JAVA_BYTE, Rdmacm.CP_RESPONDER_RESOURCES, (byte) resp);
        cp.set(JAVA_BYTE, Rdmacm.CP_INITIATOR_DEPTH, (byte) init);
        cp.set(JAVA_BYTE, Rdmacm.CP_RETRY_COUNT, (byte) retry);
        cp.set(JAVA_BYTE, Rdmacm.CP_RNR_RETRY_COUNT, (byte) rnr);
        return cp;
    }

    /**
     * Our QP (not on the id) to RTR and RTS with the attributes rdma_cm computed for the id
     * ({@code rdma_init_qp_attr}), plus the caller's RNR timer, ACK timeout and MTU cap. iWARP: the iWARP CM moves
     * the QP itself (iw_cm), nothing to do.
     */
    private void bringUp(int minRnrTimer, int ackTimeout, int mtuCap) throws Throwable {
        RdmaCoreQueuePair q = qp;
        if (cm.device.iwarp()) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(IbvLayouts.QP_ATTR);
            MemorySegment mask = a.allocate(JAVA_INT);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            attr.set(JAVA_INT, IbvLayouts.QPA_STATE, QpState.RTR.ordinal());
            RdmaCoreConnectionManager.check("rdma_init_qp_attr(RTR)",
                    (int) Rdmacm.INIT_QP_ATTR.invokeExact(errno, id, attr, mask), errno);
            int mtu = Math.min(attr.get(JAVA_INT, IbvLayouts.QPA_PATH_MTU), DeviceFinder.ibvMtu(mtuCap));
            attr.set(JAVA_INT, IbvLayouts.QPA_PATH_MTU, mtu);
            attr.set(JAVA_BYTE, IbvLayouts.QPA_MIN_RNR_TIMER, (byte) minRnrTimer);
            q.apply(attr, mask.get(JAVA_INT, 0) | RdmaCoreQueuePair.IBV_QP_MIN_RNR_TIMER, "RTR");
            attr.fill((byte) 0);
            attr.set(JAVA_INT, IbvLayouts.QPA_STATE, QpState.RTS.ordinal());
            RdmaCoreConnectionManager.check("rdma_init_qp_attr(RTS)",
                    (int) Rdmacm.INIT_QP_ATTR.invokeExact(errno, id, attr, mask), errno);
            int m = mask.get(JAVA_INT, 0);
            if (ackTimeout >= 0) {
                attr.set(JAVA_BYTE, IbvLayouts.QPA_TIMEOUT, (byte) ackTimeout);
                m |= RdmaCoreQueuePair.IBV_QP_TIMEOUT;
            }
            q.apply(attr, m, "RTS");
            q.pathMtu(DeviceFinder.mtuBytes(mtu));
        }
    }

    @Override
    public int localCommId() {
        return (int) (id.address() >>> 4);
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
        if (active) {
            throw new IllegalStateException("accept on an active id");
        }
        if (!(queuePair instanceof RdmaCoreQueuePair q)) {
            throw new IllegalArgumentException("the queue pair is not an rdma-core queue pair");
        }
        this.qp = q;
        try {
            bringUp(p.minRnrTimer(), -1, 4096);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment cp = connParam(a, p.privateData(), p.responderResources(), p.initiatorDepth(), 7,
                        p.rnrRetryCount());
                cp.set(JAVA_INT, Rdmacm.CP_QP_NUM, q.qpNum());
                MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                RdmaCoreConnectionManager.check("rdma_accept", (int) Rdmacm.ACCEPT.invokeExact(errno, id, cp), errno);
            }
        } catch (VerbsException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] pd = privateData == null ? new byte[0] : privateData;
        if (pd.length > 148) {
            throw new IllegalArgumentException("REJ private data is at most 148 bytes, got " + pd.length);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = pd.length == 0 ? MemorySegment.NULL : a.allocate(pd.length);
            if (pd.length > 0) {
                MemorySegment.copy(pd, 0, seg, JAVA_BYTE, 0, pd.length);
            }
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            RdmaCoreConnectionManager.check("rdma_reject",
                    (int) Rdmacm.REJECT.invokeExact(errno, id, seg, (byte) pd.length), errno);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        } finally {
            finish();
        }
    }

    @Override
    public void disconnect() {
        RdmaCoreQueuePair q = qp;
        if (q != null && q.state() != QpState.ERROR) {
            q.toError();
        }
        if (!disconnectSent()) {
            callQuietly();
        }
    }

    /** The id is done (rejected, failed, timewait over): destroy it off the CM thread's event handling. */
    private void finish() {
        cm.forget(this);
        Thread.ofPlatform().daemon().name("rdmacore-cm-destroy").start(this::destroyNow);
    }

    synchronized void destroyNow() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        cm.destroy(id);
    }

    @Override
    public String toString() {
        return "rdma-core cm id " + (active ? "active" : "passive") + " to " + remote;
    }

    @Override
    public boolean peerDisconnected() {
        return peerDisconnected;
    }

    @Override
    public boolean failedBeforePeerDisconnect() {
        return failedBeforePeerDisconnect;
    }
}

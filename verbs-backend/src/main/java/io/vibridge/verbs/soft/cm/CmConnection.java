package io.vibridge.verbs.soft.cm;

import static io.vibridge.verbs.ConnectionManager.REJ_PRIVATE_DATA;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.transport.RcAttributes;
import io.vibridge.verbs.soft.transport.RcQueuePair;
import io.vibridge.verbs.soft.wire.CmDreq;
import io.vibridge.verbs.soft.wire.CmMessage;
import io.vibridge.verbs.soft.wire.CmRej;
import io.vibridge.verbs.soft.wire.CmRep;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.CmTargetMessage;
import io.vibridge.verbs.soft.wire.CmTimeout;
import io.vibridge.verbs.soft.wire.PathMtu;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection endpoint of the {@link SoftConnectionManager} (IB-WIRE-REFERENCE §5.10): its state, the
 * MAD it resends on its retry timer (§5.8), and accept, reject and disconnect. Guarded by the CM's monitor,
 * whose handlers (one per MAD) drive it; packets and events leave through the CM's outbox.
 */
final class CmConnection implements CmId {
    /** The CM's logger: the log categories stay what they were before this class had its own file. */
    private static final Logger LOG = LoggerFactory.getLogger(SoftConnectionManager.class);

    /** The states of §5.10 this CM uses (no MRA is sent, so none of the MRA states occurs). */
    enum State { IDLE, REQ_SENT, REQ_RCVD, REP_SENT, ESTABLISHED, DREQ_SENT, DREQ_RCVD, TIMEWAIT }

    private final SoftConnectionManager cm;
    final boolean active;
    final InetAddress remote;
    final long serviceId;
    final CmEventHandler handler;
    final Executor executor;
    final int localCommId;
    int remoteCommId;
    State state = State.IDLE;
    RcQueuePair qp;
    ConnectParams params;
    CmReq req;
    CmMessage lastSent;
    long tid;
    long dreqTid;
    /** Active side: the REQ's Starting PSN, the PSN this side expects to receive first (its rq_psn). */
    int startPsn;
    int pathMtu;
    int retriesLeft;
    long retryNanos;
    ScheduledFuture<?> timer;
    /** System.nanoTime() at which TIMEWAIT ends. */
    long timewaitEnd;
    /** The peer's DREQ or REJ arrived (set before the QP goes to ERROR). */
    volatile boolean peerDisconnected;

    CmConnection(SoftConnectionManager cm, boolean active, InetAddress remote, long serviceId, CmEventHandler handler,
                 Executor executor) {
        this.cm = cm;
        this.active = active;
        this.remote = remote;
        this.serviceId = serviceId;
        this.handler = handler;
        this.executor = executor;
        this.localCommId = cm.newCommId();
        cm.byLocal.put(localCommId, this);
    }

    /** Under the monitor: queues {@code e} for the handler, after the packets queued before it. */
    void emit(CmEvent e) {
        cm.outbox.add(new SoftConnectionManager.Emit(this, e));
    }

    /**
     * From {@link SoftConnectionManager#flush()}: hands {@code e} to the executor (the handler never runs
     * under the monitor).
     */
    void dispatch(CmEvent e) {
        Executor ex = executor != null ? executor : cm.port.events();
        try {
            ex.execute(() -> {
                try {
                    handler.onEvent(e);
                } catch (RuntimeException x) {
                    LOG.error("CM event handler failed on {}", e, x);
                }
            });
        } catch (RejectedExecutionException x) {
            LOG.debug("CM event {} dropped: its executor is shut down", e);   // device or application closing
        }
    }

    void armRetry() {
        schedule(retryNanos);
    }

    void schedule(long nanos) {
        timer = cm.port.timers().schedule(this::onRetryTimer, nanos, TimeUnit.NANOSECONDS);
    }

    void cancelTimer() {
        if (timer != null) {
            cm.unschedule(timer);
            timer = null;
        }
    }

    private void onRetryTimer() {
        try {
            onRetryTimerLocked();
        } finally {
            cm.flush();
        }
    }

    private void onRetryTimerLocked() {
        synchronized (cm) {
            timer = null;
            if (state != State.REQ_SENT && state != State.REP_SENT && state != State.DREQ_SENT) {
                return;
            }
            if (retriesLeft > 0) {                          // §5.8: resend the identical MAD
                retriesLeft--;
                cm.send(state == State.DREQ_SENT ? dreqMsg() : lastSent, state == State.DREQ_SENT ? dreqTid : tid,
                        remote);
                armRetry();
                return;
            }
            switch (state) {
                case DREQ_SENT -> {
                    cm.enterTimewait(this);
                    emit(new CmEvent.Disconnected(this));
                }
                default -> {
                    if (qp != null && state == State.REP_SENT) {
                        qp.toError();
                    }
                    state = State.IDLE;
                    cm.remove(this);
                    emit(new CmEvent.ConnectTimeout(this));
                }
            }
        }
    }

    private CmDreq dreqMsg() {
        return new CmDreq(localCommId, remoteCommId, qp.attributes().destQpn(), null);
    }

    @Override
    public int localCommId() {
        return localCommId;
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
        synchronized (cm) {
            return qp;
        }
    }

    @Override
    public void accept(QueuePair queuePair, AcceptParams p) {
        if (!(queuePair instanceof RcQueuePair rq)) {
            throw new VerbsException("accept needs a soft QP");
        }
        try {
            acceptLocked(rq, p);
        } finally {
            cm.flush();
        }
    }

    private void acceptLocked(RcQueuePair rq, AcceptParams p) {
        synchronized (cm) {
            if (active || state != State.REQ_RCVD) {
                throw new VerbsException("accept is only valid on a received request, state " + state);
            }
            CmReq r = req;
            int mtu = PathMtu.bytes(Math.max(PathMtu.MTU_256, Math.min(PathMtu.MTU_4096, r.pathMtu())));
            int rqPsn = cm.random.nextInt() & 0xFFFFFF;
            int maxRd = Math.min(p.initiatorDepth(), r.responderResources());
            int maxDestRd = Math.min(p.responderResources(), r.initiatorDepth());
            // §5.7: the passive QP's attributes come from the REQ. Its Starting PSN is the PSN the active
            // side expects, so we send from it; ours, in the REP, is the PSN we expect (Linux cm.c)
            rq.connect(new RcAttributes(remote, cm.port.udpPort(), r.localQpn(), r.startingPsn(), rqPsn, mtu,
                    r.retryCount(), r.rnrRetryCount(), r.primaryPath().localAckTimeout(), maxRd, maxDestRd,
                    p.minRnrTimer()));
            qp = rq;
            lastSent = CmRep.rc(localCommId, remoteCommId, rq.qpNum(), rqPsn, maxDestRd, maxRd,
                    cm.targetAckDelay, p.rnrRetryCount(), cm.caGuid, p.privateData());
            state = State.REP_SENT;
            retriesLeft = r.maxCmRetries();
            retryNanos = CmTimeout.nanos(r.localCmResponseTimeout()) + 2 * CmTimeout.nanos(cm.packetLifetime);
            cm.send(lastSent, tid, remote);
            armRetry();
            // communication established also when the first packet arrives before the RTU (§5.10)
            rq.onFirstPacket(() -> {
                try {
                    synchronized (cm) {
                        if (state == State.REP_SENT) {
                            cm.establishPassive(this, new byte[224]);
                        }
                    }
                } finally {
                    cm.flush();
                }
            });
        }
    }

    @Override
    public void reject(byte[] privateData) {
        if (privateData != null && privateData.length > REJ_PRIVATE_DATA) {
            throw new IllegalArgumentException("REJ private data is at most 148 bytes");
        }
        try {
            rejectLocked(privateData);
        } finally {
            cm.flush();
        }
    }

    private void rejectLocked(byte[] privateData) {
        synchronized (cm) {
            if (active || state != State.REQ_RCVD) {
                throw new VerbsException("reject is only valid on a received request, state " + state);
            }
            // §5.10: Local Comm ID 0 when rejecting from REQ_RCVD
            cm.send(new CmRej(0, remoteCommId, CmTargetMessage.REQ, CmEvent.REJ_CONSUMER, null, privateData), tid,
                    remote);
            state = State.IDLE;
            cm.remove(this);
        }
    }

    @Override
    public void disconnect() {
        try {
            disconnectLocked();
        } finally {
            cm.flush();
        }
    }

    private void disconnectLocked() {
        synchronized (cm) {
            switch (state) {
                case ESTABLISHED, REP_SENT -> {
                    cancelTimer();
                    qp.toError();
                    state = State.DREQ_SENT;
                    dreqTid = (long) cm.tidHigh << 32 | localCommId & 0xFFFFFFFFL;   // §5.9 TID convention
                    retriesLeft = params != null ? params.maxCmRetries() : req.maxCmRetries();
                    cm.send(dreqMsg(), dreqTid, remote);
                    armRetry();
                }
                case REQ_SENT -> {
                    // §5.8: giving up a pending REQ sends REJ reason 4 (timeout) with our CA GUID as ARI
                    cancelTimer();
                    byte[] ari = ByteBuffer.allocate(8).putLong(cm.caGuid).array();
                    cm.send(new CmRej(localCommId, 0, CmTargetMessage.REQ, CmEvent.REJ_TIMEOUT, ari, null), tid,
                            remote);
                    state = State.IDLE;
                    cm.remove(this);
                }
                case REQ_RCVD -> rejectLocked(null);
                default -> {
                }
            }
        }
    }

    @Override
    public String toString() {
        return "CmId[" + Integer.toHexString(localCommId) + (active ? " active " : " passive ")
                + remote.getHostAddress() + " sid=0x" + Long.toHexString(serviceId) + " " + state + "]";
    }

    @Override
    public boolean peerDisconnected() {
        return peerDisconnected;
    }
}

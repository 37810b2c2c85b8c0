package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An RC ibv_qp, created and moved to INIT here (as the SPI's queue pairs start). Each side of the QP owns one
 * native work request with one SGE, allocated at creation and rewritten for every post (the SPI's requests have
 * one SGE and are posted one at a time), so posting allocates nothing; each side has its own lock since the native
 * request is shared by the posts of that side.
 */
final class RdmaCoreQueuePair implements QueuePair {
    // enum ibv_qp_attr_mask (verbs.h)
    static final int IBV_QP_STATE = 1;
    static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    static final int IBV_QP_PKEY_INDEX = 1 << 4;
    static final int IBV_QP_PORT = 1 << 5;
    static final int IBV_QP_AV = 1 << 7;
    static final int IBV_QP_PATH_MTU = 1 << 8;
    static final int IBV_QP_TIMEOUT = 1 << 9;
    static final int IBV_QP_RETRY_CNT = 1 << 10;
    static final int IBV_QP_RNR_RETRY = 1 << 11;
    static final int IBV_QP_RQ_PSN = 1 << 12;
    static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    static final int IBV_QP_SQ_PSN = 1 << 16;
    static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    static final int IBV_QP_DEST_QPN = 1 << 20;
    static final int IBV_QPT_RC = 2;
    static final int IBV_QPS_ERR = 6;
    static final int ACCESS_ALL = 1 | 2 | 4;            // LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ
    static final int IBV_SEND_SIGNALED = 1 << 1;
    static final int IBV_SEND_SOLICITED = 1 << 2;
    /** Hop limit of the GRH for RoCEv2 (IP TTL); rdma_cm uses 64 for routed RoCE (cma.c). */
    static final int HOP_LIMIT = 64;

    private final RdmaCoreDevice device;
    private final RdmaCoreCompletionQueue sendCq;
    private final RdmaCoreCompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    final MemorySegment qp;
    private final int qpNum;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    /**
     * Serialises the control calls (ibv_modify_qp, ibv_query_qp) with {@link #close}: the CM's event thread queries and
     * moves a QP that its owner may be destroying at that moment, and a call on a destroyed QP reads freed memory (seen
     * under TCG: SIGSEGV in ibv_query_qp from the CM thread on DISCONNECTED while a scenario closed its pair).
     */
    private final Object control = new Object();
    private final MemorySegment sendWr;
    private final MemorySegment sendSge;
    private final MemorySegment sendBad;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment recvBad;
    /** This side asked for ERROR (its own failure, or the CM's disconnect). */
    private volatile boolean movedToError;
    private volatile int pathMtu;
    /** The state of the last successful ibv_modify_qp (iWARP's only source: see {@link #state(int)}). */
    private volatile QpState tracked = QpState.RESET;
    private volatile boolean closed;
    private volatile String asyncError;

    RdmaCoreQueuePair(RdmaCoreDevice device, RdmaCoreProtectionDomain pd, QpInitAttributes attrs) {
        if (!(attrs.sendCq() instanceof RdmaCoreCompletionQueue s) || !(attrs.recvCq() instanceof RdmaCoreCompletionQueue r)) {
            throw new IllegalArgumentException("the queue pair's CQs must come from the rdma-core device");
        }
        this.device = device;
        this.sendCq = s;
        this.recvCq = r;
        sendWr = arena.allocate(IbvLayouts.SEND_WR);
        sendSge = arena.allocate(IbvLayouts.SGE);
        sendBad = arena.allocate(ADDRESS);
        recvWr = arena.allocate(IbvLayouts.RECV_WR);
        recvSge = arena.allocate(IbvLayouts.SGE);
        recvBad = arena.allocate(ADDRESS);
        sendWr.set(ADDRESS, IbvLayouts.SWR_SG_LIST, sendSge);
        recvWr.set(ADDRESS, IbvLayouts.RWR_SG_LIST, recvSge);
        MemorySegment q;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(IbvLayouts.QP_INIT_ATTR);
            init.set(ADDRESS, IbvLayouts.off(IbvLayouts.QP_INIT_ATTR, "send_cq"), s.cq);
            init.set(ADDRESS, IbvLayouts.off(IbvLayouts.QP_INIT_ATTR, "recv_cq"), r.cq);
            long cap = IbvLayouts.off(IbvLayouts.QP_INIT_ATTR, "cap");
            init.set(JAVA_INT, cap, attrs.maxSendWr());
            init.set(JAVA_INT, cap + 4, attrs.maxRecvWr());
            init.set(JAVA_INT, cap + 8, 1);
            init.set(JAVA_INT, cap + 12, 1);
            init.set(JAVA_INT, IbvLayouts.off(IbvLayouts.QP_INIT_ATTR, "qp_type"), IBV_QPT_RC);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            q = (MemorySegment) Ibv.CREATE_QP.invokeExact(errno, pd.pd, init);
            if (q.equals(MemorySegment.NULL)) {
                arena.close();
                throw new VerbsException("ibv_create_qp(" + device.name() + ", RC, " + attrs.maxSendWr() + "/"
                        + attrs.maxRecvWr() + " WRs): " + Ibv.strerror(Ibv.errno(errno)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        qp = q.reinterpret(IbvLayouts.QP.byteSize());
        qpNum = qp.get(JAVA_INT, IbvLayouts.off(IbvLayouts.QP, "qp_num"));
        device.register(this, qp);
        try {
            RdmaCoreCheck.pointsTo("ibv_qp.context", qp, IbvLayouts.off(IbvLayouts.QP, "context"), device.context);
            RdmaCoreCheck.pointsTo("ibv_qp.pd", qp, IbvLayouts.off(IbvLayouts.QP, "pd"), pd.pd);
            RdmaCoreCheck.pointsTo("ibv_qp.send_cq", qp, IbvLayouts.off(IbvLayouts.QP, "send_cq"), s.cq);
            RdmaCoreCheck.pointsTo("ibv_qp.recv_cq", qp, IbvLayouts.off(IbvLayouts.QP, "recv_cq"), r.cq);
            RdmaCoreCheck.equalsInt("ibv_qp.qp_type", qp.get(JAVA_INT, IbvLayouts.off(IbvLayouts.QP, "qp_type")),
                    IBV_QPT_RC);
            // RESET -> INIT: port, P_Key 0, remote access as rdma_cm gives its QPs (cma.c: rdma_init_qp_attr)
            modify("INIT", a -> {
                a.set(JAVA_INT, IbvLayouts.QPA_STATE, QpState.INIT.ordinal());
                a.set(JAVA_SHORT, IbvLayouts.QPA_PKEY_INDEX, (short) 0);
                a.set(JAVA_BYTE, IbvLayouts.QPA_PORT, (byte) device.port());
                a.set(JAVA_INT, IbvLayouts.QPA_ACCESS, ACCESS_ALL);
            }, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
            if (!device.iwarp()) {
                RdmaCoreCheck.equalsInt("ibv_query_qp state after RESET -> INIT", state().ordinal(),
                        QpState.INIT.ordinal());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private interface AttrWriter {
        void write(MemorySegment attr);
    }

    private void modify(String what, AttrWriter w, int mask) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(IbvLayouts.QP_ATTR);
            w.write(attr);
            int rc;
            synchronized (control) {
                if (closed) {
                    throw new VerbsException("queue pair " + qpNum + " is closed");
                }
                rc = (int) Ibv.MODIFY_QP.invokeExact(qp, attr, mask);
            }
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp(QP " + qpNum + " -> " + what + ") on " + device.name() + ": "
                        + Ibv.strerror(Math.abs(rc)));
            }
            if ((mask & IBV_QP_STATE) != 0) {
                int st = attr.get(JAVA_INT, IbvLayouts.QPA_STATE);
                tracked = st >= 0 && st < QpState.values().length ? QpState.values()[st] : QpState.ERROR;
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    /**
     * ibv_query_qp of the state, path MTU, PSNs and peer QPN, into a fresh attr (not a data-path call); null once the
     * QP is closed.
     */
    private MemorySegment query(Arena a) {
        MemorySegment attr = a.allocate(IbvLayouts.QP_ATTR);
        MemorySegment init = a.allocate(IbvLayouts.QP_INIT_ATTR);
        try {
            int rc;
            synchronized (control) {
                if (closed) {
                    return null;
                }
                rc = (int) Ibv.QUERY_QP.invokeExact(qp, attr,
                        IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_DEST_QPN, init);
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp(QP " + qpNum + ") on " + device.name() + ": "
                        + Ibv.strerror(Math.abs(rc)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        return attr;
    }

    private QpState state(int ibv) {
        if (device.iwarp()) {
            // siw_query_qp (Linux 6.1 siw_verbs.c) fills no qp_state (it reads RESET whatever the state): the
            // state we moved the QP to is the best there is
            return tracked;
        }
        QpState[] v = QpState.values();            // same order as enum ibv_qp_state (RESET..ERR)
        return ibv >= 0 && ibv < v.length ? v[ibv] : QpState.ERROR;
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpState state() {
        if (closed) {
            return QpState.ERROR;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment q = query(a);
            return q == null ? QpState.ERROR : state(q.get(JAVA_INT, IbvLayouts.QPA_STATE));
        }
    }

    @Override
    public QpInfo info() {
        if (closed) {
            return QpInfo.basic(qpNum, QpState.ERROR, pathMtu);
        }
        if (device.iwarp()) {                      // siw_query_qp fills no state, PSNs or peer QPN
            return QpInfo.basic(qpNum, tracked, pathMtu);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment q = query(a);
            if (q == null) {
                return QpInfo.basic(qpNum, QpState.ERROR, pathMtu);
            }
            int st = q.get(JAVA_INT, IbvLayouts.QPA_STATE);
            return new QpInfo(qpNum, state(st), Integer.toUnsignedLong(q.get(JAVA_INT, IbvLayouts.QPA_DEST_QPN)),
                    Integer.toUnsignedLong(q.get(JAVA_INT, IbvLayouts.QPA_SQ_PSN)),
                    Integer.toUnsignedLong(q.get(JAVA_INT, IbvLayouts.QPA_RQ_PSN)),
                    st >= QpState.RTR.ordinal() ? DeviceFinder.mtuBytes(q.get(JAVA_INT, IbvLayouts.QPA_PATH_MTU)) : 0,
                    QpInfo.UNKNOWN, QpInfo.UNKNOWN);
        }
    }

    @Override
    public void postSend(SendWorkRequest wr) {
        int rc;
        synchronized (sendLock) {
            if (closed) {
                throw new VerbsException("queue pair " + qpNum + " is closed");
            }
            ours(wr.local);
            if (wr.opcode.hasImmediate() && device.iwarp()) {
                throw new UnsupportedOperationException(device.name() + " is an iWARP device: RDMAP carries no "
                        + "immediate data (" + wr.opcode + ")");
            }
            encodeSend(sendWr, sendSge, wr);
            try {
                rc = (int) Ibv.FP_POST.invokeExact(device.postSend, qp, sendWr, sendBad);
            } catch (Throwable t) {
                throw Ibv.bug(t);
            }
        }
        if (rc != 0) {
            throw new VerbsException("ibv_post_send on QP " + qpNum + " (" + device.name() + "): "
                    + Ibv.strerror(Math.abs(rc)) + (Math.abs(rc) == 12 ? " (send queue full)" : ""));
        }
    }

    @Override
    public void postRecv(ReceiveWorkRequest wr) {
        int rc;
        synchronized (recvLock) {
            if (closed) {
                throw new VerbsException("queue pair " + qpNum + " is closed");
            }
            ours(wr.region);
            encodeRecv(recvWr, recvSge, wr);
            try {
                rc = (int) Ibv.FP_POST.invokeExact(device.postRecv, qp, recvWr, recvBad);
            } catch (Throwable t) {
                throw Ibv.bug(t);
            }
        }
        if (rc != 0) {
            throw new VerbsException("ibv_post_recv on QP " + qpNum + " (" + device.name() + "): "
                    + Ibv.strerror(Math.abs(rc)) + (Math.abs(rc) == 12 ? " (receive queue full)" : ""));
        }
    }

    private static void ours(MemoryRegion region) {
        if (region != null && !(region instanceof RdmaCoreMemoryRegion)) {
            throw new IllegalArgumentException("the memory region is not an rdma-core registration");
        }
    }

    /**
     * Writes {@code wr} into the native ibv_send_wr {@code w} (whose sg_list already points at {@code sge}):
     * verbs.h's opcode and flag values, imm_data in network order or, for SEND_WITH_INV, invalidate_rkey (host order)
     * in the same union, wr.rdma for READ/WRITE.
     */
    static void encodeSend(MemorySegment w, MemorySegment sge, SendWorkRequest wr) {
        w.set(JAVA_LONG, IbvLayouts.SWR_WR_ID, wr.wrId);
        w.set(JAVA_INT, IbvLayouts.SWR_OPCODE, WcCodes.wrOpcode(wr.opcode));
        w.set(JAVA_INT, IbvLayouts.SWR_SEND_FLAGS,
                (wr.signaled ? IBV_SEND_SIGNALED : 0) | (wr.solicited ? IBV_SEND_SOLICITED : 0));
        if (wr.opcode.hasInvalidate()) {
            w.set(JAVA_INT, IbvLayouts.SWR_INVALIDATE_RKEY, wr.invalidateRkey);
        } else {
            w.set(WcCodes.INT_BE, IbvLayouts.SWR_IMM, wr.opcode.hasImmediate() ? wr.immediate : 0);
        }
        w.set(JAVA_LONG, IbvLayouts.SWR_REMOTE_ADDR, wr.remoteAddress);
        w.set(JAVA_INT, IbvLayouts.SWR_RKEY, wr.rkey);
        w.set(JAVA_INT, IbvLayouts.SWR_NUM_SGE, sge(sge, wr.local, wr.localOffset, wr.length));
    }

    /** Writes {@code wr} into the native ibv_recv_wr {@code w} (sg_list already {@code sge}). */
    static void encodeRecv(MemorySegment w, MemorySegment sge, ReceiveWorkRequest wr) {
        w.set(JAVA_LONG, IbvLayouts.RWR_WR_ID, wr.wrId);
        w.set(JAVA_INT, IbvLayouts.RWR_NUM_SGE, sge(sge, wr.region, wr.offset, wr.length));
    }

    /** Writes one SGE; returns num_sge (0 for a zero-length request without a region). */
    static int sge(MemorySegment sge, MemoryRegion region, int offset, int length) {
        if (region == null) {
            if (length != 0) {
                throw new IllegalArgumentException("a work request of " + length + " bytes needs a memory region");
            }
            return 0;
        }
        if (offset < 0 || length < 0 || (long) offset + length > region.length()) {
            throw new IllegalArgumentException("work request [" + offset + ", +" + length + ") outside the region of "
                    + region.length() + " bytes");
        }
        sge.set(JAVA_LONG, IbvLayouts.SGE_ADDR, region.address() + offset);
        sge.set(JAVA_INT, IbvLayouts.SGE_LENGTH, length);
        sge.set(JAVA_INT, IbvLayouts.SGE_LKEY, region.lkey());
        return 1;
    }

    @Override
    public void connect(QpConnection c) {
        if (device.iwarp()) {
            throw new UnsupportedOperationException(device.name() + " is an iWARP device: its queue pairs connect "
                    + "only through the iWARP CM (rdma_cm), which the rdma-core provider does not bind yet");
        }
        synchronized (this) {
            QpState s = state();
            if (s != QpState.INIT) {
                throw new VerbsException("QP " + qpNum + " is " + s + ", not INIT: cannot connect it out of band");
            }
            int mtu = Math.min(c.pathMtu(), device.maxPathMtu());
            byte[] dgid = DeviceFinder.ipv4MappedGid(c.remote());
            // INIT -> RTR: the peer's address vector (GRH: RoCE is always global), QPN, its first PSN, responder
            // resources, RNR timer (libibverbs/examples/rc_pingpong.c: pp_connect_ctx)
            modify("RTR", a -> {
                a.set(JAVA_INT, IbvLayouts.QPA_STATE, QpState.RTR.ordinal());
                a.set(JAVA_INT, IbvLayouts.QPA_PATH_MTU, DeviceFinder.ibvMtu(mtu));
                a.set(JAVA_INT, IbvLayouts.QPA_DEST_QPN, c.remoteQpn());
                a.set(JAVA_INT, IbvLayouts.QPA_RQ_PSN, c.receivePsn());
                a.set(JAVA_BYTE, IbvLayouts.QPA_MAX_DEST_RD_ATOMIC, (byte) c.maxDestRdAtomic());
                a.set(JAVA_BYTE, IbvLayouts.QPA_MIN_RNR_TIMER, (byte) c.minRnrTimer());
                MemorySegment.copy(dgid, 0, a, JAVA_BYTE, IbvLayouts.QPA_DGID, 16);
                a.set(JAVA_BYTE, IbvLayouts.QPA_SGID_INDEX, (byte) device.gidIndex());
                a.set(JAVA_BYTE, IbvLayouts.QPA_HOP_LIMIT, (byte) HOP_LIMIT);
                a.set(JAVA_BYTE, IbvLayouts.QPA_IS_GLOBAL, (byte) 1);
                a.set(JAVA_BYTE, IbvLayouts.QPA_AH_PORT, (byte) device.port());
            }, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                    | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
            // RTR -> RTS: our first PSN, ACK timeout, retry counts, initiator depth
            modify("RTS", a -> {
                a.set(JAVA_INT, IbvLayouts.QPA_STATE, QpState.RTS.ordinal());
                a.set(JAVA_INT, IbvLayouts.QPA_SQ_PSN, c.sendPsn());
                a.set(JAVA_BYTE, IbvLayouts.QPA_TIMEOUT, (byte) c.localAckTimeout());
                a.set(JAVA_BYTE, IbvLayouts.QPA_RETRY_CNT, (byte) c.retryCount());
                a.set(JAVA_BYTE, IbvLayouts.QPA_RNR_RETRY, (byte) c.rnrRetryCount());
                a.set(JAVA_BYTE, IbvLayouts.QPA_MAX_RD_ATOMIC, (byte) c.maxRdAtomic());
            }, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
                    | IBV_QP_MAX_QP_RD_ATOMIC);
            pathMtu = mtu;
        }
    }

    /** ibv_modify_qp with attributes someone else computed (rdma_init_qp_attr). */
    void apply(MemorySegment attr, int mask, String what) {
        modify(what, a -> MemorySegment.copy(attr, 0, a, 0, IbvLayouts.QP_ATTR.byteSize()), mask);
    }

    void pathMtu(int bytes) {
        pathMtu = bytes;
    }

    @Override
    public void toError() {
        if (closed) {
            return;
        }
        movedToError = true;
        try {
            modify("ERR", a -> a.set(JAVA_INT, IbvLayouts.QPA_STATE, IBV_QPS_ERR), IBV_QP_STATE);
        } catch (VerbsException e) {
            if (!closed) {                            // closed meanwhile: a destroyed QP is as good as one in ERROR
                throw e;
            }
        }
    }

    /** Whether this side moved the QP to ERROR ({@link #toError}): an ERROR without it is the device's own. */
    boolean movedToError() {
        return movedToError;
    }

    /** An async event on this QP (QP_FATAL, REQ_ERR, ACCESS_ERR...): kept for {@link #toString}. */
    void asyncEvent(String name) {
        asyncError = name;
        if (!name.equals("COMM_EST") && !name.equals("QP_LAST_WQE_REACHED")) {
            tracked = QpState.ERROR;                 // QP_FATAL, REQ_ERR, ACCESS_ERR: the QP is in error
        }
    }

    /** An iWARP QP the iWARP CM moved to RTS (rdma_accept / ESTABLISHED). */
    void established() {
        tracked = QpState.RTS;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public int pathMtu() {
        return pathMtu;
    }

    @Override
    public void close() {
        synchronized (sendLock) {
            synchronized (recvLock) {
                synchronized (control) {                 // no post, modify or query runs or starts on it after this
                    if (closed) {
                        return;
                    }
                    closed = true;
                }
            }
        }
        device.unregister(this, qp);
        try {
            int rc = (int) Ibv.DESTROY_QP.invokeExact(qp);
            if (rc != 0) {
                throw new VerbsException("ibv_destroy_qp(QP " + qpNum + "): " + Ibv.strerror(Math.abs(rc)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "rdma-core QP " + qpNum + " of " + device.name() + (asyncError == null ? "" : " (" + asyncError + ")");
    }
}

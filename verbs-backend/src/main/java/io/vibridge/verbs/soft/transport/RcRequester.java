package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.port.TxBatch;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue.Value;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;
import io.vibridge.verbs.soft.transport.SendQueue.Wqe;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.Psn;

/**
 * Requester of one RC QP (IB-WIRE-REFERENCE §4.1, §4.2), go-back-N as Linux rxe's {@code rxe_req.c}: work requests
 * get their PSN range when posted; {@code cursor}/{@code curPsn} is the next packet to transmit. What may go out
 * is bounded by the window from the completer's {@code compPsn}, the READ limit and the completer's mode
 * ({@link RcCompleter#admits}); the completer rewinds the cursor on a retry ({@link #rewind}, rxe's
 * {@code req_retry}). All methods run under the QP's monitor.
 */
final class RcRequester {

    /**
     * A message of up to this many packets with nothing ahead of it goes out on the posting thread: the doorbell to
     * the transmit thread costs a futex wake and a context switch per message, more than the one or two
     * {@code sendmsg} of a 64 KiB message at MTU 4096 (verbs-backend README, "Where the time goes"). 30 packets
     * are two {@code UDP_SEGMENT} groups at MTU 4096 (15 full packets fit the 65,507 bytes of one), fewer at
     * smaller MTUs; they take in the gateway's 64 KiB Sends, 17 packets with their FlowC 0 header. Longer
     * messages go to the transmit thread, so that a poster such as the gateway's event loop is never held longer.
     */
    private static final int INLINE_PACKETS = 30;

    private final RcQueuePair qp;
    private final SendQueue sq;
    /** PSNs in flight at most (SoftParams.WINDOW, rxe RXE_MAX_UNACKED_PSNS). */
    private final int window;
    /** AckReq at least every this many packets (SoftParams.MAX_PKT_PER_ACK, rxe RXE_MAX_PKT_PER_ACK). */
    private final int maxPktPerAck;
    private long cursor;      // next to transmit
    private int sqPsn;        // PSN for the next posted WQE
    private int curPsn;       // PSN of the next packet to transmit
    private int highestSent;
    private boolean sentAny;
    private int readsInFlight;
    private int pktsSinceAckReq;
    private int maxReads;
    /** This QP's share of the device's counter of the same name, for {@link RcQueuePair#info()}. */
    private long retransmissions;

    RcRequester(RcQueuePair qp, SendQueue sq, int window, int maxPktPerAck) {
        this.qp = qp;
        this.sq = sq;
        this.window = window;
        this.maxPktPerAck = maxPktPerAck;
        if (maxPktPerAck < 1 || maxPktPerAck > window / 2) {
            // see nextFollows: a full window must hold a packet that asks for an ACK
            throw new IllegalArgumentException("maxPktPerAck " + maxPktPerAck + " must be within 1.." + window / 2);
        }
    }

    void start(RcAttributes a) {
        sqPsn = a.sqPsn() & Psn.MASK;
        curPsn = sqPsn;
        // §4.2: initiator depth; 0 would forbid READs forever, treat as 1
        maxReads = Math.max(1, a.maxRdAtomic());
    }

    /** The PSN of the next packet to transmit (rxe's {@code req.psn}, what {@code sq_psn} reports). */
    int nextPsn() {
        return curPsn;
    }

    long retransmissions() {
        return retransmissions;
    }

    /** Whether a packet of PSN {@code psn} went out (it is at most the highest PSN sent). */
    boolean hasSent(int psn) {
        return sentAny && Psn.compare(psn, highestSent) <= 0;
    }

    /** Whether every packet transmitted so far is acknowledged ({@code compPsn} the completer's). */
    boolean caughtUp(int compPsn) {
        return cursor == sq.head() && curPsn == compPsn;
    }

    void post(SendWorkRequest wr) {
        if (qp.state == QpState.ERROR) {
            qp.sendCq.push(wr.wrId, WcStatus.WR_FLUSH_ERROR, SendQueue.wcOpcode(wr.opcode), 0, Value.NONE, 0, qp.qpn,
                    false);
            return;
        }
        if (qp.state != QpState.RTS) {
            throw new VerbsException("QP " + qp.qpn + " is not in RTS (" + qp.state + ")");
        }
        if (sq.isFull()) {
            throw new VerbsException("send queue of QP " + qp.qpn + " is full (" + sq.capacity() + ")");
        }
        if (wr.opcode == null || wr.length < 0) {
            throw new IllegalArgumentException("bad send work request");
        }
        SoftMemoryRegion mr = null;
        if (wr.length > 0 || wr.local != null) {
            if (!(wr.local instanceof SoftMemoryRegion m) || m.pd() != qp.pd) {
                throw new IllegalArgumentException("local memory region missing or of another protection domain");
            }
            if (wr.localOffset < 0 || wr.localOffset > m.length() - wr.length) {
                throw new IllegalArgumentException("local range outside the memory region");
            }
            if (wr.opcode.isRead() && !m.localWrite()) {
                throw new IllegalArgumentException("RDMA READ target needs LOCAL_WRITE access");
            }
            mr = m;
        }
        Wqe w = sq.free();
        w.wrId = wr.wrId;
        w.op = wr.opcode;
        w.mr = mr;
        w.off = wr.localOffset;
        w.len = wr.length;
        w.raddr = wr.remoteAddress;
        w.rkey = wr.rkey;
        w.imm = wr.immediate;
        w.invalidateRkey = wr.invalidateRkey;
        w.signaled = wr.signaled;
        w.solicited = wr.solicited;
        w.npkts = wr.length == 0 ? 1 : (int) ((wr.length + (long) qp.mtu - 1) / qp.mtu);
        w.firstPsn = sqPsn;
        w.lastPsn = Psn.add(sqPsn, w.npkts - 1);
        w.readRcvd = 0;
        sqPsn = Psn.add(w.lastPsn, 1);
        sq.append();
        if (!mayTransmit()) {
            return;                 // the ACK (or timer) that opens the window pumps it: no doorbell for nothing
        }
        if (w.npkts <= INLINE_PACKETS && cursor == sq.tail() - 1 && !qp.transmitScheduled) {
            pump();                 // nothing ahead of it: on the caller's thread, no hand-off
        } else {
            qp.scheduleTransmit();  // the port's transmit thread lays out and sends it (doorbell)
        }
    }

    /**
     * Whether {@link #pump} could send a packet now as far as the window and the completer's mode go. When it
     * could not, the completer's event that ends it (an ACK on the receive thread, a timer) pumps: a doorbell rung
     * meanwhile woke the transmit thread to find nothing to send, and it then waited for the QP's monitor that
     * the receive thread holds across {@code sendmsg} (a 64 KiB SEND stream's client: 18,060 contended entries in 3 s).
     */
    private boolean mayTransmit() {
        RcCompleter c = qp.completer;
        return c.admits(curPsn) && Psn.compare(curPsn, c.compPsn()) < window;
    }

    /**
     * Whether the WQE after the cursor's may start at once: it exists and is not a READ waiting for the READ
     * limit. The message ending now then asks for no ACK of its own; the answer to a later packet's AckReq
     * acknowledges it too (ACKs are cumulative, the requester sets the ACK rate: IB-WIRE-REFERENCE §4.4). rxe
     * asks at every message's end, which in a stream costs an ACK, a {@code sendmsg} and a receive-thread
     * wake-up per message and lets each ACK reopen the window by one message (verbs-backend README, "One ACK
     * per window's worth"). A shut window does not count: {@code maxPktPerAck} is at most half the window, so
     * a full window always holds a packet that asks.
     */
    private boolean nextFollows() {
        return cursor + 1 < sq.tail() && (!sq.at(cursor + 1).op.isRead() || readsInFlight < maxReads);
    }

    /** Transmits what the window, the READ limit and the completer's mode allow. */
    void pump() {
        RcCompleter c = qp.completer;
        if (qp.state != QpState.RTS || c.mode() == RcCompleter.Mode.RNR_WAIT) {
            return;
        }
        boolean probing = c.mode() == RcCompleter.Mode.PROBING;   // one packet, asking for an ACK
        int mtu = qp.mtu;
        PacketWriter pw = qp.writer;
        TxBatch out = null;                 // borrowed at the first packet, sent and given back at the end
        boolean sent = false;
        boolean wasIdle = caughtUp(c.compPsn());
        try {
            while (cursor < sq.tail()) {
                if (!mayTransmit()) {
                    break;
                }
                Wqe w = sq.at(cursor);
                int k = Psn.compare(curPsn, w.firstPsn);
                long off = (long) k * mtu;
                if (w.op.isRead()) {
                    if (readsInFlight >= maxReads) {
                        break;
                    }
                    if (out == null) {
                        out = qp.openBatch();
                    }
                    qp.begin(out, Opcode.RDMA_READ_REQUEST, false, true, curPsn, 0)
                            .reth(w.raddr + off, w.rkey, w.len - off).finish();
                    noteSent(curPsn, w.lastPsn);
                    readsInFlight++;
                    pktsSinceAckReq = 0;
                    curPsn = Psn.add(w.lastPsn, 1);
                    cursor++;
                    sent = true;
                    continue;
                }
                int plen = (int) Math.min(mtu, w.len - off);
                boolean last = k == w.npkts - 1;
                Opcode op = opcode(w.op, k == 0, last);
                boolean ackReq = probing || (last && !nextFollows()) || ++pktsSinceAckReq >= maxPktPerAck;
                if (ackReq) {
                    pktsSinceAckReq = 0;
                }
                // §2.1: SE only on the last packet of a SEND (with or without immediate or invalidate) or of a
                // WRITE with immediate
                boolean se = last && w.solicited && (op.isSend() || op.hasImmDt());
                if (out == null) {
                    out = qp.openBatch();
                }
                qp.begin(out, op, se, ackReq, curPsn, plen);
                if (op.hasReth()) {
                    pw.reth(w.raddr, w.rkey, w.len);
                }
                if (op.hasImmDt()) {
                    pw.immDt(w.imm);
                }
                if (op.hasIeth()) {
                    pw.ieth(w.invalidateRkey);          // REF §3.4: the Last/Only packet, again on every resend
                }
                if (plen > 0) {
                    pw.payload(w.mr.buffer(), w.off + (int) off);
                }
                if (probing) {
                    c.probeSent(curPsn);
                }
                pw.finish();
                noteSent(curPsn, curPsn);
                curPsn = Psn.next(curPsn);
                if (last) {
                    cursor++;
                }
                sent = true;
            }
        } finally {
            qp.closeBatch(out);
        }
        if (sent) {
            c.transmitted(wasIdle);
        }
    }

    /**
     * The opcode of a SEND's or WRITE's packet by its place in the message (IB-WIRE-REFERENCE §2.1): immediate data
     * and the invalidate R_Key ride on the Last or Only packet (§4.1).
     */
    private static Opcode opcode(WrOpcode op, boolean first, boolean last) {
        return switch (op) {
            case SEND -> place(first, last, Opcode.SEND_ONLY, Opcode.SEND_FIRST, Opcode.SEND_MIDDLE,
                    Opcode.SEND_LAST);
            case SEND_WITH_IMM -> place(first, last, Opcode.SEND_ONLY_WITH_IMMEDIATE, Opcode.SEND_FIRST,
                    Opcode.SEND_MIDDLE, Opcode.SEND_LAST_WITH_IMMEDIATE);
            case SEND_WITH_INV -> place(first, last, Opcode.SEND_ONLY_WITH_INVALIDATE, Opcode.SEND_FIRST,
                    Opcode.SEND_MIDDLE, Opcode.SEND_LAST_WITH_INVALIDATE);
            case RDMA_WRITE -> place(first, last, Opcode.RDMA_WRITE_ONLY, Opcode.RDMA_WRITE_FIRST,
                    Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST);
            case RDMA_WRITE_WITH_IMM -> place(first, last, Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE,
                    Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE);
            case RDMA_READ -> Opcode.RDMA_READ_REQUEST;
        };
    }

    private static Opcode place(boolean first, boolean last, Opcode only, Opcode firstOp, Opcode middle,
                                Opcode lastOp) {
        return first ? (last ? only : firstOp) : last ? lastOp : middle;
    }

    private void noteSent(int psn, int lastPsn) {
        if (sentAny && Psn.compare(psn, highestSent) <= 0) {
            qp.counters.retransmissions.increment();
            retransmissions++;
        }
        if (!sentAny || Psn.compare(lastPsn, highestSent) > 0) {
            highestSent = lastPsn;
            sentAny = true;
        }
    }

    // ------------------------------------------------------------------ the completer's calls

    /** Go-back-N: the next packet to transmit is the oldest unacknowledged, {@code compPsn} (rxe_req.c req_retry). */
    void rewind(int compPsn) {
        cursor = sq.head();
        curPsn = compPsn;
        readsInFlight = 0;
        pktsSinceAckReq = 0;
    }

    /** The completer retired up to {@code compPsn}: the cursor never lags behind what is acknowledged. */
    void acknowledged(int compPsn) {
        if (cursor < sq.head()) {
            cursor = sq.head();
        }
        if (Psn.compare(curPsn, compPsn) < 0) {
            curPsn = compPsn;
        }
    }

    /** A READ's last response arrived: one more READ may start. */
    void readCompleted() {
        readsInFlight = Math.max(0, readsInFlight - 1);
    }

    /** The QP went to ERROR; the completer flushed the queue. */
    void flush() {
        cursor = sq.tail();
    }
}

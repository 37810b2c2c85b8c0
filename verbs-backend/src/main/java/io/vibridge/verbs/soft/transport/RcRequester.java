package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.port.TxBatch;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.Psn;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Requester and completer of one RC QP (IB-WIRE-REFERENCE §4.1, §4.2, §4.8, §4.9), go-back-N as rxe:
 * work requests get their PSN range when posted; {@code cursor}/{@code curPsn} is the next packet to
 * transmit, {@code compPsn} the oldest unacknowledged PSN. A retry (timeout, sequence NAK, end of an
 * RNR wait) rewinds the cursor to {@code compPsn}. All methods run under the QP's monitor.
 */
final class RcRequester {

    /** A send work queue element. */
    static final class Wqe {
        long wrId;
        WrOpcode op;
        SoftMemoryRegion mr;
        int off;
        int len;
        long raddr;
        int rkey;
        int imm;
        boolean signaled;
        boolean solicited;
        int firstPsn;
        int lastPsn;
        int npkts;
        int readRcvd;
    }

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
    private final Wqe[] ring;
    /** PSNs in flight at most (SoftParams.WINDOW, rxe RXE_MAX_UNACKED_PSNS). */
    private final int window;
    /** AckReq at least every this many packets (SoftParams.MAX_PKT_PER_ACK, rxe RXE_MAX_PKT_PER_ACK). */
    private final int maxPktPerAck;
    private long head;        // oldest incomplete
    private long cursor;      // next to transmit
    private long tail;        // next free
    private int sqPsn;        // PSN for the next posted WQE
    private int curPsn;       // PSN of the next packet to transmit
    private int compPsn;      // oldest unacknowledged PSN
    private int highestSent;
    private boolean sentAny;
    private int readsInFlight;
    private int pktsSinceAckReq;
    private int retryLeft;
    private int rnrLeft;
    private boolean rnrWait;
    /** RNR NAKs in a row without progress: the backoff's exponent ({@link RnrBackoff}). */
    private int rnrStreak;
    /** When the current RNR wait began, for the device's time-spent-waiting counter. */
    private long rnrWaitSince;
    /**
     * After a timeout only the oldest unacknowledged packet goes out, with AckReq; its answer says where the
     * responder is, and go-back-N resumes from there. A timeout that was only a late ACK (a stalled thread
     * on a loaded host) then costs one packet instead of a window.
     */
    private boolean probing;
    private int probePsn;
    /** A late ACK moved compPsn while probing: probe again at {@code reprobeAt} unless the probe's answer comes first. */
    private long reprobeAt;
    private boolean reprobeScheduled;
    private final Runnable reprobeTask = this::onReprobeTimer;
    private boolean ackBeyondRead;
    /**
     * The oldest READ was re-requested on a gap in its responses. At most once per READ and ACK timeout: responses
     * of the first stream still in flight would otherwise each look like a new gap and set off a storm of
     * replays. Cleared when the READ completes or the timer retries.
     */
    private boolean readGapRetried;
    private int ackBeyondPsn;
    private long timeoutNanos;
    private long deadline;
    private boolean timerPending;
    private int maxReads;
    private final Runnable timerTask = this::onTimer;
    private final Runnable rnrTask = this::onRnrTimer;
    /** This QP's share of the device's counters of the same names, for {@link RcQueuePair#info()}. */
    private long retransmissions;
    private long timeouts;

    private final RnrBackoff rnrBackoff;

    RcRequester(RcQueuePair qp, int maxSend, int window, int maxPktPerAck, RnrBackoff rnrBackoff) {
        this.qp = qp;
        this.rnrBackoff = rnrBackoff;
        this.window = window;
        this.maxPktPerAck = maxPktPerAck;
        if (maxPktPerAck < 1 || maxPktPerAck > window / 2) {
            // see nextFollows: a full window must hold a packet that asks for an ACK
            throw new IllegalArgumentException("maxPktPerAck " + maxPktPerAck + " must be within 1.." + window / 2);
        }
        this.ring = new Wqe[maxSend];
        for (int i = 0; i < maxSend; i++) {
            ring[i] = new Wqe();
        }
    }

    void start(RcAttributes a) {
        sqPsn = a.sqPsn() & Psn.MASK;
        curPsn = sqPsn;
        compPsn = sqPsn;
        retryLeft = a.retryCount();
        rnrLeft = a.rnrRetry();
        timeoutNanos = a.ackTimeoutNanos();
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

    long timeouts() {
        return timeouts;
    }

    private Wqe at(long i) {
        return ring[(int) (i % ring.length)];
    }

    void post(SendWorkRequest wr) {
        if (qp.state == QpState.ERROR) {
            qp.sendCq.push(wr.wrId, WcStatus.WR_FLUSH_ERROR, wcOpcode(wr.opcode), 0, false, 0, qp.qpn, false);
            return;
        }
        if (qp.state != QpState.RTS) {
            throw new VerbsException("QP " + qp.qpn + " is not in RTS (" + qp.state + ")");
        }
        if (tail - head >= ring.length) {
            throw new VerbsException("send queue of QP " + qp.qpn + " is full (" + ring.length + ")");
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
        Wqe w = at(tail);
        w.wrId = wr.wrId;
        w.op = wr.opcode;
        w.mr = mr;
        w.off = wr.localOffset;
        w.len = wr.length;
        w.raddr = wr.remoteAddress;
        w.rkey = wr.rkey;
        w.imm = wr.immediate;
        w.signaled = wr.signaled;
        w.solicited = wr.solicited;
        w.npkts = wr.length == 0 ? 1 : (int) ((wr.length + (long) qp.mtu - 1) / qp.mtu);
        w.firstPsn = sqPsn;
        w.lastPsn = Psn.add(sqPsn, w.npkts - 1);
        w.readRcvd = 0;
        sqPsn = Psn.add(w.lastPsn, 1);
        tail++;
        if (!mayTransmit()) {
            return;                 // the ACK (or timer) that opens the window pumps it: no doorbell for nothing
        }
        if (w.npkts <= INLINE_PACKETS && cursor == tail - 1 && !qp.transmitScheduled) {
            pump();                 // nothing ahead of it: on the caller's thread, no hand-off
        } else {
            qp.scheduleTransmit();  // the port's transmit thread lays out and sends it (doorbell)
        }
    }

    /**
     * Whether {@link #pump} could send a packet now as far as the window, an RNR wait and a probe go. When it
     * could not, each of them ends on the receive thread or a timer, which pumps: a doorbell rung meanwhile
     * woke the transmit thread to find nothing to send, and it then waited for the QP's monitor that the receive
     * thread holds across {@code sendmsg} (a 64 KiB SEND stream's client: 18,060 contended entries in 3 s).
     */
    private boolean mayTransmit() {
        return !rnrWait && Psn.compare(curPsn, compPsn) < window && !(probing && curPsn != compPsn);
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
        return cursor + 1 < tail && (!at(cursor + 1).op.isRead() || readsInFlight < maxReads);
    }

    /** Transmits what the window, the READ limit and an RNR wait allow. */
    void pump() {
        if (qp.state != QpState.RTS || rnrWait) {
            return;
        }
        int mtu = qp.mtu;
        PacketWriter pw = qp.writer;
        TxBatch out = null;                 // borrowed at the first packet, sent and given back at the end
        boolean sent = false;
        boolean wasIdle = cursor == head && curPsn == compPsn;
        try {
            while (cursor < tail) {
                if (!mayTransmit()) {
                    break;
                }
                Wqe w = at(cursor);
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
                boolean first = k == 0;
                boolean last = k == w.npkts - 1;
                boolean write = w.op.isWrite();
                boolean imm = last && w.op.hasImmediate();
                Opcode op;
                if (first && last) {
                    op = write ? (imm ? Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.RDMA_WRITE_ONLY)
                            : (imm ? Opcode.SEND_ONLY_WITH_IMMEDIATE : Opcode.SEND_ONLY);
                } else if (first) {
                    op = write ? Opcode.RDMA_WRITE_FIRST : Opcode.SEND_FIRST;
                } else if (last) {
                    op = write ? (imm ? Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE : Opcode.RDMA_WRITE_LAST)
                            : (imm ? Opcode.SEND_LAST_WITH_IMMEDIATE : Opcode.SEND_LAST);
                } else {
                    op = write ? Opcode.RDMA_WRITE_MIDDLE : Opcode.SEND_MIDDLE;
                }
                boolean ackReq = probing || (last && !nextFollows()) || ++pktsSinceAckReq >= maxPktPerAck;
                if (ackReq) {
                    pktsSinceAckReq = 0;
                }
                boolean se = last && w.solicited && (!write || imm);   // §2.1: SE only on the last packet
                if (out == null) {
                    out = qp.openBatch();
                }
                qp.begin(out, op, se, ackReq, curPsn, plen);
                if (op.hasReth()) {
                    pw.reth(w.raddr, w.rkey, w.len);
                }
                if (imm) {
                    pw.immDt(w.imm);
                }
                if (plen > 0) {
                    pw.payload(w.mr.buffer(), w.off + (int) off);
                }
                if (probing) {
                    probePsn = curPsn;
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
            if (wasIdle) {
                deadline = System.nanoTime() + timeoutNanos;   // the timer measures from the first outstanding packet
            }
            armTimer();
        }
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

    // ------------------------------------------------------------------ timers

    private void armTimer() {
        if (timeoutNanos == 0) {
            return;                                  // §4.9: timeout 0 disables the timer
        }
        if (!timerPending) {
            timerPending = true;
            deadline = System.nanoTime() + timeoutNanos;
            qp.port.timers().schedule(timerTask, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void onTimer() {
        synchronized (qp) {
            timerPending = false;
            if (qp.state != QpState.RTS || head == tail || rnrWait || (cursor == head && curPsn == compPsn)) {
                return;
            }
            long now = System.nanoTime();
            if (now - deadline < 0) {
                timerPending = true;
                qp.port.timers().schedule(timerTask, deadline - now, TimeUnit.NANOSECONDS);
                return;
            }
            qp.counters.timeouts.increment();
            timeouts++;
            readGapRetried = false;
            if (!consumeRetry()) {
                failHead(WcStatus.RETRY_EXCEEDED);
                return;
            }
            rewind();
            probing = true;
            pump();
        }
    }

    private void onRnrTimer() {
        synchronized (qp) {
            rnrWait = false;
            qp.counters.rnrWaitNanos.add(System.nanoTime() - rnrWaitSince);
            if (qp.state == QpState.RTS) {
                // IBA 9.7.5.2.8: resume at the NAKed PSN; probe with that one packet first, so that a receiver
                // still without a receive WQE NAKs one packet again instead of dropping a window behind it
                rewind();
                probing = true;
                pump();
            }
        }
    }

    /** Go-back-N from {@code compPsn}, consuming a retry; RETRY_EXCEEDED when none is left (§4.8, §4.9). */
    private void retry() {
        if (!consumeRetry()) {
            failHead(WcStatus.RETRY_EXCEEDED);
            return;
        }
        rewind();
        pump();
    }

    /**
     * retry_cnt counts consecutive retries without progress, 7 included: IBA 9.7.6.1.3 makes only the RNR retry
     * count 7 unlimited (IB-WIRE-REFERENCE §4.9), and hardware RNICs read the transport count so. Linux rxe alone skips the
     * decrement at 7 (rxe_comp.c, COMPST_ERROR_RETRY); following it would let a dead peer hang a QP forever.
     */
    private boolean consumeRetry() {
        if (retryLeft == 0) {
            return false;
        }
        retryLeft--;
        return true;
    }

    private void rewind() {
        probing = false;
        deadline = System.nanoTime() + timeoutNanos;
        cursor = head;
        curPsn = compPsn;
        readsInFlight = 0;
        pktsSinceAckReq = 0;
    }

    private void progress() {
        retryLeft = qp.attrs.retryCount();
        rnrLeft = qp.attrs.rnrRetry();
        rnrStreak = 0;
        deadline = System.nanoTime() + timeoutNanos;
    }

    // ------------------------------------------------------------------ completer

    void onResponse(Opcode op, ByteBuffer pkt, int hl, int plen) {
        int psn = Bth.psn(pkt, 0);
        if (!sentAny || Psn.compare(psn, highestSent) > 0) {
            qp.counters.malformedDrops.increment();   // answers a PSN we never sent: hostile or stale peer
            return;
        }
        if (op.isAck()) {
            int syn = Aeth.syndrome(pkt, op.aethOffset());
            switch (syn >> 5 & 3) {                  // syndrome bits 6:5 (§3.2)
                case 0 -> {
                    if (probing) {
                        onAckWhileProbing(psn);
                    } else {
                        applyAck(psn);
                        pump();
                    }
                }
                case 1 -> onRnrNak(psn, Aeth.code(syn));
                case 3 -> onNak(psn, Aeth.code(syn));
                default -> qp.counters.malformedDrops.increment();
            }
            return;
        }
        onReadResponse(op, pkt, hl, plen, psn);
    }

    /**
     * An ACK after a timeout probe. The probe taken as new (ACK of exactly its PSN) or an ACK that moves
     * nothing (the responder's answer to a duplicate, ePSN - 1: it expects {@code compPsn}) means packets
     * were really lost: go-back-N from {@code compPsn}. An ACK that moves {@code compPsn} but not to the
     * probe is a late one: probe again at the new {@code compPsn} rather than resend what may have arrived.
     */
    private void onAckWhileProbing(int psn) {
        int before = compPsn;
        applyAck(psn);
        boolean moved = compPsn != before;
        if (head == tail || Psn.compare(compPsn, highestSent) > 0 || !moved || psn == probePsn) {
            probing = false;
            pump();
            return;
        }
        // late ACKs come in a burst after a stall and the probe's own answer follows them: wait a little
        // (each further ACK pushes the deadline) before probing at the new compPsn
        long delay = Math.max(100_000L, Math.min(timeoutNanos / 16, 2_000_000L));
        reprobeAt = System.nanoTime() + delay;
        if (!reprobeScheduled) {
            reprobeScheduled = true;
            qp.port.timers().schedule(reprobeTask, delay, TimeUnit.NANOSECONDS);
        }
    }

    private void onReprobeTimer() {
        synchronized (qp) {
            reprobeScheduled = false;
            if (!probing || qp.state != QpState.RTS || rnrWait) {
                return;
            }
            long now = System.nanoTime();
            if (now - reprobeAt < 0) {
                reprobeScheduled = true;
                qp.port.timers().schedule(reprobeTask, reprobeAt - now, TimeUnit.NANOSECONDS);
                return;
            }
            pump();                                   // one packet at compPsn, AckReq set
        }
    }

    private void onRnrNak(int psn, int timerCode) {
        qp.counters.rnrNaksReceived.increment();
        if (head == tail || Psn.compare(psn, compPsn) < 0 || rnrWait) {
            return;                                   // stale
        }
        applyAck(Psn.add(psn, -1));
        if (qp.attrs.rnrRetry() != 7) {               // 7 = retry forever (§4.9)
            if (rnrLeft == 0) {
                failHead(WcStatus.RNR_RETRY_EXCEEDED);
                return;
            }
            rnrLeft--;
        }
        qp.counters.rnrWaits.increment();
        rnrWait = true;
        rnrWaitSince = System.nanoTime();
        // IBA 9.7.5.2.8 (C9-134): at least the coded time; the floor and the backoff make a stalled receiver
        // cost a few retries a second instead of one per coded time (RnrBackoff)
        long wait = rnrBackoff.waitNanos(Aeth.rnrTimerMicros(timerCode) * 1000L, rnrStreak);
        if (rnrStreak < Integer.MAX_VALUE) {
            rnrStreak++;
        }
        qp.port.timers().schedule(rnrTask, wait, TimeUnit.NANOSECONDS);
    }

    private void onNak(int psn, int code) {
        qp.counters.naksReceived[Math.min(code, 3)].increment();
        if (head == tail || Psn.compare(psn, compPsn) < 0) {
            return;                                   // stale
        }
        applyAck(Psn.add(psn, -1));
        if (code == 0) {                              // PSN sequence error: go-back-N (§4.8)
            if (!rnrWait) {
                retry();
            }
            return;
        }
        failHead(switch (code) {
            case 1 -> WcStatus.REMOTE_INVALID_REQUEST;
            case 2 -> WcStatus.REMOTE_ACCESS_ERROR;
            case 3 -> WcStatus.REMOTE_OPERATIONAL_ERROR;
            default -> WcStatus.GENERAL_ERROR;
        });
    }

    /** Cumulative ACK of every PSN up to and including {@code psn}. */
    private void applyAck(int psn) {
        boolean progressed = false;
        while (head < tail) {
            Wqe w = at(head);
            if (Psn.compare(psn, w.firstPsn) < 0) {
                break;
            }
            if (w.op.isRead()) {
                // an ACK beyond a READ still waiting for responses: keep it for when the READ completes
                if (!ackBeyondRead || Psn.compare(psn, ackBeyondPsn) > 0) {
                    ackBeyondRead = true;
                    ackBeyondPsn = psn;
                }
                break;
            }
            if (Psn.compare(psn, w.lastPsn) >= 0) {
                head++;
                compPsn = Psn.add(w.lastPsn, 1);
                progressed = true;
                complete(w, WcStatus.SUCCESS);
            } else {
                int next = Psn.add(psn, 1);
                if (Psn.compare(next, compPsn) > 0) {
                    compPsn = next;
                    progressed = true;
                }
                break;
            }
        }
        if (progressed) {
            afterProgress();
        }
    }

    private void afterProgress() {
        progress();
        if (cursor < head) {
            cursor = head;
        }
        if (Psn.compare(curPsn, compPsn) < 0) {
            curPsn = compPsn;
        }
        if (head == tail) {
            ackBeyondRead = false;
        }
    }

    private void onReadResponse(Opcode op, ByteBuffer pkt, int hl, int plen, int psn) {
        probing = false;                              // READ data: go-back-N from what it acknowledges
        // a read response implicitly acknowledges every earlier SEND/WRITE (§4.8)
        while (head < tail) {
            Wqe w = at(head);
            if (w.op.isRead() || Psn.compare(w.lastPsn, psn) >= 0) {
                break;
            }
            head++;
            compPsn = Psn.add(w.lastPsn, 1);
            complete(w, WcStatus.SUCCESS);
            afterProgress();
        }
        if (head == tail) {
            return;
        }
        Wqe w = at(head);
        int expected = Psn.add(w.firstPsn, w.readRcvd);
        if (!w.op.isRead() || psn != expected) {
            qp.counters.outOfSequence.increment();    // gap or stale: dropped (§4.8)
            if (w.op.isRead() && Psn.compare(psn, expected) > 0 && Psn.compare(psn, w.lastPsn) <= 0
                    && !readGapRetried && !rnrWait) {
                // §4.8: a response past the expected one means responses were lost: re-request the rest of
                // the READ now instead of waiting for the ACK timer (rxe's choice, which costs a whole timeout per
                // lost response: about 2 s with the ACK timeout rdma_cm derives over RoCE)
                readGapRetried = true;
                retry();
            }
            return;
        }
        long off = (long) w.readRcvd * qp.mtu;
        long remaining = w.len - off;
        boolean last = op.isEnd();
        if (last ? plen != remaining : plen != qp.mtu || remaining <= qp.mtu) {
            qp.counters.malformedDrops.increment();
            return;
        }
        if (plen > 0) {
            w.mr.buffer().put(w.off + (int) off, pkt, hl, plen);
        }
        w.readRcvd++;
        compPsn = Psn.add(psn, 1);
        afterProgress();
        if (last) {
            head++;
            readGapRetried = false;
            readsInFlight = Math.max(0, readsInFlight - 1);
            compPsn = Psn.add(w.lastPsn, 1);
            afterProgress();
            complete(w, WcStatus.SUCCESS);
            if (ackBeyondRead) {
                ackBeyondRead = false;
                if (Psn.compare(ackBeyondPsn, compPsn) >= 0) {
                    applyAck(ackBeyondPsn);
                }
            }
        }
        pump();
    }

    private void complete(Wqe w, WcStatus status) {
        if (w.signaled || status != WcStatus.SUCCESS) {
            qp.sendCq.push(w.wrId, status, wcOpcode(w.op), w.len, false, 0, qp.qpn, false);
        }
        w.mr = null;
    }

    /** Completes the oldest WQE in error, then the QP goes to ERROR (the rest is flushed). */
    private void failHead(WcStatus status) {
        if (head < tail) {
            Wqe w = at(head++);
            complete(w, status);
        }
        qp.enterError("send completion " + status);
    }

    void flush() {
        while (head < tail) {
            complete(at(head++), WcStatus.WR_FLUSH_ERROR);
        }
        cursor = tail;
    }

    static WcOpcode wcOpcode(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM -> WcOpcode.SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
        };
    }
}

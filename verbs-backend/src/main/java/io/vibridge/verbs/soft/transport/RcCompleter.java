package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.QpState;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue.Value;
import io.vibridge.verbs.soft.transport.SendQueue.Wqe;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.Psn;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Completer of one RC QP (IB-WIRE-REFERENCE §4.8, §4.9), as Linux rxe's {@code rxe_comp.c}: takes the answers to
 * the requester's packets (ACK, NAK, RNR NAK, READ responses), retires what they acknowledge from the send queue
 * into send completions, and owns the retransmit and RNR timers and the decisions to retransmit, which rewind the
 * requester ({@link RcRequester#rewind}). {@code compPsn} is the oldest unacknowledged PSN.
 *
 * <p>What the completer waits for is its {@link Mode}, which also bounds what the requester may transmit
 * ({@link #admits}):
 * <pre>
 *   STREAMING          --RNR NAK--&gt;                 RNR_WAIT --RNR timer--&gt; PROBING (the NAKed packet)
 *   STREAMING, PROBING --ACK timeout--&gt;             PROBING (the oldest unacknowledged packet)
 *   PROBING            --RNR NAK--&gt;                 RNR_WAIT
 *   PROBING            --ACK short of the probe--&gt;  PROBING (again at the new compPsn, after the reprobe timer)
 *   PROBING            --the probe's answer, a READ response, a sequence NAK--&gt; STREAMING (go-back-N)
 *   any                --error NAK, no retry left--&gt; the QP to ERROR: the oldest fails, the rest is flushed
 * </pre>
 * All methods run under the QP's monitor; the timer tasks take it.
 */
final class RcCompleter {

    /** What the completer waits for. */
    enum Mode {
        /** Go-back-N: the window is the only limit; a sequence NAK or a READ response gap rewinds at once. */
        STREAMING,
        /**
         * After an RNR NAK until the RNR timer (IBA 9.7.5.2.8; rxe's {@code req.wait_for_rnr_timer}): nothing is
         * transmitted, the retry timer and further RNR or sequence NAKs are ignored; ACKs still retire WQEs.
         */
        RNR_WAIT,
        /**
         * After an ACK timeout or an RNR wait only the oldest unacknowledged packet goes out, with AckReq; its
         * answer says where the responder is, and go-back-N resumes from there. A timeout that was only a late ACK
         * (a stalled thread on a loaded host) then costs one packet instead of a window.
         */
        PROBING
    }

    private final RcQueuePair qp;
    private final SendQueue sq;
    private final RnrBackoff rnrBackoff;
    private Mode mode = Mode.STREAMING;
    private int compPsn;      // oldest unacknowledged PSN
    private int retryLeft;
    private int rnrLeft;
    /** RNR NAKs in a row without progress: the backoff's exponent ({@link RnrBackoff}). */
    private int rnrStreak;
    /** When the current RNR wait began, for the device's time-spent-waiting counter. */
    private long rnrWaitSince;
    /** The PSN of the last probe sent (PROBING). */
    private int probePsn;
    private boolean ackBeyondRead;
    private int ackBeyondPsn;
    /**
     * The oldest READ was re-requested on a gap in its responses. At most once per READ and ACK timeout: responses
     * of the first stream still in flight would otherwise each look like a new gap and set off a storm of
     * replays. Cleared when the READ completes or the timer retries.
     */
    private boolean readGapRetried;
    private long timeoutNanos;
    /** The ACK timeout (§4.9), measured from the oldest outstanding packet or the last progress. */
    private final LazyTimer retryTimer;
    /** A late ACK moved compPsn while probing: probe again at its deadline unless the probe's answer comes first. */
    private final LazyTimer reprobeTimer;
    private final Runnable rnrTask = this::onRnrTimer;
    /** This QP's share of the device's counter of the same name, for {@link RcQueuePair#info()}. */
    private long timeouts;

    RcCompleter(RcQueuePair qp, SendQueue sq, RnrBackoff rnrBackoff) {
        this.qp = qp;
        this.sq = sq;
        this.rnrBackoff = rnrBackoff;
        this.retryTimer = new LazyTimer(qp.port, this::onRetryTimer);
        this.reprobeTimer = new LazyTimer(qp.port, this::onReprobeTimer);
    }

    void start(RcAttributes a) {
        compPsn = a.sqPsn() & Psn.MASK;
        retryLeft = a.retryCount();
        rnrLeft = a.rnrRetry();
        timeoutNanos = a.ackTimeoutNanos();
    }

    Mode mode() {
        return mode;
    }

    int compPsn() {
        return compPsn;
    }

    long timeouts() {
        return timeouts;
    }

    /** Whether the mode lets the requester transmit the packet of PSN {@code psn} (the window aside). */
    boolean admits(int psn) {
        return switch (mode) {
            case STREAMING -> true;
            case RNR_WAIT -> false;
            case PROBING -> psn == compPsn;
        };
    }

    // ------------------------------------------------------------------ the requester's calls

    /** The requester sent packets; {@code wasIdle}: none was outstanding before them. */
    void transmitted(boolean wasIdle) {
        if (wasIdle) {
            retryTimer.postpone(timeoutNanos);        // the timer measures from the first outstanding packet
        }
        if (timeoutNanos != 0) {                      // §4.9: timeout 0 disables the timer
            retryTimer.startIfIdle(timeoutNanos);
        }
    }

    /** The requester sent a probe of PSN {@code psn} (PROBING). */
    void probeSent(int psn) {
        probePsn = psn;
    }

    // ------------------------------------------------------------------ events: answers

    void onResponse(Opcode op, ByteBuffer pkt, int hl, int plen) {
        int psn = Bth.psn(pkt, 0);
        if (!qp.requester.hasSent(psn)) {
            qp.counters.malformedDrops.increment();   // answers a PSN we never sent: hostile or stale peer
            return;
        }
        if (op.isAck()) {
            int syn = Aeth.syndrome(pkt, op.aethOffset());
            switch (syn >> 5 & 3) {                  // syndrome bits 6:5 (§3.2)
                case 0 -> onAck(psn);
                case 1 -> onRnrNak(psn, Aeth.code(syn));
                case 3 -> onNak(psn, Aeth.code(syn));
                default -> qp.counters.malformedDrops.increment();
            }
            return;
        }
        onReadResponse(op, pkt, hl, plen, psn);
    }

    private void onAck(int psn) {
        switch (mode) {
            case STREAMING, RNR_WAIT -> {
                applyAck(psn);
                qp.requester.pump();
            }
            case PROBING -> onAckWhileProbing(psn);
        }
    }

    /**
     * An ACK after a probe. The probe taken as new (ACK of exactly its PSN) or an ACK that moves nothing (the
     * responder's answer to a duplicate, ePSN - 1: it expects {@code compPsn}) means packets were really lost:
     * go-back-N from {@code compPsn}. An ACK that moves {@code compPsn} but not to the probe is a late one: probe
     * again at the new {@code compPsn} rather than resend what may have arrived.
     */
    private void onAckWhileProbing(int psn) {
        int before = compPsn;
        applyAck(psn);
        boolean moved = compPsn != before;
        if (sq.isEmpty() || !qp.requester.hasSent(compPsn) || !moved || psn == probePsn) {
            mode = Mode.STREAMING;
            qp.requester.pump();
            return;
        }
        // late ACKs come in a burst after a stall and the probe's own answer follows them: wait a little
        // (each further ACK pushes the deadline) before probing at the new compPsn
        reprobeTimer.restart(Math.max(100_000L, Math.min(timeoutNanos / 16, 2_000_000L)));
    }

    private void onRnrNak(int psn, int timerCode) {
        qp.counters.rnrNaksReceived.increment();
        if (sq.isEmpty() || Psn.compare(psn, compPsn) < 0 || mode == Mode.RNR_WAIT) {
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
        mode = Mode.RNR_WAIT;
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
        if (sq.isEmpty() || Psn.compare(psn, compPsn) < 0) {
            return;                                   // stale
        }
        applyAck(Psn.add(psn, -1));
        if (code == Aeth.PSN_SEQUENCE_ERROR) {        // go-back-N (§4.8)
            if (mode != Mode.RNR_WAIT) {
                retry(Mode.STREAMING);
            }
            return;
        }
        failHead(switch (code) {
            case Aeth.INVALID_REQUEST -> WcStatus.REMOTE_INVALID_REQUEST;
            case Aeth.REMOTE_ACCESS_ERROR -> WcStatus.REMOTE_ACCESS_ERROR;
            case Aeth.REMOTE_OPERATIONAL_ERROR -> WcStatus.REMOTE_OPERATIONAL_ERROR;
            default -> WcStatus.GENERAL_ERROR;
        });
    }

    private void onReadResponse(Opcode op, ByteBuffer pkt, int hl, int plen, int psn) {
        if (mode == Mode.PROBING) {
            mode = Mode.STREAMING;                    // READ data: go-back-N from what it acknowledges
        }
        // a read response implicitly acknowledges every earlier SEND/WRITE (§4.8)
        while (!sq.isEmpty()) {
            Wqe w = sq.oldest();
            if (w.op.isRead() || Psn.compare(w.lastPsn, psn) >= 0) {
                break;
            }
            sq.retire();
            compPsn = Psn.add(w.lastPsn, 1);
            complete(w, WcStatus.SUCCESS);
            afterProgress();
        }
        if (sq.isEmpty()) {
            return;
        }
        Wqe w = sq.oldest();
        int expected = Psn.add(w.firstPsn, w.readRcvd);
        if (!w.op.isRead() || psn != expected) {
            qp.counters.outOfSequence.increment();    // gap or stale: dropped (§4.8)
            if (w.op.isRead() && Psn.compare(psn, expected) > 0 && Psn.compare(psn, w.lastPsn) <= 0
                    && !readGapRetried && mode != Mode.RNR_WAIT) {
                // §4.8: a response past the expected one means responses were lost: re-request the rest of
                // the READ now instead of waiting for the ACK timer (rxe's choice, which costs a whole timeout per
                // lost response: about 2 s with the ACK timeout rdma_cm derives over RoCE)
                readGapRetried = true;
                retry(Mode.STREAMING);
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
            sq.retire();
            readGapRetried = false;
            qp.requester.readCompleted();
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
        qp.requester.pump();
    }

    // ------------------------------------------------------------------ events: timers

    /** The ACK timeout (§4.9; rxe_comp.c retransmit_timer): probe, or fail when no retry is left. */
    private void onRetryTimer() {
        synchronized (qp) {
            retryTimer.fired();
            if (qp.state != QpState.RTS || sq.isEmpty() || mode == Mode.RNR_WAIT
                    || qp.requester.caughtUp(compPsn) || retryTimer.early()) {
                return;
            }
            qp.counters.timeouts.increment();
            timeouts++;
            readGapRetried = false;
            retry(Mode.PROBING);
        }
    }

    private void onRnrTimer() {
        synchronized (qp) {
            mode = Mode.STREAMING;
            qp.counters.rnrWaitNanos.add(System.nanoTime() - rnrWaitSince);
            if (qp.state == QpState.RTS) {
                // IBA 9.7.5.2.8: resume at the NAKed PSN; probe with that one packet first, so that a receiver
                // still without a receive WQE NAKs one packet again instead of dropping a window behind it
                goBack(Mode.PROBING);
            }
        }
    }

    private void onReprobeTimer() {
        synchronized (qp) {
            reprobeTimer.fired();
            if (mode != Mode.PROBING || qp.state != QpState.RTS || reprobeTimer.early()) {
                return;
            }
            qp.requester.pump();                      // one packet at compPsn, AckReq set
        }
    }

    // ------------------------------------------------------------------ retries and progress

    /**
     * Go-back-N from {@code compPsn} in mode {@code next}, consuming a retry; RETRY_EXCEEDED when none is left
     * (§4.8, §4.9). retry_cnt counts consecutive retries without progress, 7 included: IBA 9.7.6.1.3 makes only
     * the RNR retry count 7 unlimited (IB-WIRE-REFERENCE §4.9), and hardware RNICs read the transport count so.
     * Linux rxe alone skips the decrement at 7 (rxe_comp.c, COMPST_ERROR_RETRY); following it would let a dead
     * peer hang a QP forever.
     */
    private void retry(Mode next) {
        if (retryLeft == 0) {
            failHead(WcStatus.RETRY_EXCEEDED);
            return;
        }
        retryLeft--;
        goBack(next);
    }

    /** The requester resumes at {@code compPsn} (rxe_req.c req_retry), in mode {@code next}. */
    private void goBack(Mode next) {
        mode = next;
        retryTimer.postpone(timeoutNanos);
        qp.requester.rewind(compPsn);
        qp.requester.pump();
    }

    /** Cumulative ACK of every PSN up to and including {@code psn}. */
    private void applyAck(int psn) {
        boolean progressed = false;
        while (!sq.isEmpty()) {
            Wqe w = sq.oldest();
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
                sq.retire();
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

    /** compPsn moved: the retry counts start again (§4.9) and the requester's cursor follows. */
    private void afterProgress() {
        retryLeft = qp.attrs.retryCount();
        rnrLeft = qp.attrs.rnrRetry();
        rnrStreak = 0;
        retryTimer.postpone(timeoutNanos);
        qp.requester.acknowledged(compPsn);
        if (sq.isEmpty()) {
            ackBeyondRead = false;
        }
    }

    // ------------------------------------------------------------------ completions

    private void complete(Wqe w, WcStatus status) {
        if (w.signaled || status != WcStatus.SUCCESS) {
            qp.sendCq.push(w.wrId, status, SendQueue.wcOpcode(w.op), w.len, Value.NONE, 0, qp.qpn, false);
        }
        w.mr = null;
    }

    /** Completes the oldest WQE in error, then the QP goes to ERROR (the rest is flushed). */
    private void failHead(WcStatus status) {
        if (!sq.isEmpty()) {
            complete(sq.retire(), status);
        }
        qp.enterError("send completion " + status);
    }

    /** The QP went to ERROR: every WQE left completes with WR_FLUSH_ERROR. */
    void flush() {
        while (!sq.isEmpty()) {
            complete(sq.retire(), WcStatus.WR_FLUSH_ERROR);
        }
    }
}

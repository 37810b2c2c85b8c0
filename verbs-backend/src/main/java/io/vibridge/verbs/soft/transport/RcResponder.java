package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.ReadResponder;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.soft.port.TxBatch;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue.Value;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Ieth;
import io.vibridge.verbs.soft.wire.ImmDt;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.Psn;
import io.vibridge.verbs.soft.wire.Reth;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Responder of one RC QP (IB-WIRE-REFERENCE §4.3-§4.7): PSN check against ePSN (one sequence NAK per
 * gap), duplicates (ACK ePSN-1, READs re-executed from the responder-resource ring), opcode sequence,
 * receive WQE / RNR NAK, rkey + bounds + access + PD checks, execution, ACK when AckReq is set.
 * All methods run under the QP's monitor but {@link #postRecv}.
 *
 * <p>SEND with Invalidate (0x16 Last, 0x17 Only; REF §3.4) is a SEND here in every respect: it consumes a
 * receive, takes the same sequence, length and RNR rules, a duplicate is ACKed and not delivered again, and its
 * completion reports the IETH's R_Key ({@code hasInvalidate}, {@code invalidatedRkey}). Nothing is invalidated. A
 * remote invalidate applies to a memory window or a region registered by fast registration (the base memory
 * management extensions: Linux ib_verbs.h IB_DEVICE_MEM_MGT_EXTENSIONS, "fast registrations (IB_WR_REG_MR,
 * IB_WR_LOCAL_INV and IB_WR_SEND_WITH_INV verbs)"), and this engine has neither: every region is an ordinary
 * registration, so no key of ours could be invalidated. Linux rxe tries (rxe_resp.c execute() -> invalidate_rkey()
 * -> rxe_invalidate_mw() or rxe_invalidate_mr()); rxe_invalidate_mr() refuses a key that names no region or, in
 * recent trees (not yet in 5.1x), a region whose type is not IB_MR_TYPE_MEM_REG, and rxe_resp.c takes that
 * refusal as its class J error: the receive completes with IB_WC_REM_INV_REQ_ERR and the QP moves to ERROR. This
 * engine does not fail there, on purpose: the gateway receives SEND with Invalidate carrying a key of its client's,
 * passed through, and that must not break the gateway's queue pair. What the key means is the consumer's to decide.
 */
final class RcResponder {
    /** Responder state between packets: which multi-packet message is in progress (§4.3 step 2). */
    enum InMessage { NONE, IN_SEND, IN_WRITE }

    /** A responder resource: a READ we answered, kept to replay duplicates (§4.6). */
    static final class ReadEntry {
        boolean valid;
        int firstPsn;
        int lastPsn;
        long va;
        int rkey;
        int len;
        /** The handler's answer still outstanding for this READ, else null. */
        DeferredRead pending;
    }

    private final RcQueuePair qp;
    private final ReceiveQueue rq;
    private final ReceiveQueue.Flushed flushedReceive;
    private int ePsn;
    private int msn;
    private boolean nakSent;
    private InMessage inMsg = InMessage.NONE;
    private boolean recvClaimed;
    private int recvOff;
    private SoftMemoryRegion wMr;
    private QueuePairAccessHandler wQp;
    private int wRkey;
    private long wVa;
    private int wRemaining;
    private int wTotal;
    private ReadEntry[] reads = new ReadEntry[0];
    /** READs answered later (a handler's), oldest first; responses and ACKs after them wait (see {@link #sendAck}). */
    private final ArrayDeque<DeferredRead> answering = new ArrayDeque<>();
    private boolean heldAck;
    private int heldSyndrome;
    private int heldPsn;
    /** Polling mode: a plain ACK waiting for the consumer's next idle poll ({@code PacketPort.acksMayWait}). */
    private boolean ackWaiting;
    private int waitingPsn;
    private int waitingMsn;
    private int readNext;
    private int epoch;

    RcResponder(RcQueuePair qp, int maxRecv) {
        this.qp = qp;
        this.rq = new ReceiveQueue(qp.qpn, maxRecv);
        this.flushedReceive = id -> qp.recvCq.push(id, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, Value.NONE, 0, qp.qpn,
                false);
    }

    void start(RcAttributes a) {
        ePsn = a.rqPsn() & Psn.MASK;
        msn = 0;
        reads = new ReadEntry[a.maxDestRdAtomic()];
        for (int i = 0; i < reads.length; i++) {
            reads[i] = new ReadEntry();
        }
    }

    /** The PSN expected next (rxe's {@code resp.psn}, what {@code rq_psn} reports). */
    int expectedPsn() {
        return ePsn;
    }

    /** Any thread, without the QP's monitor (see {@link ReceiveQueue}). */
    void postRecv(ReceiveWorkRequest wr) {
        if (!rq.post(wr, qp.pd)) {                        // the QP is in the error state: flushed at once
            qp.recvCq.push(wr.wrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, Value.NONE, 0, qp.qpn, false);
        }
    }

    void flush() {
        rq.flush(flushedReceive);
        recvClaimed = false;
        inMsg = InMessage.NONE;
        epoch++;
        answering.clear();
        heldAck = false;
        ackWaiting = false;
    }

    void unsupported(ByteBuffer pkt) {
        int psn = Bth.psn(pkt, 0);
        if (Psn.compare(psn, ePsn) == 0) {
            nakError(Aeth.INVALID_REQUEST, psn);
        }
    }

    void onRequest(Opcode op, ByteBuffer pkt, int hl, int plen) {
        int psn = Bth.psn(pkt, 0);
        int d = Psn.compare(psn, ePsn);
        if (d > 0) {                                        // §4.3: packets lost; one NAK per gap
            qp.counters.outOfSequence.increment();
            if (!nakSent) {
                nakSent = true;
                sendAck(Aeth.nak(Aeth.PSN_SEQUENCE_ERROR), ePsn);
                qp.counters.naksSent[0].increment();
            }
            return;
        }
        if (d < 0) {
            qp.counters.duplicates.increment();
            duplicate(op, pkt, psn);
            return;
        }
        boolean ok = switch (inMsg) {
            case IN_SEND -> op.isSend() && !op.isStart();
            case IN_WRITE -> op.isRdmaWrite() && !op.isStart();
            case NONE -> op.isStart() && op.isRequest();
        };
        if (!ok) {
            nakError(Aeth.INVALID_REQUEST, psn);     // §4.3 step 2: opcode sequence
            return;
        }
        if (op.isSend()) {
            send(op, pkt, hl, plen, psn);
        } else if (op.isRdmaWrite()) {
            write(op, pkt, hl, plen, psn);
        } else {
            read(op, pkt, psn);
        }
    }

    private void send(Opcode op, ByteBuffer pkt, int hl, int plen, int psn) {
        if (!recvClaimed) {
            if (rq.isEmpty()) {
                rnr(psn);
                return;
            }
            recvClaimed = true;
            recvOff = 0;
        }
        boolean last = op.isEnd();
        if (!last && plen != qp.mtu) {
            nakError(Aeth.INVALID_REQUEST, psn);
            return;
        }
        ReceiveQueue.Rwqe r = rq.peek();
        if (plen > r.len - recvOff) {                      // §4.3 step 5: receive buffer too small
            long id = r.wrId;
            rq.remove(r);
            recvClaimed = false;
            qp.recvCq.push(id, WcStatus.LOCAL_LENGTH_ERROR, WcOpcode.RECV, recvOff, Value.NONE, 0, qp.qpn, false);
            nakError(Aeth.INVALID_REQUEST, psn);
            return;
        }
        if (plen > 0) {
            r.mr.buffer().put(r.off + recvOff, pkt, hl, plen);
        }
        recvOff += plen;
        nakSent = false;
        ePsn = Psn.next(ePsn);
        if (last) {
            long id = r.wrId;
            rq.remove(r);
            recvClaimed = false;
            inMsg = InMessage.NONE;
            msn = Psn.next(msn);
            receiveQueued();
            // SEND with Invalidate: the key is reported, nothing is invalidated (class comment)
            Value kind = op.hasImmDt() ? Value.IMMEDIATE : op.hasIeth() ? Value.INVALIDATED_RKEY : Value.NONE;
            int value = op.hasImmDt() ? ImmDt.value(pkt, op.immDtOffset())
                    : op.hasIeth() ? Ieth.rkey(pkt, op.iethOffset()) : 0;
            qp.recvCq.push(id, WcStatus.SUCCESS, WcOpcode.RECV, recvOff, kind, value, qp.qpn,
                    Bth.solicitedEvent(pkt, 0));
        } else {
            inMsg = InMessage.IN_SEND;
        }
        if (Bth.ackRequest(pkt, 0)) {
            sendAck(Aeth.SYNDROME_ACK_NO_CREDIT, psn);
        }
    }

    private void write(Opcode op, ByteBuffer pkt, int hl, int plen, int psn) {
        boolean imm = op.hasImmDt();
        if (imm && rq.isEmpty()) {                          // WRITE with immediate consumes a receive
            rnr(psn);
            return;
        }
        boolean first = op.isStart();
        boolean last = op.isEnd();
        SoftMemoryRegion mr = wMr;
        QueuePairAccessHandler q = wQp;
        int rkey = wRkey;
        long va = wVa;
        int remaining = wRemaining;
        if (first) {
            int reth = op.rethOffset();
            va = Reth.virtualAddress(pkt, reth);
            rkey = Reth.rkey(pkt, reth);
            int dmaLen = (int) Reth.dmaLength(pkt, reth);
            mr = null;
            q = qp.accessHandler;                           // a QP handler takes every WRITE, whatever the rkey
            if (dmaLen != 0 && q == null) {             // IBA C9-88 (rxe check_rkey): a zero-length RDMA operation needs no R_Key
                mr = target(rkey, va, dmaLen & 0xFFFFFFFFL, true);
                if (mr == null) {
                    nakError(Aeth.REMOTE_ACCESS_ERROR, psn);
                    return;
                }
            }
            remaining = dmaLen;
            wTotal = dmaLen;
        }
        // §2.3 length rules
        if (last ? plen != remaining : plen != qp.mtu || remaining <= qp.mtu) {
            nakError(Aeth.INVALID_REQUEST, psn);
            return;
        }
        int immediate = imm ? ImmDt.value(pkt, op.immDtOffset()) : 0;
        if (q != null) {
            // the handler reads the payload from the received packet itself, positioned on it (valid during
            // the call only): no view per packet, whichever buffer of a received group the packet is in
            int limit = pkt.limit();
            boolean taken;
            try {
                pkt.limit(hl + plen).position(hl);
                taken = q.onWrite(va, rkey, pkt, first, last, imm, immediate);
            } finally {
                pkt.limit(limit).position(0);
            }
            if (!taken) {
                nakSent = true;                             // backpressure: drop unacknowledged, no NAK storm
                return;
            }
        } else if (plen > 0) {
            mr.buffer().put((int) (va - mr.address()), pkt, hl, plen);
        }
        wMr = mr;
        wQp = q;
        wRkey = rkey;
        wVa = va + plen;
        wRemaining = remaining - plen;
        nakSent = false;
        ePsn = Psn.next(ePsn);
        if (last) {
            inMsg = InMessage.NONE;
            wMr = null;
            wQp = null;
            msn = Psn.next(msn);
            if (imm) {
                ReceiveQueue.Rwqe r = rq.peek();
                long id = r.wrId;
                rq.remove(r);
                receiveQueued();
                qp.recvCq.push(id, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, wTotal, Value.IMMEDIATE, immediate,
                        qp.qpn, Bth.solicitedEvent(pkt, 0));
            }
        } else {
            inMsg = InMessage.IN_WRITE;
        }
        if (Bth.ackRequest(pkt, 0)) {
            sendAck(Aeth.SYNDROME_ACK_NO_CREDIT, psn);
        }
    }

    private void read(Opcode op, ByteBuffer pkt, int psn) {
        int reth = op.rethOffset();
        long va = Reth.virtualAddress(pkt, reth);
        int rkey = Reth.rkey(pkt, reth);
        int len = (int) Reth.dmaLength(pkt, reth);
        if (reads.length == 0 || len < 0) {                // §4.3 step 4: no responder resources; >= 2 GiB
            nakError(Aeth.INVALID_REQUEST, psn);
            return;
        }
        QueuePairAccessHandler q = qp.accessHandler;
        if (answering.size() >= reads.length) {
            // more READs awaiting a handler's answer than the responder resources we granted: a requester that
            // honours its initiator depth never gets here, and holding them all would let a hostile one grow
            // our memory without bound
            nakError(Aeth.INVALID_REQUEST, psn);
            return;
        }
        SoftMemoryRegion target = len == 0 || q != null ? null : target(rkey, va, len & 0xFFFFFFFFL, false); // IBA C9-88
        if (len != 0 && target == null && q == null) {
            nakError(Aeth.REMOTE_ACCESS_ERROR, psn);
            return;
        }
        int npkts = npkts(len);
        ReadEntry e = reads[readNext++ % reads.length];
        e.valid = true;
        e.firstPsn = psn;
        e.lastPsn = Psn.add(psn, npkts - 1);
        e.va = va;
        e.rkey = rkey;
        e.len = len;
        e.pending = null;
        msn = Psn.next(msn);
        nakSent = false;
        ePsn = Psn.add(psn, npkts);
        if (q != null && len != 0) {
            e.pending = defer(psn, len, false);
            q.onRead(va, rkey, len, e.pending);
        } else {
            execute(target, psn, va, len, false);
        }
    }

    /**
     * §4.3 step 5: the region {@code rkey} names if it belongs to this QP's PD, grants the remote
     * {@code write} or read right and holds [va, va+len); null otherwise (NAK remote access).
     */
    private SoftMemoryRegion target(int rkey, long va, long len, boolean write) {
        SoftMemoryRegion t = qp.keys.lookup(rkey);
        return t != null && t.pd() == qp.pd && (write ? t.remoteWrite() : t.remoteRead()) && t.contains(va, len)
                ? t : null;
    }

    private int npkts(int len) {
        return len == 0 ? 1 : (int) (((len & 0xFFFFFFFFL) + qp.mtu - 1) / qp.mtu);
    }

    /**
     * Answers a READ from {@code target} (null for a zero-length READ), behind any READ still being answered.
     * {@code replay}: a duplicate asking for the tail of a READ (its PSN is past the READ's first).
     */
    private void execute(SoftMemoryRegion target, int psn, long va, int len, boolean replay) {
        if (target == null) {
            respondInOrder(psn, null, 0, 0, replay);
        } else {
            respondInOrder(psn, target.buffer(), (int) (va - target.address()), len, replay);
        }
    }

    private void respondInOrder(int psn, ByteBuffer src, int srcOff, int len, boolean replay) {
        if (answering.isEmpty()) {
            sendReadResponses(psn, src, srcOff, len, replay);
        } else {
            defer(psn, len, replay).answered(src, srcOff);
        }
    }

    /** A READ answered later: its responses, and every response and ACK after it, wait for the answer. */
    private DeferredRead defer(int psn, int len, boolean replay) {
        DeferredRead d = new DeferredRead(psn, len, epoch, replay);
        answering.addLast(d);
        return d;
    }

    /** Sends the answered READs at the head of {@link #answering}, then the ACK they held back. */
    private void sendAnswered() {
        DeferredRead d;
        while ((d = answering.peekFirst()) != null && d.data != null) {
            answering.pollFirst();
            d.sent = true;
            sendReadResponses(d.psn, d.data, 0, d.len, d.replay);
            d.data = null;
        }
        if (answering.isEmpty() && heldAck) {
            heldAck = false;
            transmitAck(heldSyndrome, heldPsn);
        }
    }

    /**
     * §4.7: read response stream starting at {@code psn}. A replay (rxe duplicate_request: the duplicate's PSN
     * is past the READ's first) resumes with Middle or Last, never First/Only: rxe's completer, in the middle of
     * a READ, accepts a First only at the READ's first PSN and errors the QP otherwise (rxe_comp.c check_ack).
     */
    private void sendReadResponses(int psn, ByteBuffer src, int srcOff, int len, boolean replay) {
        int mtu = qp.mtu;
        int n = npkts(len);
        TxBatch out = qp.openBatch();
        try {
            for (int k = 0; k < n; k++) {
                int off = k * mtu;
                int plen = Math.min(mtu, len - off);
                boolean opens = k == 0 && !replay;
                Opcode op = k == n - 1 ? (opens ? Opcode.RDMA_READ_RESPONSE_ONLY : Opcode.RDMA_READ_RESPONSE_LAST)
                        : opens ? Opcode.RDMA_READ_RESPONSE_FIRST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
                PacketWriter pw = qp.begin(out, op, false, false, Psn.add(psn, k), plen);
                if (op.hasAeth()) {
                    pw.aeth(Aeth.SYNDROME_ACK_NO_CREDIT, msn);
                }
                if (plen > 0) {
                    pw.payload(src, srcOff + off);
                }
                pw.finish();
            }
        } finally {
            qp.closeBatch(out);
        }
    }

    private void duplicate(Opcode op, ByteBuffer pkt, int psn) {
        if (op.isReadRequest()) {                           // §4.6: re-execute from the saved resource
            int reth = op.rethOffset();
            long va = Reth.virtualAddress(pkt, reth);
            int rkey = Reth.rkey(pkt, reth);
            long len = Reth.dmaLength(pkt, reth);
            for (ReadEntry e : reads) {
                if (e.valid && Psn.compare(psn, e.firstPsn) >= 0 && Psn.compare(psn, e.lastPsn) <= 0
                        && e.rkey == rkey && va >= e.va && va + len <= e.va + e.len) {
                    if (e.pending != null && !e.pending.sent) {
                        // still being answered (a handler's READ): that answer, from the READ's first PSN,
                        // serves the duplicate too; handing it over again would read the client twice
                        return;
                    }
                    QueuePairAccessHandler q = qp.accessHandler;
                    SoftMemoryRegion target = len == 0 || q != null ? null : target(rkey, va, len, false);
                    boolean replay = psn != e.firstPsn;
                    if (q != null && len != 0) {
                        e.pending = defer(psn, (int) len, replay);   // re-executed: read again (§4.6)
                        q.onRead(va, rkey, (int) len, e.pending);
                    } else if (len != 0 && target == null) {
                        nakError(Aeth.REMOTE_ACCESS_ERROR, psn);
                    } else {
                        execute(target, psn, va, (int) len, replay);
                    }
                    return;
                }
            }
            return;                                         // unknown duplicate READ: dropped silently
        }
        sendAck(Aeth.SYNDROME_ACK_NO_CREDIT, Psn.add(ePsn, -1));
    }

    private void receiveQueued() {
        QueuePairAccessHandler q = qp.accessHandler;
        if (q != null) {
            q.onReceiveQueued();
        }
    }

    private void rnr(int psn) {
        qp.counters.rnrNaksSent.increment();
        sendAck(Aeth.rnrNak(qp.attrs.minRnrTimer() & 0x1F), psn);
        nakSent = true;                                     // the packets behind it are resent after the wait
    }

    /** An error NAK goes out at once: the QP enters the error state, the READs before it are never answered. */
    /** A class B/C/D responder error (IBA 9.9.3.1.3, Linux rxe_resp.c do_class_ac_error): NAK, ERROR, async event. */
    private void nakError(int code, int psn) {
        qp.counters.naksSent[code].increment();
        transmitAck(Aeth.nak(code), psn);
        qp.enterError("responder NAK " + code);
        qp.raise(switch (code) {
            case Aeth.REMOTE_ACCESS_ERROR -> AsyncEvent.QpErrorCause.ACCESS_VIOLATION;
            case Aeth.INVALID_REQUEST -> AsyncEvent.QpErrorCause.INVALID_REQUEST;
            default -> AsyncEvent.QpErrorCause.FATAL;
        });
    }

    /**
     * An ACK, RNR NAK or sequence NAK acknowledges every request before its PSN, so it waits behind READs still
     * being answered (an RC responder answers in request order, §4.4/§4.7; rxe's completer reads an ACK past a pending READ
     * as lost READ responses and retries, rxe_comp.c check_psn). ACKs are cumulative: the latest one is kept.
     */
    private void sendAck(int syndrome, int psn) {
        if (!answering.isEmpty()) {
            heldAck = true;
            heldSyndrome = syndrome;
            heldPsn = psn;
            return;
        }
        if (syndrome == Aeth.SYNDROME_ACK_NO_CREDIT && qp.port.acksMayWait()) {
            if (!ackWaiting) {
                ackWaiting = true;
                qp.port.ackWaits(qp);
            }
            waitingPsn = psn;                               // cumulative: the latest one
            waitingMsn = msn;
            return;
        }
        transmitAck(syndrome, psn);
    }

    /** Sends the ACK that waited for the consumer's next idle poll, unless a later one went out meanwhile. */
    void sendWaitingAck() {
        if (ackWaiting) {
            ackWaiting = false;
            transmit(Aeth.SYNDROME_ACK_NO_CREDIT, waitingPsn, waitingMsn);
        }
    }

    private void transmitAck(int syndrome, int psn) {
        ackWaiting = false;                                 // this one acknowledges at least as much
        transmit(syndrome, psn, msn);
    }

    private void transmit(int syndrome, int psn, int ackMsn) {
        TxBatch out = qp.openBatch();
        try {
            qp.begin(out, Opcode.ACKNOWLEDGE, false, false, psn, 0).aeth(syndrome, ackMsn).finish();
        } finally {
            qp.closeBatch(out);
        }
    }

    /** Completes a handler-answered READ later, from any thread; its responses leave in request order. */
    private final class DeferredRead implements ReadResponder {
        private final int psn;
        private final int len;
        private final int epochAtStart;
        private final boolean replay;
        private boolean done;
        /** Its responses went out. */
        boolean sent;
        /** The answer, copied, while READs before it are still answered (under the QP's lock). */
        ByteBuffer data;

        DeferredRead(int psn, int len, int epoch, boolean replay) {
            this.psn = psn;
            this.len = len;
            this.epochAtStart = epoch;
            this.replay = replay;
        }

        /** Under the QP's lock: the answer is {@code len} bytes of {@code src} from {@code off} (null if 0). */
        void answered(ByteBuffer src, int off) {
            done = true;
            data = ByteBuffer.allocate(len);
            if (len > 0) {
                data.put(0, src, off, len);
            }
            sendAnswered();
        }

        @Override
        public void complete(ByteBuffer data) {
            synchronized (qp) {
                if (done) {
                    throw new IllegalStateException("READ already answered");
                }
                done = true;
                if (epochAtStart != epoch || qp.state == QpState.ERROR) {
                    return;
                }
                if (data.remaining() != len) {
                    nakError(Aeth.REMOTE_OPERATIONAL_ERROR, psn);
                    return;
                }
                if (answering.peekFirst() == this) {              // the usual case: nothing to copy
                    answering.pollFirst();
                    sent = true;
                    sendReadResponses(psn, data, data.position(), len, replay);
                    sendAnswered();
                } else {
                    answered(data, data.position());
                }
            }
        }

        @Override
        public void fail() {
            synchronized (qp) {
                if (done) {
                    throw new IllegalStateException("READ already answered");
                }
                done = true;
                if (epochAtStart == epoch && qp.state != QpState.ERROR) {
                    nakError(Aeth.REMOTE_ACCESS_ERROR, psn);
                }
            }
        }
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.engine.Unwritten.Produced;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The connected data path out (VITCP-PROFILE §3, §4, §6, §9): cuts posted work into segments, answers
 * RDMA Reads from the {@link ReadResponderWindow}, sends NOPs for credits, acknowledgements and this
 * side's error report, and tracks work until it completes (written, acknowledged or answered). The
 * {@link UnorderedGate} picks each message's wire type (seed 002: ordered or unordered).
 */
final class OutboundSegmenter {

    private static final int HDR = SegmentHeader.LENGTH;
    private static final int RDMA_HDR = HDR + RdmaHeader.LENGTH;
    /** {@link #produce} result: the owner's read source was not ready. */
    private static final int BLOCKED = -2;

    private final ConnectionPeer peer;
    private final ConnectionErrors errors;
    private final Credits credits;
    private final AckTracker acks;
    private final Unwritten unwritten;
    private final ReadResponderWindow responder;
    private final UnorderedGate unorderedGate;
    private final boolean rr;
    private final int segmentPayload;
    private final int peerReadWindow;

    private final ArrayDeque<OutboundWork> sendQueue = new ArrayDeque<>(4);
    private OutboundWork current;
    // the wire type all segments of the current work carry (seed 002: ordered or unordered)
    private SegmentType currentType;
    private long currentOffset;
    // sent at Reliable Reception, waiting for a Message ACK (VITCP-PROFILE §6)
    private final ArrayDeque<OutboundWork> unacked = new ArrayDeque<>(4);
    // RDMA Reads sent, waiting for their responses, in order
    private final ArrayDeque<OutboundWork> pendingReads = new ArrayDeque<>(2);
    private int nextMessage;
    // alternate responses and own work when both are ready
    private boolean preferResponse;
    private int payloadIndex;

    // this side's error report (Reliable Reception): carried by the next segment, then Error and close
    private boolean reportPending;
    private int reportMsg;
    private int reportType;
    private int reportIs;

    OutboundSegmenter(ConnectionPeer peer, ConnectionErrors errors, Credits credits, AckTracker acks, Unwritten unwritten,
            ReadResponderWindow responder, Negotiated negotiated, int segmentPayload) {
        this.peer = peer;
        this.errors = errors;
        this.credits = credits;
        this.acks = acks;
        this.unwritten = unwritten;
        this.responder = responder;
        this.rr = negotiated.reliability() == ReliabilityLevel.RELIABLE_RECEPTION;
        this.segmentPayload = segmentPayload;
        this.peerReadWindow = negotiated.peerReadWindow();
        this.nextMessage = negotiated.localImn();
        this.unorderedGate = new UnorderedGate(negotiated.peerUnderstandsUnordered(), rr);
    }

    void post(OutboundWork work) {
        sendQueue.addLast(work);
    }

    /** Works not yet completed (queued, in progress, awaiting ACK or Read Response). */
    int outstanding() {
        return sendQueue.size() + (current != null ? 1 : 0) + unacked.size() + pendingReads.size();
    }

    /** Reliable Reception: report {@code isCode} for message {@code msg} on the next segment. */
    void report(int msg, int viErrorType, int isCode) {
        reportPending = true;
        reportMsg = msg;
        reportType = viErrorType;
        reportIs = isCode;
    }

    /** The report went to TCP: now Error and close (VITCP-PROFILE §6). */
    private void reportWritten() {
        reportPending = false;
        errors.breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, reportType, reportIs);
    }

    boolean hasOutput() {
        return reportPending || responder.ready() || current != null || nextWorkReady() || nopNeeded();
    }

    private boolean nopNeeded() {
        return rr && acks.unsent() || credits.announcementDue();
    }

    private boolean nextWorkReady() {
        OutboundWork w = sendQueue.peekFirst();
        if (w == null) {
            return false;
        }
        if (w.queueFence() && !pendingReads.isEmpty()) {
            return false; // VIA 6.3.1.2
        }
        if (w.operation() == OutboundWork.OP_RDMA_READ) {
            return pendingReads.size() < peerReadWindow; // VITCP-PROFILE §5: never exceed the peer's window
        }
        return !usesCredit(w) || credits.mayUseCredit(); // VITCP-PROFILE §6
    }

    private static boolean usesCredit(OutboundWork w) {
        return w.operation() == OutboundWork.OP_SEND || w.operation() == OutboundWork.OP_RDMA_WRITE && w.hasImmediate();
    }

    /** The connected part of {@link ViConnection#produce}: -1 when nothing is due. */
    int produce(ByteBuffer header, ByteBuffer[] payload, int index) {
        payloadIndex = index;
        if (reportPending && current == null) {
            return nop(header, true);
        }
        boolean workReady = current != null || nextWorkReady();
        if (responder.ready() && (preferResponse || !workReady) && !reportPending) {
            int n = responseSegment(header, payload);
            if (n != BLOCKED) {
                preferResponse = false;
                return n;
            }
            header.clear();
        }
        preferResponse = true;
        if (workReady) {
            if (current == null) {
                startWork();
            }
            if (current.operation() == OutboundWork.OP_RDMA_READ) {
                return readRequest(header);
            }
            return dataSegment(header, payload);
        }
        if (nopNeeded()) {
            return nop(header, false);
        }
        return -1;
    }

    private void startWork() {
        current = sendQueue.pollFirst();
        currentOffset = 0;
        int msg = nextMessage++;
        current.messageNumber(msg);
        currentType = unorderedGate.start(current, msg); // seed 002; one sequence of message numbers for all types
        if (usesCredit(current)) {
            credits.use(); // VITCP-PROFILE §9.4: Sends and RDMA Writes with immediate data use a credit
        }
    }

    private int ackField() {
        if (!rr) {
            return 0; // VITCP-PROFILE §6: 0 at other levels
        }
        return acks.send(reportPending ? reportMsg : acks.completed());
    }

    private int nop(ByteBuffer header, boolean report) {
        // VITCP-PROFILE §9.2: Message Number = last assigned; §9.1: End of Message set
        int ack = ackField();
        SegmentHeader.write(header, 0, SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, HDR, 0, 0,
                nextMessage - 1, ack, credits.rxPosted(), report ? reportType : 0, report ? reportIs : 0);
        credits.announced();
        header.limit(HDR);
        unwritten.add(Produced.NOP, true, null, false, report, 0);
        return 0;
    }

    private int readRequest(ByteBuffer header) {
        OutboundWork w = current;
        SegmentHeader.write(header, 0, currentType, SegmentHeader.FLAG_END_OF_MESSAGE, RDMA_HDR,
                0, 0, w.messageNumber(), ackField(), credits.rxPosted(), 0, 0);
        RdmaHeader.write(header, HDR, w.remoteAddress(), w.remoteHandle(), w.length());
        credits.announced();
        header.limit(RDMA_HDR);
        pendingReads.addLast(w); // before the bytes leave: the response may race written()
        current = null;
        unwritten.add(Produced.DATA, true, w, false, false, 0);
        return 0;
    }

    private int dataSegment(ByteBuffer header, ByteBuffer[] payload) {
        OutboundWork w = current;
        long total = w.length();
        int chunk = (int) Math.min(segmentPayload, total - currentOffset);
        boolean eom = currentOffset + chunk == total;
        boolean write = currentType.isRdmaWrite();
        int hl = write ? RDMA_HDR : HDR;
        int flags = eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0;
        int imm = 0;
        if (eom && w.hasImmediate()) {
            flags |= SegmentHeader.FLAG_IMMEDIATE;
            imm = w.immediateData();
        }
        boolean report = reportPending;
        SegmentHeader.write(header, 0, currentType, flags, hl + chunk,
                currentOffset, imm, w.messageNumber(), ackField(), credits.rxPosted(), report ? reportType : 0,
                report ? reportIs : 0);
        if (write) {
            RdmaHeader.write(header, HDR, w.remoteAddress(), w.remoteHandle(), total);
        }
        credits.announced();
        header.limit(hl);
        int n = chunk == 0 ? 0 : w.gather(currentOffset, chunk, payload, payloadIndex);
        currentOffset += chunk;
        if (eom) {
            current = null;
            if (rr) {
                unacked.addLast(w); // completes when a Message ACK covers it (VITCP-PROFILE §6)
            }
        }
        // Unreliable / Reliable Delivery: complete once the last byte went to TCP (VITCP-PROFILE §6)
        unwritten.add(Produced.DATA, eom, eom ? w : null, eom && !rr, report, 0);
        return n;
    }

    private int responseSegment(ByteBuffer header, ByteBuffer[] payload) {
        int chunk = (int) Math.min(segmentPayload, responder.headRemaining());
        boolean eom = chunk == responder.headRemaining();
        int msg = responder.headMessage();
        ByteBuffer src = null;
        if (chunk > 0) {
            src = peer.rdmaSource(responder.headAddress(), responder.headHandle(), chunk);
            if (src == null) {
                responder.block(); // the owner calls readSourceReady() once it has the data
                return BLOCKED;
            }
        }
        SegmentHeader.write(header, 0, SegmentType.RDMA_READ_RESPONSE, eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0,
                HDR + chunk, responder.headOffset(), 0, msg, ackField(), credits.rxPosted(), 0, 0);
        credits.announced();
        header.limit(HDR);
        int n = 0;
        if (src != null) {
            payload[payloadIndex] = src;
            n = 1;
        }
        unwritten.add(Produced.RESPONSE, eom, null, false, false, msg);
        if (responder.produced(chunk)) {
            // VITCP-PROFILE §9.5: the request stops counting against our window now; §9.3: at Reliable
            // Reception it counts as completed from the same point (later segments carry the ACK)
            acks.markDone(msg);
        }
        return n;
    }

    /** The oldest produced segment, not a control segment, went to TCP ({@link ViConnection#written()}). */
    void written() {
        Produced kind = unwritten.kind();
        boolean eom = unwritten.endOfMessage();
        boolean report = unwritten.carriesReport();
        OutboundWork w = unwritten.lastOf();
        boolean completes = unwritten.completes();
        int msg = unwritten.message();
        unwritten.remove(); // before the callbacks: one of them may break the connection
        switch (kind) {
            case DATA -> {
                if (w != null) {
                    peer.workWritten(w);
                }
                if (completes) {
                    // Unreliable / Reliable Delivery: complete once the last byte went to TCP (VITCP-PROFILE §6)
                    peer.workCompleted(w, Status.DONE | Status.opFor(w.operation()), w.length());
                }
            }
            case RESPONSE -> {
                if (eom) {
                    peer.readResponseWritten(msg);
                    if (responder.lastSegmentWritten()) {
                        acks.releaseDeferred(peer); // VIA 6.3.1.1: the Reads they waited for went out
                    }
                }
            }
            case NOP, CONTROL -> {
            }
        }
        if (report) {
            reportWritten();
        }
    }

    // ---- completion of sent work

    /** A Message ACK covers every sent message up to {@code ack} (VITCP-PROFILE §6). */
    void acknowledged(int ack) {
        unorderedGate.acknowledged(ack); // seed 002 condition 2: fully ordered messages up to ack arrived
        while (!unacked.isEmpty() && ack - unacked.peekFirst().messageNumber() >= 0) {
            OutboundWork w = unacked.pollFirst();
            peer.workCompleted(w, Status.DONE | Status.opFor(w.operation()), w.length());
        }
    }

    /**
     * The peer reported an error for message {@code msg} (VITCP-PROFILE §6): completes that work with
     * the status the VI Error Type maps to (VIA 10.2), if it is still ours.
     */
    void reportedError(int msg, boolean rdmaProtection) {
        acknowledged(msg - 1);
        int errorBit = rdmaProtection ? Status.RDMA_PROT_ERROR : Status.REMOTE_DESC_ERROR;
        OutboundWork failed = null;
        if (!unacked.isEmpty() && unacked.peekFirst().messageNumber() == msg) {
            failed = unacked.pollFirst();
        } else {
            for (OutboundWork r : pendingReads) {
                if (r.messageNumber() == msg) {
                    failed = r;
                    pendingReads.remove(r);
                    if (!rdmaProtection) {
                        errorBit = Status.TRANSPORT_ERROR;
                    }
                    break;
                }
            }
        }
        if (failed != null) {
            peer.workCompleted(failed, Status.DONE | errorBit | Status.opFor(failed.operation()), 0);
        }
    }

    /** The RDMA Read whose response arrives next, or null. */
    OutboundWork readAwaitingResponse() {
        return pendingReads.peekFirst();
    }

    /** The head RDMA Read's response ended: it completes with {@code status}. */
    void readAnswered(int status, long length) {
        OutboundWork w = pendingReads.pollFirst();
        peer.workCompleted(w, status | Status.OP_RDMA_READ, length);
    }

    /**
     * VIA 5.4: outbound work left on the queues completes in error (flushed); with {@code transportLost},
     * RDMA Reads in flight also get Transport Error (VIA 10.2 bit 6).
     */
    void flush(boolean transportLost) {
        reportPending = false;
        ArrayDeque<OutboundWork> all = new ArrayDeque<>();
        unwritten.drainCompletable(all); // produced, but written() did not confirm it
        all.addAll(unacked);
        if (current != null) {
            all.add(current);
        }
        ArrayDeque<OutboundWork> lostReads = new ArrayDeque<>(pendingReads);
        all.addAll(sendQueue);
        unacked.clear();
        current = null;
        pendingReads.clear();
        sendQueue.clear();
        responder.clear();
        for (OutboundWork w : lostReads) {
            peer.workCompleted(w, Status.DONE | Status.DESC_FLUSHED_ERROR
                    | (transportLost ? Status.TRANSPORT_ERROR : 0) | Status.OP_RDMA_READ, 0);
        }
        for (OutboundWork w : all) {
            peer.workCompleted(w, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.opFor(w.operation()), 0);
        }
    }
}

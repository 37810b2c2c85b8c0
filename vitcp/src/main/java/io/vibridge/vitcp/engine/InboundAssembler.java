package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.ViErrorType;
import java.nio.ByteBuffer;

/**
 * The connected data path in (VITCP-PROFILE §3, §4, §9): checks the message sequence, admits and
 * credits new messages, places payload as it arrives (streaming: no reassembly buffer) and handles
 * receiver-detected errors per reliability level (VITCP-PROFILE §6, VIA 2.5).
 */
final class InboundAssembler {

    /** Where the current segment's payload goes. */
    private enum PayloadTarget { DISCARD, RECEIVE, WRITE, RESPONSE }

    private static final int HDR = SegmentHeader.LENGTH;
    private static final int RDMA_PROTECTION = ViErrorType.RDMA_PROTECTION.code();
    private static final int DESCRIPTOR = ViErrorType.DESCRIPTOR.code();
    private static final int IMMEDIATE_AND_EOM = SegmentHeader.FLAG_IMMEDIATE | SegmentHeader.FLAG_END_OF_MESSAGE;

    private final ConnectionErrors errors;
    private final ConnectionPeer peer;
    private final SegmentReader reader;
    private final Credits credits;
    private final AckTracker acks;
    private final ReadResponderWindow responder;
    private final OutboundSegmenter outbound;
    private final ReliabilityLevel level;
    private final boolean rr;
    private final long mtu;

    // the current segment
    private SegmentType segType;
    private int segFlags;
    private long segDataOffset;
    private int segImmediate;
    private int payloadLength;
    private PayloadTarget target = PayloadTarget.DISCARD;
    private long targetOffset;

    // the inbound Send or RDMA Write in progress
    private int expectedMessage;
    private boolean inActive;
    private SegmentType inType;
    private int inMsg;
    private boolean inFirst;
    private long inOffset;
    private boolean inDiscard;
    private boolean inEom;
    private InboundReceive inReceive;
    private long inAddr;
    private int inHandle;
    private long inLen;
    // the Read Response in progress (requester side)
    private long respInOffset;
    private boolean respEom;

    private long dropped;

    InboundAssembler(ConnectionErrors errors, ConnectionPeer peer, SegmentReader reader, Credits credits,
            AckTracker acks, ReadResponderWindow responder, OutboundSegmenter outbound, Negotiated negotiated) {
        this.errors = errors;
        this.peer = peer;
        this.reader = reader;
        this.credits = credits;
        this.acks = acks;
        this.responder = responder;
        this.outbound = outbound;
        this.level = negotiated.reliability();
        this.rr = level == ReliabilityLevel.RELIABLE_RECEPTION;
        this.mtu = negotiated.mtu();
        this.expectedMessage = negotiated.peerImn();
    }

    /** Inbound messages dropped for receiver-detected errors at Unreliable Delivery. */
    long dropped() {
        return dropped;
    }

    /**
     * The header of a data segment (its Message ACK and credits already taken). When the owner refuses
     * to admit the new message it starts, the reader waits for admission and nothing else changed.
     */
    void onHeader(ByteBuffer hdr, int payload) {
        // VITCP-PROFILE §9.10: unordered types are handled as their ordered counterparts, whether or not this
        // side set attribute bit 6: §9.10 constrains only senders, and a receiver over TCP that keeps the order
        // is always right (seed 002: the hint bits permit reordering, never require it)
        SegmentType type = SegmentType.of(SegmentHeader.typeCode(hdr, 0), SegmentHeader.OFF_TYPE_FLAGS).ordered();
        segType = type;
        segFlags = SegmentHeader.flags(hdr, 0);
        segDataOffset = SegmentHeader.dataOffset(hdr, 0);
        segImmediate = SegmentHeader.immediateData(hdr, 0);
        payloadLength = payload;
        int msg = SegmentHeader.messageNumber(hdr, 0);
        boolean eom = (segFlags & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
        boolean transmitError = (segFlags & SegmentHeader.FLAG_TRANSMIT_ERROR) != 0;
        if (transmitError && !type.carriesPayload()) {
            errors.protocolError("Transmit Error flag on a segment without payload"); // wire §2.2.2.2.5
            return;
        }
        target = PayloadTarget.DISCARD;
        targetOffset = 0;
        switch (type) {
            case NOP -> {
                if (payload != 0) {
                    errors.protocolError("NOP with payload");
                } else if (inActive) {
                    errors.protocolError("NOP inside a message"); // VITCP-PROFILE §9.2
                }
            }
            case SEND -> {
                if (!beginMessageSegment(type, msg)) {
                    return;
                }
                onSendSegment(eom);
                if (transmitError && !reader.dead()) {
                    transmitError(Status.OP_RECEIVE);
                }
            }
            case RDMA_WRITE -> {
                if (!beginMessageSegment(type, msg)) {
                    return;
                }
                onWriteSegment(hdr, eom);
                if (transmitError && !reader.dead()) {
                    transmitError(Status.OP_REMOTE_RDMA_WRITE);
                }
            }
            case RDMA_READ_REQUEST -> onReadRequest(hdr, msg, eom);
            case RDMA_READ_RESPONSE -> {
                onReadResponse(msg, eom);
                if (transmitError && !reader.dead()) {
                    readResponseTransmitError();
                }
            }
            default -> errors.protocolError("unexpected type " + type);
        }
    }

    /**
     * Sequence (VITCP-PROFILE §9.8) and credit checks of a Send or RDMA Write segment, then admission of
     * a new message. Returns false when the segment must not be processed (protocol error or refused).
     */
    private boolean beginMessageSegment(SegmentType type, int msg) {
        boolean immediate = (segFlags & IMMEDIATE_AND_EOM) == IMMEDIATE_AND_EOM;
        if (inActive) {
            if (inType != type || msg != inMsg || segDataOffset != inOffset) {
                errors.protocolError("broken segment sequence"); // VITCP-PROFILE §9.8
                return false;
            }
            inFirst = false;
            // VITCP-PROFILE §9.4: the last segment of an RDMA Write with immediate data uses a credit
            return type != SegmentType.RDMA_WRITE || !immediate || useCredit(msg);
        }
        if (segDataOffset != 0 || msg != expectedMessage) {
            errors.protocolError("message " + msg + " offset " + segDataOffset + ", expected message "
                    + expectedMessage);
            return false;
        }
        // VITCP-PROFILE §9.4: a Send uses a credit, an RDMA Write with immediate data too
        boolean usesCredit = type == SegmentType.SEND || immediate;
        if (usesCredit && credits.peerWouldAbuse()) {
            creditAbuse(msg);
            return false;
        }
        if (!admitted(type, msg)) {
            return false;
        }
        if (usesCredit) {
            credits.peerUsed();
        }
        expectedMessage++;
        inActive = true;
        inType = type;
        inMsg = msg;
        acks.track(msg);
        inOffset = 0;
        inDiscard = false;
        inReceive = null;
        inFirst = true;
        return true;
    }

    private boolean useCredit(int msg) {
        if (credits.peerWouldAbuse()) {
            creditAbuse(msg);
            return false;
        }
        credits.peerUsed();
        return true;
    }

    /** VITCP-PROFILE §6: with descriptor flow control the peer may use only the credits we announced. */
    private void creditAbuse(int msg) {
        errors.protocolError("credit abuse: message " + Integer.toUnsignedString(msg)
                + " sent without a receive credit");
    }

    /** Asks the owner to admit a new message; when refused, the reader keeps the header. */
    private boolean admitted(SegmentType type, int msg) {
        if (peer.admitMessage(type, msg)) {
            return true;
        }
        reader.awaitAdmission();
        return false;
    }

    private void onSendSegment(boolean eom) {
        long end = inOffset + payloadLength;
        if (end > mtu) {
            errors.protocolError("message larger than the MTU");
            return;
        }
        if (inFirst) {
            credits.peerConsumed();
            inReceive = peer.takeReceive(SegmentType.SEND, inMsg);
            if (inReceive == null) {
                receiverError(IsCode.RECEIVE_QUEUE_EMPTY, DESCRIPTOR, null, Status.OP_RECEIVE);
            }
        }
        if (!inDiscard && end > inReceive.capacity()) {
            InboundReceive r = inReceive;
            inReceive = null;
            receiverError(IsCode.RECEIVE_DESCRIPTOR_TOO_SMALL, DESCRIPTOR, r, Status.OP_RECEIVE);
        }
        if (!inDiscard) {
            target = PayloadTarget.RECEIVE;
            targetOffset = inOffset;
        }
        inOffset = end;
        inEom = eom;
    }

    private void onWriteSegment(ByteBuffer hdr, boolean eom) {
        long addr = RdmaHeader.address(hdr, HDR);
        int handle = RdmaHeader.handle(hdr, HDR);
        long len = RdmaHeader.length(hdr, HDR);
        long end = inOffset + payloadLength;
        if (inFirst) {
            if (len > mtu) {
                errors.protocolError("RDMA Write larger than the MTU");
                return;
            }
            inAddr = addr;
            inHandle = handle;
            inLen = len;
            int is = peer.checkRemoteAccess(inMsg, addr, handle, len, true); // VITCP-PROFILE §9.6
            if (is != 0) {
                receiverError(is, RDMA_PROTECTION, null, Status.OP_REMOTE_RDMA_WRITE);
            }
        } else if (addr != inAddr || handle != inHandle || len != inLen) {
            errors.protocolError("RDMA header changed within a message");
            return;
        }
        if (end > inLen || eom != (end == inLen)) {
            errors.protocolError("RDMA Write offset/length/End of Message disagree");
            return;
        }
        if (!inDiscard) {
            target = PayloadTarget.WRITE;
            targetOffset = inOffset;
        }
        inOffset = end;
        inEom = eom;
    }

    private void onReadRequest(ByteBuffer hdr, int msg, boolean eom) {
        if (inActive) {
            errors.protocolError("RDMA Read Request inside a message");
            return;
        }
        if (payloadLength != 0 || !eom || segDataOffset != 0 || msg != expectedMessage) {
            errors.protocolError("malformed RDMA Read Request");
            return;
        }
        long addr = RdmaHeader.address(hdr, HDR);
        int handle = RdmaHeader.handle(hdr, HDR);
        long len = RdmaHeader.length(hdr, HDR);
        if (len > mtu) {
            errors.protocolError("RDMA Read larger than the MTU");
            return;
        }
        boolean withinWindow = !responder.full();
        if (withinWindow && !admitted(SegmentType.RDMA_READ_REQUEST, msg)) {
            return;
        }
        expectedMessage++;
        inMsg = msg;
        if (!withinWindow) {
            receiverError(IsCode.READ_WINDOW_EXCEEDED, DESCRIPTOR, null, 0); // VITCP-PROFILE §6: IS 7, type 2
            return;
        }
        int is = peer.checkRemoteAccess(msg, addr, handle, len, false);
        if (is != 0) {
            receiverError(is, RDMA_PROTECTION, null, 0);
            return;
        }
        responder.add(msg, addr, handle, len);
        acks.track(msg);
    }

    private void onReadResponse(int msg, boolean eom) {
        OutboundWork w = outbound.readAwaitingResponse();
        if (w == null || msg != w.messageNumber() || segDataOffset != respInOffset) {
            errors.protocolError("unexpected RDMA Read Response");
            return;
        }
        long end = respInOffset + payloadLength;
        if (end > w.length() || eom != (end == w.length())) {
            errors.protocolError("RDMA Read Response length disagrees with the request");
            return;
        }
        target = PayloadTarget.RESPONSE;
        targetOffset = respInOffset;
        respInOffset = end;
        respEom = eom;
    }

    /** Payload bytes of the current segment, in order. */
    void place(ByteBuffer slice) {
        int n = slice.remaining();
        switch (target) {
            case RECEIVE -> inReceive.place(targetOffset, slice);
            case WRITE -> peer.rdmaPlace(inAddr + targetOffset, inHandle, slice);
            case RESPONSE -> outbound.readAwaitingResponse().scatter(targetOffset, slice);
            case DISCARD -> {
            }
        }
        targetOffset += n;
    }

    /** The current segment's payload has fully arrived. */
    void segmentEnd() {
        switch (segType) {
            case SEND -> {
                if (inEom) {
                    sendEnded();
                }
            }
            case RDMA_WRITE -> {
                if (inEom) {
                    writeEnded();
                }
            }
            case RDMA_READ_RESPONSE -> {
                if (respEom) {
                    respInOffset = 0;
                    outbound.readAnswered(Status.DONE, outbound.readAwaitingResponse().length());
                }
            }
            default -> {
            }
        }
    }

    private void sendEnded() {
        inActive = false;
        if (inDiscard) {
            return;
        }
        InboundReceive r = inReceive;
        inReceive = null;
        boolean imm = (segFlags & SegmentHeader.FLAG_IMMEDIATE) != 0;
        int immediate = imm ? segImmediate : 0;
        int st = Status.DONE | Status.OP_RECEIVE | (imm ? Status.IMMEDIATE : 0);
        if (rr && responder.outstanding()) {
            // VIA 6.3.1.1: at Reliable Reception a Send that bypassed an RDMA Read completes only after
            // the Read's data went out
            acks.defer(r, st, inOffset, immediate);
        } else {
            peer.receiveCompleted(r, st, inOffset, immediate);
        }
        if (!acks.manual()) {
            acks.markDone(inMsg);
        }
    }

    private void writeEnded() {
        inActive = false;
        if (inDiscard) {
            return;
        }
        boolean imm = (segFlags & SegmentHeader.FLAG_IMMEDIATE) != 0;
        peer.rdmaWritePlaced(inMsg, imm, imm ? segImmediate : 0);
        if (imm) {
            // VIA 10.2: immediate data consumes a receive descriptor
            credits.peerConsumed();
            InboundReceive r = peer.takeReceive(SegmentType.RDMA_WRITE, inMsg);
            if (r == null) {
                receiverError(IsCode.RECEIVE_QUEUE_EMPTY, DESCRIPTOR, null, Status.OP_REMOTE_RDMA_WRITE);
                return;
            }
            peer.receiveCompleted(r, Status.DONE | Status.OP_REMOTE_RDMA_WRITE | Status.IMMEDIATE, 0, segImmediate);
        }
        if (!acks.manual()) {
            acks.markDone(inMsg);
        }
    }

    /** The owner failed message {@code msg} after the engine accepted it: as a receiver-detected error. */
    void fail(int msg, int viErrorType, int isCode) {
        inMsg = msg;
        receiverError(isCode, viErrorType, null, 0);
    }

    /** A receiver-detected error (VITCP-PROFILE §6), per reliability level. */
    private void receiverError(int isCode, int viErrorType, InboundReceive consumed, int op) {
        inDiscard = true;
        target = PayloadTarget.DISCARD;
        if (consumed != null) {
            peer.receiveCompleted(consumed, Status.DONE | Status.LENGTH_ERROR | op, 0, 0);
        }
        switch (level) {
            case UNRELIABLE_DELIVERY -> dropped++; // dropped; the connection stays up (VIA 2.5.1)
            case RELIABLE_DELIVERY -> {
                reader.kill();
                errors.breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, viErrorType, isCode);
            }
            case RELIABLE_RECEPTION -> {
                // report on the next segment, then Error and close
                outbound.report(inMsg, viErrorType, isCode);
                reader.kill(); // inbound refused from now on (VIA 5.4)
            }
        }
    }

    /**
     * A Send or RDMA Write segment carries the Transmit Error flag (draft 2.2.2.2.5: the sender could
     * not retransmit the original data and padded): the message is corrupt. Its payload is discarded
     * from here on, a receive it consumed completes with Transport Error (VIA 10.2 bit 6) and, per
     * level (VIA 2.5): Unreliable Delivery drops the message and stays connected; Reliable Delivery
     * and Reliable Reception move the VI to Error and close TCP without a report. No report at Reliable
     * Reception: no VI Error Type / IS code pair names it (VITCP-PROFILE §6) and the sender, which set
     * the flag, already knows; its descriptor completes flushed when TCP closes.
     */
    private void transmitError(int op) {
        if (inDiscard) {
            return; // the message already failed (e.g. no receive posted)
        }
        inDiscard = true;
        target = PayloadTarget.DISCARD;
        InboundReceive r = inReceive;
        inReceive = null;
        if (r != null) {
            peer.receiveCompleted(r, Status.DONE | Status.TRANSPORT_ERROR | op, 0, 0);
        }
        if (level == ReliabilityLevel.UNRELIABLE_DELIVERY) {
            dropped++;
            return;
        }
        reader.kill();
        errors.breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, 0, IsCode.REMOTE_TRANSPORT_ERROR);
    }

    /**
     * A Read Response segment carries the Transmit Error flag (draft 2.2.2.2.5): the responder could not
     * read its memory; the RDMA Read completes with Transport Error (VIA 10.2 bit 6), nothing more of it
     * is placed, and the VI goes to Error (Reads exist only at Reliable Delivery and Reception, VIA 2.5).
     */
    private void readResponseTransmitError() {
        target = PayloadTarget.DISCARD;
        respInOffset = 0;
        outbound.readAnswered(Status.DONE | Status.TRANSPORT_ERROR, 0);
        reader.kill();
        errors.breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, 0, IsCode.REMOTE_TRANSPORT_ERROR);
    }

    /** VIA 5.4: a receive holding part of a message completes flushed. */
    void flush() {
        if (inReceive != null) {
            InboundReceive r = inReceive;
            inReceive = null;
            peer.receiveCompleted(r, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.PARTIAL_ERROR | Status.OP_RECEIVE,
                    0, 0);
        }
        inActive = false;
    }
}

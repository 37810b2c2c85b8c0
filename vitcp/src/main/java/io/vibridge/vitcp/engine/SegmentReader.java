package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;

/**
 * Framing of the inbound TCP stream (VITCP-PROFILE §2), any chunking: collects each header, hands
 * data segments' headers and payload to the connection as they arrive (payload is never buffered) and
 * collects connection segments whole. Validates only what decides the framing: version, type and
 * minimum length.
 */
final class SegmentReader {

    /** What the next input bytes are. */
    enum ReadPhase {
        HEADER,
        PAYLOAD,
        /** A connection segment, collected whole before decoding. */
        WHOLE,
        /** A complete header waits for {@link ConnectionPeer#admitMessage}. */
        ADMIT,
        /** Refused (VIA 5.4) or closed: input is dropped. */
        DEAD
    }

    /** Where framed input goes. */
    interface Sink extends ConnectionErrors {

        /** A segment with another Version (VITCP-PROFILE §2). */
        void unsupportedVersion(int version);

        /** A whole Connect Request, Accept, Reject or No Match (position 0, limit its length). */
        void connectionSegment(ByteBuffer segment);

        /**
         * The whole header (24 or 40 bytes, from index 0) of a data segment; {@code payload} bytes follow.
         * May call {@link #awaitAdmission()} or {@link #kill()}.
         */
        void dataHeader(ByteBuffer header, int payload);

        /** Payload bytes of the current data segment, in order. */
        void payload(ByteBuffer slice);

        /** The current data segment's payload has fully arrived. */
        void segmentEnd();
    }

    private static final int HDR = SegmentHeader.LENGTH;
    private static final int RDMA_HDR = HDR + RdmaHeader.LENGTH;

    private final Sink sink;
    private final ByteBuffer hdr = ByteBuffer.allocate(RDMA_HDR);
    private ReadPhase phase = ReadPhase.HEADER;
    private int hdrNeed = HDR;
    /** The connection segment being collected (grows with what arrived: {@link GrowingInput}), or null. */
    private ByteBuffer whole;
    /** Its length, as its header gives it. */
    private int wholeLength;
    private int payloadLeft;

    SegmentReader(Sink sink) {
        this.sink = sink;
    }

    ReadPhase phase() {
        return phase;
    }

    boolean dead() {
        return phase == ReadPhase.DEAD;
    }

    boolean awaitingAdmission() {
        return phase == ReadPhase.ADMIT;
    }

    /** Bytes of buffer this reader holds for input collected across reads (tests: it grows with what arrived). */
    int heldCapacity() {
        return hdr.capacity() + (whole == null ? 0 : whole.capacity());
    }

    /** Drop all further input. */
    void kill() {
        phase = ReadPhase.DEAD;
    }

    /** The owner refused the message whose header was just handed over: keep it for a retry. */
    void awaitAdmission() {
        phase = ReadPhase.ADMIT;
    }

    /**
     * Consumes {@code in} (any chunking) up to a refused admission: then {@code in.position()} is just
     * after that segment's header, which is kept, and the next call retries it first.
     */
    void receive(ByteBuffer in) {
        if (phase == ReadPhase.ADMIT) {
            phase = ReadPhase.HEADER;
            dataHeader();
            if (phase == ReadPhase.ADMIT) {
                return;
            }
        }
        while (in.hasRemaining()) {
            switch (phase) {
                case HEADER -> {
                    copy(in, hdr, hdrNeed - hdr.position());
                    if (hdr.position() < hdrNeed) {
                        return;
                    }
                    if (hdrNeed == HDR && !framed()) {
                        continue;
                    }
                    if (hdr.position() < hdrNeed) {
                        continue; // the RDMA header follows
                    }
                    dataHeader();
                    if (phase == ReadPhase.ADMIT) {
                        return;
                    }
                }
                case PAYLOAD -> {
                    int n = Math.min(in.remaining(), payloadLeft);
                    int lim = in.limit();
                    int pos = in.position();
                    in.limit(pos + n);
                    sink.payload(in);
                    in.limit(lim);
                    in.position(pos + n);
                    payloadLeft -= n;
                    if (payloadLeft == 0) {
                        segmentEnd();
                    }
                }
                case WHOLE -> {
                    int n = Math.min(in.remaining(), wholeLength - whole.position());
                    whole = GrowingInput.room(whole, whole.position() + n, wholeLength);
                    copy(in, whole, n);
                    if (whole.position() == wholeLength) {
                        connectionSegment();
                    }
                }
                case ADMIT, DEAD -> {
                    in.position(in.limit()); // refused (VIA 5.4) or closed
                    return;
                }
            }
        }
    }

    private static void copy(ByteBuffer in, ByteBuffer to, int max) {
        int n = Math.min(in.remaining(), max);
        int lim = in.limit();
        in.limit(in.position() + n);
        to.put(in);
        in.limit(lim);
    }

    /**
     * The first 24 bytes: validates what decides the segment's framing. Returns false when this is not
     * a data segment (a connection segment, or an error).
     */
    private boolean framed() {
        int version = SegmentHeader.version(hdr, 0);
        int code = SegmentHeader.typeCode(hdr, 0);
        int len = SegmentHeader.segmentLength(hdr, 0);
        if (version != SegmentHeader.VERSION) {
            sink.unsupportedVersion(version);
            return false;
        }
        if (!SegmentType.isDefined(code)) {
            sink.protocolError("reserved type " + code);
            return false;
        }
        SegmentType t = SegmentType.of(code, SegmentHeader.OFF_TYPE_FLAGS);
        if (len < t.minimumSegmentLength()) {
            sink.protocolError("segment length " + len + " too short for " + t);
            return false;
        }
        if (t.hasConnectionHeader() || t.isConnectionSetup()) {
            // sized by what arrives, not by len: a header claiming 65,535 bytes holds 256
            wholeLength = len;
            whole = GrowingInput.room(null, HDR, len);
            whole.put(hdr.flip());
            if (whole.position() < len) {
                phase = ReadPhase.WHOLE;
            } else {
                connectionSegment();
            }
            return false;
        }
        if (t.hasRdmaHeader()) {
            hdrNeed = RDMA_HDR;
        }
        return true;
    }

    private void connectionSegment() {
        ByteBuffer seg = whole.flip(); // limit = wholeLength
        whole = null;
        resetHeader();
        sink.connectionSegment(seg);
    }

    /** The whole header of a data segment is in {@link #hdr}. */
    private void dataHeader() {
        int payload = SegmentHeader.segmentLength(hdr, 0) - hdrNeed;
        sink.dataHeader(hdr, payload);
        if (phase != ReadPhase.HEADER) {
            return; // refused, waiting for admission, or dead
        }
        resetHeader();
        if (payload == 0) {
            segmentEnd();
        } else {
            payloadLeft = payload;
            phase = ReadPhase.PAYLOAD;
        }
    }

    private void segmentEnd() {
        if (phase != ReadPhase.DEAD) {
            phase = ReadPhase.HEADER;
        }
        sink.segmentEnd();
    }

    private void resetHeader() {
        hdr.clear();
        hdrNeed = HDR;
        phase = ReadPhase.HEADER;
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;

/**
 * Seed-004 framing of the inbound stream (VITCP-PROFILE §8, §9.11), in front of the
 * {@link SegmentReader}: finds each frame by its Segment Length, verifies version, lengths, CRC-32,
 * Connection ID and the header's agreement with the VI/TCP segment before any byte of it goes on, then
 * hands the VI/TCP segment (the control data and payload, contiguous in the frame) to the segment
 * reader. A frame wholly inside one read is verified and passed on in place; one split across reads
 * is collected first, since nothing may be placed before its CRC is checked.
 *
 * <p>Framing recovery: seed 004 §5 recovers framing after a dropped TCP segment by trusting a
 * TCP-segment-aligned header whose Connection ID, CRC and fields check out. A reader of the TCP byte
 * stream never sees a gap (TCP retransmits), so any frame that fails a check is not a lost boundary but
 * a broken or hostile peer: a protocol error (VITCP-PROFILE §9.8) naming the check, and nothing placed.
 */
final class FrameReader {

    /** The shortest plausible frame: the short header and a VI/TCP segment header. */
    private static final int MIN_SEGMENT = RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH;
    /** Version, flags and Segment Length: enough to know the frame's length. */
    private static final int PREFIX = 4;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SegmentReader segments;
    private final ConnectionErrors errors;
    private long connectionId;
    private boolean connectionIdKnown;
    private FrameCheck failure;

    /**
     * A frame arriving across reads, collected whole: allocated on first need and grown with the bytes that
     * arrived ({@link GrowingInput}), then kept for the next frame.
     */
    private ByteBuffer partial;
    private int partialNeed;
    /** The VI/TCP bytes of a collected frame that the segment reader stopped in (admission), or null. */
    private ByteBuffer pending;
    /** VI/TCP bytes of a frame verified in place still in the caller's input after an admission stop. */
    private int passLeft;
    /** Padding and CRC of that frame still to skip. */
    private int skipLeft;
    /** The header of the last frame that carried a connection segment (its HMAC covers it, §9.11). */
    private final ByteBuffer controlFrameHeader = ByteBuffer.allocate(RdmaTcpFrame.LONG_HEADER);

    FrameReader(SegmentReader segments, ConnectionErrors errors) {
        this.segments = segments;
        this.errors = errors;
    }

    /** Bytes of buffer held for a frame collected across reads (tests: it grows with what arrived). */
    int heldCapacity() {
        return partial == null ? 0 : partial.capacity();
    }

    /** The active side chose the Connection ID (seed 004 §3.4): only it is accepted. */
    void connectionId(long id) {
        connectionId = id;
        connectionIdKnown = true;
    }

    long connectionId() {
        return connectionId;
    }

    /** The check that ended the stream, or null. */
    FrameCheck failure() {
        return failure;
    }

    /** As {@link SegmentReader#receive}: consumes {@code in} up to a refused admission. */
    void receive(ByteBuffer in) {
        if (pending != null) {
            segments.receive(pending);
            if (segments.awaitingAdmission()) {
                return;
            }
            pending = null;
            partial.clear();
        } else if (passLeft > 0) {
            if (!pass(in)) {
                return;
            }
        } else if (segments.awaitingAdmission()) {
            segments.receive(EMPTY); // a header refused at the end of its frame's VI/TCP bytes: retry it alone
            if (segments.awaitingAdmission()) {
                return;
            }
        }
        while (in.hasRemaining() && !segments.dead()) {
            if (skipLeft > 0) {
                int n = Math.min(skipLeft, in.remaining());
                in.position(in.position() + n);
                skipLeft -= n;
            } else if (partial == null || partial.position() == 0) {
                int at = in.position();
                if (in.remaining() >= PREFIX) {
                    if (!plausible(in, at)) {
                        break;
                    }
                    int length = RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(in, at));
                    if (in.remaining() >= length) {
                        if (!deliverInPlace(in, at, length)) {
                            return; // admission refused: in.position() is where the segment reader stopped
                        }
                        continue;
                    }
                }
                if (!collect(in)) {
                    return;
                }
            } else if (!collect(in)) {
                return;
            }
        }
        if (segments.dead()) {
            in.position(in.limit()); // broken or closed: input is dropped
        }
    }

    /** Version and a length that can hold a header: decided on the first 4 bytes, before collecting. */
    private boolean plausible(ByteBuffer b, int at) {
        if (RdmaTcpFrame.version(b, at) != RdmaTcpFrame.VERSION) {
            fail(FrameCheck.VERSION, b, at);
            return false;
        }
        if (RdmaTcpFrame.segmentLength(b, at) < MIN_SEGMENT) {
            fail(FrameCheck.LENGTH, b, at);
            return false;
        }
        return true;
    }

    /** Verifies and passes on a frame wholly in {@code in}; false when the segment reader stopped in it. */
    private boolean deliverInPlace(ByteBuffer in, int at, int length) {
        if (!verify(in, at)) {
            return true;
        }
        int segLen = RdmaTcpFrame.segmentLength(in, at);
        int start = at + RdmaTcpFrame.headerLength(in, at);
        int end = at + segLen;
        int limit = in.limit();
        in.limit(end).position(start);
        segments.receive(in);
        int stopped = in.position();
        in.limit(limit);
        if (segments.awaitingAdmission()) {
            passLeft = end - stopped;
            skipLeft = length - segLen;
            return false;
        }
        in.position(at + length);
        return true;
    }

    /** The rest of an in-place frame after an admission stop; false while the reader still refuses. */
    private boolean pass(ByteBuffer in) {
        int n = Math.min(passLeft, in.remaining());
        int limit = in.limit();
        int start = in.position();
        in.limit(start + n);
        segments.receive(in);
        int used = in.position() - start;
        in.limit(limit);
        passLeft -= used;
        return !segments.awaitingAdmission();
    }

    /**
     * Copies input into {@link #partial} until the frame is whole, then verifies and passes it on; false
     * when the segment reader stopped in it (admission refused).
     */
    private boolean collect(ByteBuffer in) {
        if (partial == null || partial.position() < PREFIX) {
            partial = GrowingInput.room(partial, PREFIX, RdmaTcpFrame.MAX_FRAME);
            copy(in, partial, PREFIX - partial.position());
            if (partial.position() < PREFIX || !plausible(partial, 0)) {
                return true;
            }
            partialNeed = RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(partial, 0));
        }
        // the buffer grows with the bytes that arrived, not to the length the frame claims
        int n = Math.min(in.remaining(), partialNeed - partial.position());
        partial = GrowingInput.room(partial, partial.position() + n, partialNeed);
        copy(in, partial, n);
        if (partial.position() < partialNeed || !verify(partial, 0)) {
            return true;
        }
        ByteBuffer segment = partial.slice(RdmaTcpFrame.headerLength(partial, 0),
                RdmaTcpFrame.segmentLength(partial, 0) - RdmaTcpFrame.headerLength(partial, 0));
        segments.receive(segment);
        if (segments.awaitingAdmission()) {
            pending = segment;
            return false;
        }
        partial.clear();
        return true;
    }

    private boolean verify(ByteBuffer b, int at) {
        FrameCheck c = RdmaTcpFrame.check(b, at, connectionId, !connectionIdKnown);
        if (c != FrameCheck.OK) {
            fail(c, b, at);
            return false;
        }
        if (!connectionIdKnown) {
            connectionId(RdmaTcpFrame.connectionId(b, at)); // the first frame names it (seed 004 §3.4)
        }
        int seg = at + RdmaTcpFrame.headerLength(b, at);
        int code = SegmentHeader.typeCode(b, seg);
        if (SegmentType.isDefined(code) && SegmentType.of(code, seg).hasConnectionHeader()) {
            controlFrameHeader.clear().put(0, b, at, RdmaTcpFrame.headerLength(b, at))
                    .limit(RdmaTcpFrame.headerLength(b, at));
        }
        return true;
    }

    /**
     * The last connection segment's frame, as its HMAC covers it (VITCP-PROFILE §9.11): the frame header
     * followed by {@code segment} (the VI/TCP bytes the segment reader collected).
     */
    ByteBuffer framed(ByteBuffer segment) {
        int hdr = controlFrameHeader.limit();
        ByteBuffer f = ByteBuffer.allocate(hdr + segment.limit());
        f.put(0, controlFrameHeader, 0, hdr).put(hdr, segment, 0, segment.limit());
        return f;
    }

    /** Length of the header {@link #framed} puts before the segment. */
    int framedHeaderLength() {
        return controlFrameHeader.limit();
    }

    private void fail(FrameCheck c, ByteBuffer b, int at) {
        failure = c;
        String where = c == FrameCheck.CONNECTION_ID
                ? String.format(" 0x%016x (expected 0x%016x)", RdmaTcpFrame.connectionId(b, at), connectionId) : "";
        errors.protocolError("RDMA/TCP frame: " + c.description() + where);
    }

    private static void copy(ByteBuffer in, ByteBuffer to, int max) {
        int n = Math.min(in.remaining(), max);
        to.put(to.position(), in, in.position(), n);
        to.position(to.position() + n);
        in.position(in.position() + n);
    }
}

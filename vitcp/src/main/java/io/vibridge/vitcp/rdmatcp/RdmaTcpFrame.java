package io.vibridge.vitcp.rdmatcp;

import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The seed-004 RDMA/TCP segment as VI/TCP uses it (VITCP-PROFILE §8, §9.11):
 *
 * <pre>
 *  0  Version (1)
 *  1  reserved (bits 7..4) | B (bit 3) | E (bit 2) | Type (bits 1..0)
 *  2  Segment Length (u16): header + control data + payload, padding and CRC excluded
 *  4  Connection ID (64 bits, chosen at random by the connecting side)
 * 12  Message Number
 * 16  Order (u16): 0 ordered, 0xFFFF for the unordered VI/TCP types
 * 18  reserved
 * 19  CLEN: 32-bit words of control data
 * 20  Send, RDMA Read Response: Data Offset                       (24-byte header)
 * 20  RDMA Write, RDMA Read Request: RDMA Buffer ID, Buffer Offset, RDMA Length (32-byte header)
 *  .  control data: the VI/TCP segment header and its RDMA or CE header (CLEN words)
 *  .  payload, zero padding to a multiple of 4, CRC-32 (big-endian, {@link RdmaTcpCrc}) over all before it
 * </pre>
 *
 * <p>Static, allocation-free accessors over {@code (buffer, absolute offset)}, big-endian whatever the
 * buffer's order; {@link #check} validates a received frame, {@link #writeHeader} derives the header of
 * an outbound one from its VI/TCP segment.
 */
public final class RdmaTcpFrame {

    public static final int VERSION = 1;
    /** Header of Send and RDMA Read Response frames. */
    public static final int SHORT_HEADER = 24;
    /** Header of RDMA Write and RDMA Read Request frames. */
    public static final int LONG_HEADER = 32;
    public static final int CRC_LENGTH = 4;
    public static final int MAX_SEGMENT_LENGTH = 65535;
    /** The longest frame on the wire: Segment Length 65535, 1 byte of padding, CRC. */
    public static final int MAX_FRAME = frameLength(MAX_SEGMENT_LENGTH);
    /** Most payload a VI/TCP segment can carry inside a frame (long header, VI/TCP and RDMA headers). */
    public static final int MAX_PAYLOAD = MAX_SEGMENT_LENGTH - LONG_HEADER - SegmentHeader.LENGTH - RdmaHeader.LENGTH;

    public static final int FLAG_BEGIN = 0x08;
    public static final int FLAG_END = 0x04;
    public static final int TYPE_MASK = 0x03;
    public static final int ORDERED = 0;
    /** Order value "may be done immediately when received" (seed 004 §3.4): the unordered types. */
    public static final int UNORDERED = 0xFFFF;

    public static final int OFF_VERSION = 0;
    public static final int OFF_FLAGS = 1;
    public static final int OFF_SEGMENT_LENGTH = 2;
    public static final int OFF_CONNECTION_ID = 4;
    public static final int OFF_MESSAGE_NUMBER = 12;
    public static final int OFF_ORDER = 16;
    public static final int OFF_CLEN = 19;
    public static final int OFF_DATA_OFFSET = 20;
    public static final int OFF_BUFFER_ID = 20;
    public static final int OFF_BUFFER_OFFSET = 24;
    public static final int OFF_RDMA_LENGTH = 28;

    private RdmaTcpFrame() {
    }

    /** Bytes on the wire of a frame whose Segment Length is {@code segmentLength}: padding and CRC added. */
    public static int frameLength(int segmentLength) {
        return ((segmentLength + 3) & ~3) + CRC_LENGTH;
    }

    /** Zero bytes after the payload (seed 004: 0 to 3). */
    public static int padding(int segmentLength) {
        return -segmentLength & 3;
    }

    // ------------------------------------------------------------------ field accessors

    public static int version(ByteBuffer b, int off) {
        return b.get(off + OFF_VERSION) & 0xFF;
    }

    public static int flags(ByteBuffer b, int off) {
        return b.get(off + OFF_FLAGS) & 0xFF;
    }

    public static FrameType type(ByteBuffer b, int off) {
        return FrameType.of(flags(b, off) & TYPE_MASK);
    }

    public static boolean begin(ByteBuffer b, int off) {
        return (flags(b, off) & FLAG_BEGIN) != 0;
    }

    public static boolean end(ByteBuffer b, int off) {
        return (flags(b, off) & FLAG_END) != 0;
    }

    public static int segmentLength(ByteBuffer b, int off) {
        return u16(b, off + OFF_SEGMENT_LENGTH);
    }

    public static long connectionId(ByteBuffer b, int off) {
        long v = b.getLong(off + OFF_CONNECTION_ID);
        return b.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    public static int messageNumber(ByteBuffer b, int off) {
        return i32(b, off + OFF_MESSAGE_NUMBER);
    }

    public static int order(ByteBuffer b, int off) {
        return u16(b, off + OFF_ORDER);
    }

    /** Control data length in 32-bit words. */
    public static int clen(ByteBuffer b, int off) {
        return b.get(off + OFF_CLEN) & 0xFF;
    }

    /** Send and RDMA Read Response only. */
    public static int dataOffset(ByteBuffer b, int off) {
        return i32(b, off + OFF_DATA_OFFSET);
    }

    /** RDMA Write and RDMA Read Request only. */
    public static int bufferId(ByteBuffer b, int off) {
        return i32(b, off + OFF_BUFFER_ID);
    }

    /** RDMA Write and RDMA Read Request only. */
    public static int bufferOffset(ByteBuffer b, int off) {
        return i32(b, off + OFF_BUFFER_OFFSET);
    }

    /** RDMA Write and RDMA Read Request only. */
    public static int rdmaLength(ByteBuffer b, int off) {
        return i32(b, off + OFF_RDMA_LENGTH);
    }

    /** Bytes of header before the control data. */
    public static int headerLength(ByteBuffer b, int off) {
        return type(b, off).headerLength();
    }

    /** Offset (from the frame start) of the control data, which is the VI/TCP segment. */
    public static int controlOffset(ByteBuffer b, int off) {
        return headerLength(b, off);
    }

    /** The CRC-32 carried after the padding. */
    public static int crc(ByteBuffer b, int off) {
        return i32(b, off + frameLength(segmentLength(b, off)) - CRC_LENGTH);
    }

    // ------------------------------------------------------------------ receive

    /**
     * Validates the complete frame at {@code off} (its {@link #frameLength} bytes are present):
     * version, lengths, CRC, Connection ID, then that the seed-004 fields say what the VI/TCP segment
     * in the control data says (VITCP-PROFILE §9.11). A control segment whose own version or type is
     * not one of ours passes: the VI/TCP layer answers it (Connect Reject IS 9, protocol error).
     * Padding and reserved bits are ignored (seed 004 §3.4). Never throws for any byte content.
     *
     * @param anyConnectionId accept any Connection ID (the passive side's first frame names it)
     */
    public static FrameCheck check(ByteBuffer b, int off, long connectionId, boolean anyConnectionId) {
        if (version(b, off) != VERSION) {
            return FrameCheck.VERSION;
        }
        int len = segmentLength(b, off);
        FrameType type = type(b, off);
        int hdr = type.headerLength();
        if (len < hdr + SegmentHeader.LENGTH) {
            return FrameCheck.LENGTH; // before reading CLEN: so short a frame may end before it
        }
        int control = clen(b, off) * 4;
        if (control < SegmentHeader.LENGTH || hdr + control > len) {
            return FrameCheck.LENGTH;
        }
        int covered = frameLength(len) - CRC_LENGTH;
        if (RdmaTcpCrc.of(b, off, covered) != i32(b, off + covered)) {
            return FrameCheck.CRC;
        }
        if (!anyConnectionId && connectionId(b, off) != connectionId) {
            return FrameCheck.CONNECTION_ID;
        }
        return agrees(b, off, type, hdr, control, len - hdr - control) ? FrameCheck.OK : FrameCheck.MISMATCH;
    }

    /** Whether the frame header says what its VI/TCP segment says (VITCP-PROFILE §8, §9.11). */
    private static boolean agrees(ByteBuffer b, int off, FrameType type, int hdr, int control, int payload) {
        int seg = off + hdr;
        int code = SegmentHeader.typeCode(b, seg);
        if (SegmentHeader.version(b, seg) != SegmentHeader.VERSION || !SegmentType.isDefined(code)) {
            return true; // the VI/TCP layer's business (VITCP-PROFILE §2, §9.11)
        }
        SegmentType st = SegmentType.of(code, seg + SegmentHeader.OFF_TYPE_FLAGS);
        boolean controlOnly = st.hasConnectionHeader() || st.isConnectionSetup();
        if (controlOnly ? payload != 0 : control != st.minimumSegmentLength()) {
            return false;
        }
        long dataOffset = SegmentHeader.dataOffset(b, seg);
        if (SegmentHeader.segmentLength(b, seg) != control + payload
                || type != FrameType.carrying(st)
                || order(b, off) != (st.isUnordered() ? UNORDERED : ORDERED)
                || messageNumber(b, off) != SegmentHeader.messageNumber(b, seg)
                || begin(b, off) != (dataOffset == 0)
                || end(b, off) != ((SegmentHeader.flags(b, seg) & SegmentHeader.FLAG_END_OF_MESSAGE) != 0)) {
            return false;
        }
        if (!type.namesBuffer()) {
            return dataOffset(b, off) == (int) dataOffset;
        }
        int rdma = seg + SegmentHeader.LENGTH;
        return bufferId(b, off) == RdmaHeader.handle(b, rdma)
                && bufferOffset(b, off) == (int) dataOffset
                && rdmaLength(b, off) == (int) RdmaHeader.length(b, rdma);
    }

    // ------------------------------------------------------------------ send

    /**
     * Writes the header of the frame that carries a VI/TCP segment (VITCP-PROFILE §8, §9.11): the
     * segment's header (and RDMA or CE header) is at {@code seg} in {@code segBuf}, {@code control}
     * bytes long, followed on the wire by {@code payload} bytes. Returns the header length; the caller
     * puts the control data right after it, then the payload, {@link #padding} and the CRC.
     */
    public static int writeHeader(ByteBuffer dst, int off, ByteBuffer segBuf, int seg, int control, int payload,
            long connectionId) {
        SegmentType st = typeOf(segBuf, seg);
        FrameType type = FrameType.carrying(st);
        int hdr = type.headerLength();
        int dataOffset = (int) SegmentHeader.dataOffset(segBuf, seg);
        boolean eom = (SegmentHeader.flags(segBuf, seg) & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
        dst.put(off + OFF_VERSION, (byte) VERSION);
        dst.put(off + OFF_FLAGS, (byte) ((dataOffset == 0 ? FLAG_BEGIN : 0) | (eom ? FLAG_END : 0) | type.code()));
        put16(dst, off + OFF_SEGMENT_LENGTH, hdr + control + payload);
        long id = dst.order() == ByteOrder.BIG_ENDIAN ? connectionId : Long.reverseBytes(connectionId);
        dst.putLong(off + OFF_CONNECTION_ID, id);
        put32(dst, off + OFF_MESSAGE_NUMBER, SegmentHeader.messageNumber(segBuf, seg));
        put16(dst, off + OFF_ORDER, st.isUnordered() ? UNORDERED : ORDERED);
        dst.put(off + OFF_ORDER + 2, (byte) 0);
        dst.put(off + OFF_CLEN, (byte) (control / 4));
        if (type.namesBuffer()) {
            int rdma = seg + SegmentHeader.LENGTH;
            put32(dst, off + OFF_BUFFER_ID, RdmaHeader.handle(segBuf, rdma));
            put32(dst, off + OFF_BUFFER_OFFSET, dataOffset);
            put32(dst, off + OFF_RDMA_LENGTH, (int) RdmaHeader.length(segBuf, rdma));
        } else {
            put32(dst, off + OFF_DATA_OFFSET, dataOffset);
        }
        return hdr;
    }

    /** Writes the CRC-32 word (big-endian) at {@code at}. */
    public static void putCrc(ByteBuffer b, int at, int crc) {
        put32(b, at, crc);
    }

    /**
     * The whole frame of the VI/TCP segment at {@code [seg, seg + length)} (a new buffer): header,
     * control data, payload, zero padding, CRC-32. For tools and tests; the engine frames in place.
     */
    public static ByteBuffer frame(ByteBuffer segBuf, int seg, int length, long connectionId) {
        int control = controlLength(segBuf, seg, length);
        int hdr = FrameType.carrying(typeOf(segBuf, seg)).headerLength();
        int segLen = hdr + length;
        ByteBuffer f = ByteBuffer.allocate(frameLength(segLen));
        writeHeader(f, 0, segBuf, seg, control, length - control, connectionId);
        f.put(hdr, segBuf, seg, length);
        put32(f, f.capacity() - CRC_LENGTH, RdmaTcpCrc.of(f, 0, f.capacity() - CRC_LENGTH));
        return f;
    }

    /**
     * Bytes of the VI/TCP segment at {@code seg} that travel as control data (VITCP-PROFILE §9.11): the
     * whole of a connection segment, the segment and RDMA headers of the others.
     */
    public static int controlLength(ByteBuffer segBuf, int seg, int length) {
        SegmentType st = typeOf(segBuf, seg);
        return st.hasConnectionHeader() || st.isConnectionSetup() ? length : st.minimumSegmentLength();
    }

    /** The segment's type; a reserved code travels as a Send (the receiver's VI/TCP layer refuses it). */
    private static SegmentType typeOf(ByteBuffer segBuf, int seg) {
        int code = SegmentHeader.typeCode(segBuf, seg);
        return SegmentType.isDefined(code) ? SegmentType.of(code, seg) : SegmentType.SEND;
    }

    // ------------------------------------------------------------------ big-endian helpers

    private static int u16(ByteBuffer b, int at) {
        short s = b.getShort(at);
        return (b.order() == ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s)) & 0xFFFF;
    }

    static int i32(ByteBuffer b, int at) {
        int v = b.getInt(at);
        return b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    private static void put16(ByteBuffer b, int at, int v) {
        short s = (short) v;
        b.putShort(at, b.order() == ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s));
    }

    static void put32(ByteBuffer b, int at, int v) {
        b.putInt(at, b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v));
    }
}

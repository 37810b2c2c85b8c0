package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/**
 * The 24-byte segment header that starts every segment (VITCP-PROFILE §2, draft 3.1).
 *
 * <pre>
 *  0  Version (0x01)
 *  1  Type (bits 7..3) | Flags (bits 2..0)
 *  2  Segment Length (u16, whole segment, 24..65535)
 *  4  Data Offset (u32)
 *  8  Immediate Data
 * 12  Message Number
 * 16  Message ACK
 * 20  Rx Descriptors Posted (u16, mod 2^16)
 * 22  VI Error Type (u8)
 * 23  IS Error Code (u8)
 * </pre>
 *
 * <p>Static, allocation-free accessors over {@code (buffer, absolute offset)}; they neither validate
 * nor move the buffer's position, and read/write big-endian whatever the buffer's order. Use
 * {@link SegmentView} to validate a received segment.
 */
public final class SegmentHeader {

    public static final int LENGTH = 24;
    public static final int VERSION = 1;
    public static final int FLAG_IMMEDIATE = 0x01;
    public static final int FLAG_END_OF_MESSAGE = 0x02;
    public static final int FLAG_TRANSMIT_ERROR = 0x04;
    /** All defined flag bits. */
    public static final int FLAGS_MASK = 0x07;
    public static final int MAX_SEGMENT_LENGTH = 65535;

    public static final int OFF_VERSION = 0;
    public static final int OFF_TYPE_FLAGS = 1;
    public static final int OFF_SEGMENT_LENGTH = 2;
    public static final int OFF_DATA_OFFSET = 4;
    public static final int OFF_IMMEDIATE_DATA = 8;
    public static final int OFF_MESSAGE_NUMBER = 12;
    public static final int OFF_MESSAGE_ACK = 16;
    public static final int OFF_RX_DESCRIPTORS_POSTED = 20;
    public static final int OFF_VI_ERROR_TYPE = 22;
    public static final int OFF_IS_ERROR_CODE = 23;

    private SegmentHeader() {
    }

    public static int version(ByteBuffer buf, int off) {
        return Bytes.u8(buf, off + OFF_VERSION);
    }

    /** The raw 5-bit type code (may be reserved; see {@link SegmentType#of(int, int)}). */
    public static int typeCode(ByteBuffer buf, int off) {
        return Bytes.u8(buf, off + OFF_TYPE_FLAGS) >>> 3;
    }

    /** The 3 flag bits. */
    public static int flags(ByteBuffer buf, int off) {
        return Bytes.u8(buf, off + OFF_TYPE_FLAGS) & FLAGS_MASK;
    }

    public static int segmentLength(ByteBuffer buf, int off) {
        return Bytes.u16(buf, off + OFF_SEGMENT_LENGTH);
    }

    /** Unsigned 32-bit Data Offset. */
    public static long dataOffset(ByteBuffer buf, int off) {
        return Bytes.u32(buf, off + OFF_DATA_OFFSET);
    }

    public static int immediateData(ByteBuffer buf, int off) {
        return Bytes.i32(buf, off + OFF_IMMEDIATE_DATA);
    }

    public static int messageNumber(ByteBuffer buf, int off) {
        return Bytes.i32(buf, off + OFF_MESSAGE_NUMBER);
    }

    public static int messageAck(ByteBuffer buf, int off) {
        return Bytes.i32(buf, off + OFF_MESSAGE_ACK);
    }

    /** Rx Descriptors Posted, 0..65535. */
    public static int rxDescriptorsPosted(ByteBuffer buf, int off) {
        return Bytes.u16(buf, off + OFF_RX_DESCRIPTORS_POSTED);
    }

    public static int viErrorType(ByteBuffer buf, int off) {
        return Bytes.u8(buf, off + OFF_VI_ERROR_TYPE);
    }

    public static int isErrorCode(ByteBuffer buf, int off) {
        return Bytes.u8(buf, off + OFF_IS_ERROR_CODE);
    }

    /**
     * Writes all 24 bytes. {@code rxDescriptorsPosted} is taken mod 2^16 (VITCP-PROFILE §6: it is a
     * lifetime counter), so a running count can be passed as is.
     *
     * @throws IllegalArgumentException for flags outside 0..7, a Segment Length outside
     *     24..65535, a Data Offset outside u32, or error codes outside u8
     */
    public static void write(ByteBuffer buf, int off, SegmentType type, int flags, int segmentLength,
            long dataOffset, int immediate, int messageNumber, int messageAck, int rxDescriptorsPosted,
            int viErrorType, int isErrorCode) {
        if ((flags & ~FLAGS_MASK) != 0) {
            throw new IllegalArgumentException("flags " + flags + " outside 0..7");
        }
        if (segmentLength < LENGTH || segmentLength > MAX_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("segment length " + segmentLength + " outside 24..65535");
        }
        if ((dataOffset >>> 32) != 0) {
            throw new IllegalArgumentException("data offset " + dataOffset + " outside u32");
        }
        if ((viErrorType & ~0xFF) != 0 || (isErrorCode & ~0xFF) != 0) {
            throw new IllegalArgumentException("error codes " + viErrorType + "/" + isErrorCode + " outside u8");
        }
        Bytes.put8(buf, off + OFF_VERSION, VERSION);
        Bytes.put8(buf, off + OFF_TYPE_FLAGS, (type.code() << 3) | flags);
        Bytes.put16(buf, off + OFF_SEGMENT_LENGTH, segmentLength);
        Bytes.put32(buf, off + OFF_DATA_OFFSET, (int) dataOffset);
        Bytes.put32(buf, off + OFF_IMMEDIATE_DATA, immediate);
        Bytes.put32(buf, off + OFF_MESSAGE_NUMBER, messageNumber);
        Bytes.put32(buf, off + OFF_MESSAGE_ACK, messageAck);
        Bytes.put16(buf, off + OFF_RX_DESCRIPTORS_POSTED, rxDescriptorsPosted);
        Bytes.put8(buf, off + OFF_VI_ERROR_TYPE, viErrorType);
        Bytes.put8(buf, off + OFF_IS_ERROR_CODE, isErrorCode);
    }

    /** Rewrites only the Segment Length (e.g. after the payload size is known). */
    public static void writeSegmentLength(ByteBuffer buf, int off, int segmentLength) {
        if (segmentLength < LENGTH || segmentLength > MAX_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("segment length " + segmentLength + " outside 24..65535");
        }
        Bytes.put16(buf, off + OFF_SEGMENT_LENGTH, segmentLength);
    }
}

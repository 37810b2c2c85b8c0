package io.vibridge.cm.hello;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * The 16-byte header that starts every RC Send under FlowC 0 (CM-MAPPING §4; SDP's BSDH,
 * IB-WIRE-REFERENCE §7.1), big-endian:
 *
 * <pre>
 *  0  MID = 0xFF (data)   1  flags    2  bufs (u16)    4  len (u32, header + payload)
 *  8  mseq (u32)         12  mseqack (u32)
 * </pre>
 *
 * <p>Two ways to use it:
 *
 * <ul>
 *   <li>The <b>flyweight</b> static methods ({@link #write}, {@link #validate}, {@link #readBufs},
 *       ...) work at an absolute index of a buffer, leave its position alone and allocate
 *       nothing: they are for the gateway's per-message path.</li>
 *   <li>The <b>record</b> ({@link #encode}, {@link #decode}) is a value for tests, tools and logs.</li>
 * </ul>
 *
 * <p>Validation: MID must be 0xFF (no other message is defined under FlowC 0), len at least 16
 * and, where the message length is known ({@link #validate}), equal to it.
 *
 * <p>Flags (CM-MAPPING §4, SDP's OOB bits have no meaning here): bit 0x80
 * {@link #FLAG_EMPTY_MESSAGE} = this header-only Send carries a zero-length application message
 * (deliver it); a header-only Send without it is a pure credit update (as in SDP, where a
 * zero-length Data message is a credit update). Set only when len = 16; the other bits are
 * written as 0 and ignored on receipt. mseq and mseqack are unsigned 32-bit sequence numbers carried in an {@code int}; they
 * wrap, see {@link FlowCredits}.
 *
 * @param flags the flags byte, 0..255
 * @param bufs receive buffers the sender has posted right now, 0..65535
 * @param length len: header + payload, 16..2^31-1 (an RC message is at most 2^31 bytes)
 * @param mseq this message's sequence number (unsigned, wraps)
 * @param mseqAck the last mseq received from the peer (unsigned, wraps)
 */
public record FlowControlHeader(int flags, int bufs, int length, int mseq, int mseqAck) {

    /** Header size in bytes. */
    public static final int LENGTH = 16;
    /** MID of a data message. */
    public static final int MID_DATA = 0xFF;

    /**
     * flags bit 0x80 (CM-MAPPING §4): this header-only Send (len = 16) carries a zero-length
     * application message and is delivered as one; without it a header-only Send is a pure credit
     * update. Meaningless (and not set) when the Send has payload.
     */
    public static final int FLAG_EMPTY_MESSAGE = 0x80;

    static final String NAME = "FlowControlHeader";

    /** Validates the ranges. */
    public FlowControlHeader {
        Fields.requireRange("flags", flags, 0xFF);
        Fields.requireRange("bufs", bufs, 0xFFFF);
        if (length < LENGTH) {
            throw new IllegalArgumentException("length must be in 16..2147483647, got " + length);
        }
    }

    /** Is this a zero-length application message (len 16 and {@link #FLAG_EMPTY_MESSAGE})? */
    public boolean emptyMessage() {
        return (flags & FLAG_EMPTY_MESSAGE) != 0 && length == LENGTH;
    }

    /** Is this a pure credit update (header only, without {@link #FLAG_EMPTY_MESSAGE})? */
    public boolean creditUpdate() {
        return length == LENGTH && (flags & FLAG_EMPTY_MESSAGE) == 0;
    }

    // ---- flyweight: absolute index, no position change, no allocation ----

    /**
     * Writes a data header at absolute {@code index}. Allocates nothing; the buffer position is
     * not changed.
     *
     * @throws IndexOutOfBoundsException if the 16 bytes do not fit
     * @throws IllegalArgumentException if {@code length < 16}
     */
    public static void write(ByteBuffer buf, int index, int flags, int bufs, int length, int mseq, int mseqAck) {
        if (length < LENGTH) {
            throw new IllegalArgumentException("length must be at least 16, got " + length);
        }
        buf.put(index, (byte) MID_DATA);
        buf.put(index + 1, (byte) flags);
        buf.putShort(index + 2, (short) bufs);
        buf.putInt(index + 4, length);
        buf.putInt(index + 8, mseq);
        buf.putInt(index + 12, mseqAck);
    }

    /**
     * Checks a received message of {@code messageLength} bytes starting at absolute {@code index}:
     * at least 16 bytes, MID 0xFF, len equal to {@code messageLength}. Allocates nothing unless it
     * throws.
     *
     * @throws CmFormatException naming the field that is wrong
     */
    public static void validate(ByteBuffer buf, int index, int messageLength) {
        if (messageLength < LENGTH || index < 0 || buf.limit() - index < LENGTH) {
            throw new CmFormatException(NAME, "length", -1,
                    "a FlowC 0 message needs the 16-byte header, got " + messageLength + " bytes");
        }
        int mid = buf.get(index) & 0xFF;
        if (mid != MID_DATA) {
            throw new CmFormatException(NAME, "MID", 0, "must be 0xFF (data), got " + mid);
        }
        int len = buf.getInt(index + 4);
        if (len != messageLength) {
            throw new CmFormatException(NAME, "len", 4, "must equal the received message length "
                    + messageLength + ", got " + Integer.toUnsignedString(len));
        }
    }

    /** MID at absolute {@code index}. */
    public static int readMid(ByteBuffer buf, int index) {
        return buf.get(index) & 0xFF;
    }

    /** flags at absolute {@code index}. */
    public static int readFlags(ByteBuffer buf, int index) {
        return buf.get(index + 1) & 0xFF;
    }

    /**
     * Is the header at absolute {@code index} a zero-length application message ({@code len} = 16
     * and {@link #FLAG_EMPTY_MESSAGE} set), rather than a credit update or a message with payload?
     */
    public static boolean isEmptyMessage(ByteBuffer buf, int index) {
        return (buf.get(index + 1) & FLAG_EMPTY_MESSAGE) != 0 && buf.getInt(index + 4) == LENGTH;
    }

    /** bufs at absolute {@code index}. */
    public static int readBufs(ByteBuffer buf, int index) {
        return buf.getShort(index + 2) & 0xFFFF;
    }

    /** len at absolute {@code index}, as the raw (unsigned) int. */
    public static int readLength(ByteBuffer buf, int index) {
        return buf.getInt(index + 4);
    }

    /** mseq at absolute {@code index}. */
    public static int readMseq(ByteBuffer buf, int index) {
        return buf.getInt(index + 8);
    }

    /** mseqack at absolute {@code index}. */
    public static int readMseqAck(ByteBuffer buf, int index) {
        return buf.getInt(index + 12);
    }

    // ---- record codec ----

    /**
     * Writes this header at the buffer's position and advances it by 16.
     *
     * @throws BufferOverflowException if fewer than 16 bytes remain
     */
    public void encode(ByteBuffer buf) {
        if (buf.remaining() < LENGTH) {
            throw new BufferOverflowException();
        }
        write(buf, buf.position(), flags, bufs, length, mseq, mseqAck);
        buf.position(buf.position() + LENGTH);
    }

    /** The 16 header bytes. */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        encode(ByteBuffer.wrap(out));
        return out;
    }

    /**
     * Reads a header at the buffer's position and advances it by 16 (unchanged on failure). The
     * payload length is not compared with what follows; use {@link #validate} for a whole message.
     *
     * @throws CmFormatException if fewer than 16 bytes remain, MID is not 0xFF or len is not in
     *     16..2^31-1
     */
    public static FlowControlHeader decode(ByteBuffer buf) {
        Fields.requireRemaining(buf, LENGTH, NAME);
        int p = buf.position();
        int mid = readMid(buf, p);
        if (mid != MID_DATA) {
            throw new CmFormatException(NAME, "MID", 0, "must be 0xFF (data), got " + mid);
        }
        int len = readLength(buf, p);
        if (len < LENGTH) {
            throw new CmFormatException(NAME, "len", 4,
                    "must be in 16..2147483647, got " + Integer.toUnsignedString(len));
        }
        FlowControlHeader h = new FlowControlHeader(readFlags(buf, p), readBufs(buf, p), len,
                readMseq(buf, p), readMseqAck(buf, p));
        buf.position(p + LENGTH);
        return h;
    }

    /** Decodes 16 or more bytes (see {@link #decode(ByteBuffer)}). */
    public static FlowControlHeader fromBytes(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes));
    }
}

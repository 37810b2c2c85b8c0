package io.vibridge.iwarp.mpa;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The MPA frame of one DDP segment, an FPDU (RFC 5044 §4.1), without markers (this project refuses them):
 *
 * <pre>
 *  0            ULPDU Length (u16): the DDP segment's bytes
 *  2            ULPDU (the DDP segment)
 *  2 + len      PAD: 0..3 zero bytes, so that the CRC starts 4-aligned
 *  ...          CRC (4 bytes): CRC32C over everything before it, or zero when CRCs were not negotiated
 * </pre>
 *
 * The CRC goes on the wire least significant byte first: RFC 5044 §4.4 takes iSCSI's bit order, and
 * Linux siw stores the kernel's crc32c value as it is (recorded siw bytes, docs/real-rdma-peers.md). In
 * Java terms the big-endian int at the CRC's offset is {@code Integer.reverseBytes(crc32c.getValue())}.
 */
public final class Fpdu {

    public static final int LENGTH_FIELD = 2;
    public static final int CRC_LENGTH = 4;
    /** The largest ULPDU the 16-bit length field can name. */
    public static final int MAX_ULPDU = 0xFFFF;
    /** The largest FPDU: length field, ULPDU, pad, CRC. */
    public static final int MAX_LENGTH = length(MAX_ULPDU);

    private Fpdu() {
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} bytes. */
    public static int padLength(int ulpduLength) {
        return -(ulpduLength + LENGTH_FIELD) & 3;
    }

    /** Bytes of the FPDU that carries a ULPDU of {@code ulpduLength} bytes. */
    public static int length(int ulpduLength) {
        return LENGTH_FIELD + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /** The ULPDU Length field of the FPDU at {@code off}. */
    public static int ulpduLength(ByteBuffer buf, int off) {
        return buf.getShort(off) & 0xFFFF;
    }

    /**
     * Completes an FPDU whose ULPDU the caller has written at {@code off + 2}: the length field, the pad
     * and the CRC (computed with {@code crc}, or zero when it is null). Returns the FPDU's length.
     */
    public static int seal(ByteBuffer buf, int off, int ulpduLength, CRC32C crc) {
        if (ulpduLength > MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU of " + ulpduLength + " bytes > " + MAX_ULPDU);
        }
        buf.putShort(off, (short) ulpduLength);
        int crcAt = off + LENGTH_FIELD + ulpduLength;
        for (int pad = padLength(ulpduLength); pad > 0; pad--) {
            buf.put(crcAt++, (byte) 0);
        }
        buf.putInt(crcAt, crc == null ? 0 : Integer.reverseBytes(compute(crc, buf, off, crcAt - off)));
        return crcAt + CRC_LENGTH - off;
    }

    /** Whether the FPDU at {@code off} (of {@code length} bytes) carries the CRC32C of its other bytes. */
    public static boolean crcMatches(ByteBuffer buf, int off, int length, CRC32C crc) {
        int crcAt = off + length - CRC_LENGTH;
        return Integer.reverseBytes(buf.getInt(crcAt)) == compute(crc, buf, off, crcAt - off);
    }

    /** The CRC field of the FPDU at {@code off} of {@code length} bytes, as CRC32C computes it. */
    public static int crcField(ByteBuffer buf, int off, int length) {
        return Integer.reverseBytes(buf.getInt(off + length - CRC_LENGTH));
    }

    /** The CRC32C of {@code length} bytes at {@code off}, as {@code CRC32C.getValue()} gives it. */
    static int compute(CRC32C crc, ByteBuffer buf, int off, int length) {
        // position and limit moved and restored rather than a slice: no object per FPDU
        int position = buf.position();
        int limit = buf.limit();
        crc.reset();
        buf.limit(off + length).position(off);
        crc.update(buf);
        buf.limit(limit).position(position);
        return (int) crc.getValue();
    }
}

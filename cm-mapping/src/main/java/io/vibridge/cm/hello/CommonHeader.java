package io.vibridge.cm.hello;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;
import java.nio.ByteBuffer;

/**
 * The fields the Hello and the HelloReply share: the BSDH's MID, bufs and len (IB-WIRE-REFERENCE §7.1; MSeq,
 * MSeqAck and Flags stay zero) and the version byte at offset 16 (CM-MAPPING §2, §3). One writer and one reader,
 * so that both messages check MID, len and MajVer by the same rules.
 *
 * <pre>
 *  0  MID    1  reserved    2  bufs (u16)    4  len (u32)    8  reserved (8)    16  MajVer|MinVer
 * </pre>
 *
 * @param bufs bufs, 0..65535
 * @param minorVersion MinVer, 0..15
 */
record CommonHeader(int bufs, int minorVersion) {

    private static final int BUFS = 2;
    private static final int LEN = 4;
    private static final int VERSIONS = 16;

    /**
     * Zeroes {@code length} bytes at absolute {@code p}, then writes MID, bufs, {@code len = length} and MajVer 2
     * with {@code minorVersion}. The caller has checked that {@code length} bytes fit.
     */
    static void write(ByteBuffer buf, int p, int length, int mid, int bufs, int minorVersion) {
        for (int i = 0; i < length; i++) {
            buf.put(p + i, (byte) 0);
        }
        buf.put(p, (byte) mid);
        buf.putShort(p + BUFS, (short) bufs);
        buf.putInt(p + LEN, length);
        buf.put(p + VERSIONS, (byte) (Hello.MAJOR_VERSION << 4 | minorVersion));
    }

    /**
     * Reads the shared fields at the buffer's position without moving it (CM-MAPPING §3).
     *
     * @param message the message's name for the exception, {@code "Hello"} or {@code "HelloReply"}
     * @param mid the MID the message must carry
     * @param defined the bytes the message defines: fewer remaining, or a smaller len, is refused
     * @throws CmFormatException if fewer than {@code defined} bytes remain, MID is not {@code mid}, len is below
     *     {@code defined} or MajVer is not 2
     */
    static CommonHeader read(ByteBuffer buf, String message, int mid, int defined) {
        Fields.requireRemaining(buf, defined, message);
        int p = buf.position();
        int gotMid = buf.get(p) & 0xFF;
        if (gotMid != mid) {
            throw new CmFormatException(message, "MID", 0, "must be " + mid + " (" + message + "), got " + gotMid);
        }
        int bufs = buf.getShort(p + BUFS) & 0xFFFF;
        long len = buf.getInt(p + LEN) & 0xFFFF_FFFFL;
        if (len < defined) {
            throw new CmFormatException(message, "len", LEN, "must be at least " + defined + ", got " + len);
        }
        int versions = buf.get(p + VERSIONS) & 0xFF;
        if (versions >>> 4 != Hello.MAJOR_VERSION) {
            throw new CmFormatException(message, "MajVer", VERSIONS, "must be 2, got " + (versions >>> 4));
        }
        return new CommonHeader(bufs, versions & 0xF);
    }
}

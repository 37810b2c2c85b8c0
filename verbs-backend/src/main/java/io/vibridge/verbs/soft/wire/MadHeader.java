package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * The 24-byte MAD common header (REF §5.2).
 *
 * @param baseVersion       1
 * @param mgmtClass         0x07 for the CM
 * @param classVersion      2 for the CM
 * @param method            bit 7 = response; CM messages use Send (0x03)
 * @param status            16-bit status
 * @param classSpecific     16-bit class-specific field
 * @param transactionId     64-bit TID
 * @param attributeId       16-bit attribute (CM message type)
 * @param attributeModifier 32-bit modifier (ECE options in newer Linux REQ/REP, else 0)
 */
public record MadHeader(int baseVersion, int mgmtClass, int classVersion, int method, int status,
                        int classSpecific, long transactionId, int attributeId, int attributeModifier) {

    public static final int LENGTH = 24;

    public MadHeader {
        if ((baseVersion & ~0xFF) != 0 || (mgmtClass & ~0xFF) != 0 || (classVersion & ~0xFF) != 0
                || (method & ~0xFF) != 0 || (status & ~0xFFFF) != 0 || (classSpecific & ~0xFFFF) != 0
                || (attributeId & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("MAD header field out of range");
        }
    }

    /** A CM Send header as Linux sends it. */
    public static MadHeader cmSend(long transactionId, int attributeId) {
        return new MadHeader(Mad.BASE_VERSION, Mad.MGMT_CLASS_CM, Mad.CM_CLASS_VERSION, Mad.METHOD_SEND, 0, 0,
            transactionId, attributeId, 0);
    }

    /** This header with another attribute modifier. */
    public MadHeader withModifier(int modifier) {
        return new MadHeader(baseVersion, mgmtClass, classVersion, method, status, classSpecific, transactionId,
            attributeId, modifier);
    }

    /** Reads a header at an absolute offset (no value checks: see {@link CmCodec}). */
    public static MadHeader read(ByteBuffer buf, int off) {
        return new MadHeader(buf.get(off) & 0xFF, buf.get(off + 1) & 0xFF, buf.get(off + 2) & 0xFF,
            buf.get(off + 3) & 0xFF, buf.getShort(off + 4) & 0xFFFF, buf.getShort(off + 6) & 0xFFFF,
            buf.getLong(off + 8), buf.getShort(off + 16) & 0xFFFF, buf.getInt(off + 20));
    }

    /** Writes the header at an absolute offset (reserved bytes 18-19 = 0). */
    public void write(ByteBuffer buf, int off) {
        buf.put(off, (byte) baseVersion);
        buf.put(off + 1, (byte) mgmtClass);
        buf.put(off + 2, (byte) classVersion);
        buf.put(off + 3, (byte) method);
        buf.putShort(off + 4, (short) status);
        buf.putShort(off + 6, (short) classSpecific);
        buf.putLong(off + 8, transactionId);
        buf.putShort(off + 16, (short) attributeId);
        buf.putShort(off + 18, (short) 0);
        buf.putInt(off + 20, attributeModifier);
    }

    /** Allocation-free peeks for a receive path that dispatches before decoding. */
    public static int attributeId(ByteBuffer buf, int off) {
        return buf.getShort(off + 16) & 0xFFFF;
    }

    public static long transactionId(ByteBuffer buf, int off) {
        return buf.getLong(off + 8);
    }

    public static int mgmtClass(ByteBuffer buf, int off) {
        return buf.get(off + 1) & 0xFF;
    }

    public static int method(ByteBuffer buf, int off) {
        return buf.get(off + 3) & 0xFF;
    }
}

package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * Base Transport Header, 12 bytes (REF §2.1). Static accessors at an absolute offset; the buffer
 * must be big-endian.
 */
public final class Bth {

    public static final int LENGTH = 12;
    /** rxe sends the default full-member P_Key (REF §2.1). */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private Bth() {
    }

    /** OpCode byte (0..255). */
    public static int opcode(ByteBuffer buf, int off) {
        return buf.get(off) & 0xFF;
    }

    public static boolean solicitedEvent(ByteBuffer buf, int off) {
        return (buf.get(off + 1) & 0x80) != 0;
    }

    public static boolean migReq(ByteBuffer buf, int off) {
        return (buf.get(off + 1) & 0x40) != 0;
    }

    /** Number of pad bytes after the payload, 0..3 (REF §2.3). */
    public static int padCount(ByteBuffer buf, int off) {
        return (buf.get(off + 1) >> 4) & 0x3;
    }

    /** Transport header version, must be 0. */
    public static int transportVersion(ByteBuffer buf, int off) {
        return buf.get(off + 1) & 0xF;
    }

    public static int pkey(ByteBuffer buf, int off) {
        return buf.getShort(off + 2) & 0xFFFF;
    }

    /** FECN bit of byte 4 (masked out of the ICRC). */
    public static boolean fecn(ByteBuffer buf, int off) {
        return (buf.get(off + 4) & 0x80) != 0;
    }

    /** BECN bit of byte 4 (masked out of the ICRC). */
    public static boolean becn(ByteBuffer buf, int off) {
        return (buf.get(off + 4) & 0x40) != 0;
    }

    public static int destQp(ByteBuffer buf, int off) {
        return buf.getInt(off + 4) & Psn.MASK;
    }

    public static boolean ackRequest(ByteBuffer buf, int off) {
        return (buf.get(off + 8) & 0x80) != 0;
    }

    public static int psn(ByteBuffer buf, int off) {
        return buf.getInt(off + 8) & Psn.MASK;
    }

    /**
     * Writes a BTH with TVer 0, byte 4 (FECN/BECN/Resv6a) 0 and Resv7 0.
     *
     * @param opcode   OpCode byte
     * @param padCount 0..3
     * @param pkey     16-bit P_Key
     * @param destQp   24-bit destination QPN
     * @param psn      24-bit PSN
     */
    public static void write(ByteBuffer buf, int off, int opcode, boolean solicited, boolean migReq,
                             int padCount, int pkey, int destQp, boolean ackReq, int psn) {
        if ((opcode & ~0xFF) != 0 || (padCount & ~3) != 0 || (pkey & ~0xFFFF) != 0
                || (destQp & ~Psn.MASK) != 0 || (psn & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("BTH field out of range");
        }
        buf.put(off, (byte) opcode);
        buf.put(off + 1, (byte) ((solicited ? 0x80 : 0) | (migReq ? 0x40 : 0) | (padCount << 4)));
        buf.putShort(off + 2, (short) pkey);
        buf.putInt(off + 4, destQp); // byte 4 = 0
        buf.putInt(off + 8, (ackReq ? 0x8000_0000 : 0) | psn);
    }
}

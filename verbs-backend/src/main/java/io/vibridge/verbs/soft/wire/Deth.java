package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/** Datagram Extended Transport Header, 8 bytes: Q_Key, reserved byte, 24-bit source QP (REF §3.5). */
public final class Deth {

    public static final int LENGTH = 8;
    /** Q_Key of the GSI QP1 ({@code IB_QP1_QKEY}). */
    public static final int GSI_QKEY = 0x8001_0000;

    private Deth() {
    }

    public static int qkey(ByteBuffer buf, int off) {
        return buf.getInt(off);
    }

    public static int srcQp(ByteBuffer buf, int off) {
        return buf.getInt(off + 4) & Psn.MASK;
    }

    public static void write(ByteBuffer buf, int off, int qkey, int srcQp) {
        if ((srcQp & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("DETH source QP out of range: " + srcQp);
        }
        buf.putInt(off, qkey);
        buf.putInt(off + 4, srcQp); // reserved byte 4 = 0
    }
}

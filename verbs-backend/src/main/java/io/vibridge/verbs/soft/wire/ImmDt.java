package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/** Immediate data, 4 opaque bytes carried as a big-endian word (REF §3.3). */
public final class ImmDt {

    public static final int LENGTH = 4;

    private ImmDt() {
    }

    public static int value(ByteBuffer buf, int off) {
        return buf.getInt(off);
    }

    public static void write(ByteBuffer buf, int off, int imm) {
        buf.putInt(off, imm);
    }
}

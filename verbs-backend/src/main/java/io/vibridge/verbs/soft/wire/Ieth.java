package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/** Invalidate Extended Transport Header: the R_Key to invalidate, 4 bytes (REF §3.4). */
public final class Ieth {

    public static final int LENGTH = 4;

    private Ieth() {
    }

    public static int rkey(ByteBuffer buf, int off) {
        return buf.getInt(off);
    }

    public static void write(ByteBuffer buf, int off, int rkey) {
        buf.putInt(off, rkey);
    }
}

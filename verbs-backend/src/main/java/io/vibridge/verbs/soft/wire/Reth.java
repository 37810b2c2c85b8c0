package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/** RDMA Extended Transport Header, 16 bytes (REF §3.1). */
public final class Reth {

    public static final int LENGTH = 16;

    private Reth() {
    }

    public static long virtualAddress(ByteBuffer buf, int off) {
        return buf.getLong(off);
    }

    public static int rkey(ByteBuffer buf, int off) {
        return buf.getInt(off + 8);
    }

    /** Total DMA length of the whole message, unsigned 32-bit. */
    public static long dmaLength(ByteBuffer buf, int off) {
        return buf.getInt(off + 12) & 0xFFFF_FFFFL;
    }

    /** @param dmaLength unsigned 32-bit total message length */
    public static void write(ByteBuffer buf, int off, long va, int rkey, long dmaLength) {
        if ((dmaLength & ~0xFFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("RETH DMA length out of range: " + dmaLength);
        }
        buf.putLong(off, va);
        buf.putInt(off + 8, rkey);
        buf.putInt(off + 12, (int) dmaLength);
    }
}

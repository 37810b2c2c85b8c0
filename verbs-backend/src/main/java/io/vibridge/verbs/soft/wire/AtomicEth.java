package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * Atomic Extended Transport Header (CmpSwap / FetchAdd), 28 bytes, and the 8-byte AtomicAckETH
 * (REF §3.6).
 */
public final class AtomicEth {

    public static final int LENGTH = 28;
    public static final int ACK_LENGTH = 8;

    private AtomicEth() {
    }

    public static long virtualAddress(ByteBuffer buf, int off) {
        return buf.getLong(off);
    }

    public static int rkey(ByteBuffer buf, int off) {
        return buf.getInt(off + 8);
    }

    /** Swap data (CmpSwap) or add data (FetchAdd). */
    public static long swapOrAdd(ByteBuffer buf, int off) {
        return buf.getLong(off + 12);
    }

    /** Compare data (CmpSwap; ignored by FetchAdd). */
    public static long compare(ByteBuffer buf, int off) {
        return buf.getLong(off + 20);
    }

    public static void write(ByteBuffer buf, int off, long va, int rkey, long swapOrAdd, long compare) {
        buf.putLong(off, va);
        buf.putInt(off + 8, rkey);
        buf.putLong(off + 12, swapOrAdd);
        buf.putLong(off + 20, compare);
    }

    /** AtomicAckETH: original value at the target before the operation. */
    public static long originalValue(ByteBuffer buf, int off) {
        return buf.getLong(off);
    }

    public static void writeAck(ByteBuffer buf, int off, long originalValue) {
        buf.putLong(off, originalValue);
    }
}

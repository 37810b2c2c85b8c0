package io.vibridge.vitcp.engine;

import java.nio.ByteBuffer;

/**
 * Room for one unit of input collected across reads (a connection segment, a seed-004 frame): the buffer
 * grows with the bytes that have arrived, doubling, and never to the length a header merely claims. A peer
 * that sends a 24-byte header claiming 65,535 bytes costs what it sent, not what it claimed.
 * Once grown a buffer is kept for the next unit, so steady traffic allocates nothing.
 */
final class GrowingInput {

    /** The first size: a Connect Request, its connection header and HMAC fit (VITCP-PROFILE §4). */
    static final int INITIAL = 256;

    private GrowingInput() {
    }

    /**
     * {@code b} (null: none yet) if it holds {@code needed} bytes, else a larger buffer with {@code b}'s bytes
     * [0, position) copied and the position after them: twice the capacity, at least {@code needed}, at most
     * {@code max} (the unit's whole length, {@code needed <= max}).
     */
    static ByteBuffer room(ByteBuffer b, int needed, int max) {
        if (b != null && b.capacity() >= needed) {
            return b;
        }
        int capacity = Math.min(max, Math.max(needed, b == null ? INITIAL : b.capacity() * 2));
        ByteBuffer grown = ByteBuffer.allocate(capacity);
        if (b != null) {
            grown.put(b.flip());
        }
        return grown;
    }
}

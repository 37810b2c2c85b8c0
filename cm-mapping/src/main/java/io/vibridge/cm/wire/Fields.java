package io.vibridge.cm.wire;

import io.vibridge.cm.CmFormatException;
import java.nio.ByteBuffer;

/** Small checks shared by the codecs; each failure is a {@link CmFormatException}. */
public final class Fields {

    private Fields() {
    }

    /**
     * Requires {@code needed} readable bytes at the buffer's position, else a {@link
     * CmFormatException} on pseudo-field {@code "length"} naming the message.
     */
    public static void requireRemaining(ByteBuffer buf, int needed, String message) {
        if (buf.remaining() < needed) {
            throw new CmFormatException(message, "length", -1,
                    "needs at least " + needed + " bytes, got " + buf.remaining());
        }
    }

    /** Requires {@code value} in {@code [0, max]} for a constructor argument. */
    public static int requireRange(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be in 0.." + max + ", got " + value);
        }
        return value;
    }

    /** Requires {@code value} in {@code [0, 2^32-1]} for an unsigned 32-bit constructor argument. */
    public static long requireU32(String name, long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(name + " must be in 0..4294967295, got " + value);
        }
        return value;
    }
}

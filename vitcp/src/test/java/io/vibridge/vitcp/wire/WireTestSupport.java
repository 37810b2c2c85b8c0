package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.ToIntFunction;

/** Helpers shared by the wire tests. */
final class WireTestSupport {

    /** Junk byte around every segment, so an encoder that skips a byte is caught. */
    static final byte JUNK = 0x5A;
    /** Segments are placed at this offset, so absolute-offset bugs are caught. */
    static final int PREFIX = 7;

    private WireTestSupport() {
    }

    static byte[] bytes(int... v) {
        byte[] r = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = (byte) v[i];
        }
        return r;
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] r = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, r, at, p.length);
            at += p.length;
        }
        return r;
    }

    /**
     * A buffer holding {@code segment} at {@link #PREFIX}, junk around it, in little-endian order
     * (the codec must be big-endian regardless).
     */
    static ByteBuffer placed(byte[] segment) {
        ByteBuffer bb = ByteBuffer.allocate(PREFIX + segment.length + 5).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < bb.capacity(); i++) {
            bb.put(i, JUNK);
        }
        bb.put(PREFIX, segment);
        return bb;
    }

    /** Runs {@code encoder} at {@link #PREFIX} over a junk-filled buffer and returns the written bytes. */
    static byte[] encoded(int capacity, ToIntFunction<ByteBuffer> encoder) {
        ByteBuffer bb = ByteBuffer.allocate(PREFIX + capacity).order(ByteOrder.LITTLE_ENDIAN);
        Arrays.fill(bb.array(), JUNK);
        int n = encoder.applyAsInt(bb);
        return Arrays.copyOfRange(bb.array(), PREFIX, PREFIX + n);
    }
}

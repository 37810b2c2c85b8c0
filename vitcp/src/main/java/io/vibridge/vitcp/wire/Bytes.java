package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Big-endian absolute accessors that ignore the buffer's own {@link ByteBuffer#order()}
 * (VITCP-PROFILE: all multi-byte fields are network order). Allocation-free.
 */
final class Bytes {

    private Bytes() {
    }

    static int u8(ByteBuffer b, int at) {
        return b.get(at) & 0xFF;
    }

    static int u16(ByteBuffer b, int at) {
        short s = b.getShort(at);
        return (b.order() == ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s)) & 0xFFFF;
    }

    static int i32(ByteBuffer b, int at) {
        int v = b.getInt(at);
        return b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    static long u32(ByteBuffer b, int at) {
        return i32(b, at) & 0xFFFF_FFFFL;
    }

    static long i64(ByteBuffer b, int at) {
        long v = b.getLong(at);
        return b.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    static void put8(ByteBuffer b, int at, int v) {
        b.put(at, (byte) v);
    }

    static void put16(ByteBuffer b, int at, int v) {
        short s = (short) v;
        b.putShort(at, b.order() == ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s));
    }

    static void put32(ByteBuffer b, int at, int v) {
        b.putInt(at, b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v));
    }

    static void put64(ByteBuffer b, int at, long v) {
        b.putLong(at, b.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v));
    }

    /** Rounds up to a multiple of 4 (CE header padding, VITCP-PROFILE §5). */
    static int pad4(int n) {
        return (n + 3) & ~3;
    }
}

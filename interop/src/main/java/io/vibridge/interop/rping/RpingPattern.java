package io.vibridge.interop.rping;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The "ping" data of rping's client (librdmacm/examples/rping.c, rping_test_client), so that our server can
 * check what it READs from a real client and our client sends exactly what rping sends:
 *
 * <pre>
 * start = 65;
 * for (ping = 0; !cb->count || ping &lt; cb->count; ping++) {
 *     cc = snprintf(cb->start_buf, cb->size, RPING_MSG_FMT, ping);      // "rdma-ping-%d: "
 *     for (i = cc, c = start; i &lt; cb->size; i++) {
 *         cb->start_buf[i] = c;
 *         c++;
 *         if (c > 122)
 *             c = 65;
 *     }
 *     start++;
 *     if (start > 122)
 *         start = 65;
 *     cb->start_buf[cb->size - 1] = 0;
 * </pre>
 *
 * <p>So ping {@code n} is the text {@code "rdma-ping-n: "}, then ASCII 'A' (65) .. 'z' (122) starting at
 * {@code 65 + n % 58} and wrapping to 'A', and a NUL as the last byte.
 */
public final class RpingPattern {
    /** rping.c: {@code RPING_MIN_BUFSIZE = sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)} = 11 + 15. */
    public static final int MIN_SIZE = 26;
    /** rping.c: {@code -S} is refused above {@code RPING_BUFSIZE - 1} = 64 KiB - 1. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** rping.c: the default {@code cb->size}. */
    public static final int DEFAULT_SIZE = 64;

    private static final int FIRST = 65;
    private static final int LAST = 122;

    private RpingPattern() {
    }

    /** The first letter of ping {@code ping}: {@code start} after {@code ping} increments. */
    static int start(int ping) {
        return FIRST + Math.floorMod(ping, LAST - FIRST + 1);
    }

    /** Writes ping {@code ping}'s {@code size} bytes at {@code offset} of {@code buf} (absolute indexes). */
    public static void fill(ByteBuffer buf, int offset, int ping, int size) {
        if (size <= 0) {
            return;
        }
        byte[] text = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int cc = text.length;                              // snprintf's return: the length it wanted to write
        int copied = Math.min(cc, size - 1);               // snprintf writes at most size - 1 characters + NUL
        buf.put(offset, text, 0, copied);
        buf.put(offset + copied, (byte) 0);
        int c = start(ping);
        for (int i = cc; i < size; i++) {
            buf.put(offset + i, (byte) c);
            c++;
            if (c > LAST) {
                c = FIRST;
            }
        }
        buf.put(offset + size - 1, (byte) 0);
    }

    /** Ping {@code ping}'s bytes. */
    public static byte[] of(int ping, int size) {
        byte[] out = new byte[size];
        fill(ByteBuffer.wrap(out), 0, ping, size);
        return out;
    }

    /** First offset where the {@code length} bytes differ, or -1 if they are equal ({@code memcmp} == 0). */
    public static int firstMismatch(ByteBuffer a, int aOffset, ByteBuffer b, int bOffset, int length) {
        int n = a.slice(aOffset, length).mismatch(b.slice(bOffset, length));
        return n < 0 || n >= length ? -1 : n;
    }

    /** {@code strlen}, bounded: the offset of the first NUL from {@code offset}, or {@code max} if none. */
    public static int strlen(ByteBuffer buf, int offset, int max) {
        for (int i = 0; i < max; i++) {
            if (buf.get(offset + i) == 0) {
                return i;
            }
        }
        return max;
    }

    /** The C string at {@code offset} (at most {@code max} bytes), as {@code printf("%s")} shows ASCII. */
    public static String cString(ByteBuffer buf, int offset, int max) {
        byte[] b = new byte[strlen(buf, offset, max)];
        buf.get(offset, b);
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}

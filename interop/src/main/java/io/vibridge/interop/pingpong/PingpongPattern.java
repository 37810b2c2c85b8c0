package io.vibridge.interop.pingpong;

import java.nio.ByteBuffer;

/**
 * The bytes ibv_rc_pingpong exchanges (libibverbs/examples/rc_pingpong.c). Both sides fill their one buffer
 * with {@code memset(ctx->buf, 0x7b, size)} and send it and receive into it. With {@code -c} the client first
 * writes {@code ctx->buf[i] = i / page_size % sizeof(char)} at every page start, i.e. 0, and the server checks
 * those bytes at the end. The server only sends after it received, so it echoes the client's bytes: the client
 * always gets its own pattern back; the server gets 0 at page starts exactly when the client ran with
 * {@code -c}.
 */
final class PingpongPattern {
    /** {@code memset(ctx->buf, 0x7b, size)}. */
    static final byte FILL = 0x7b;
    /** {@code sysconf(_SC_PAGESIZE)} on the x86-64 peers. */
    static final int PAGE_SIZE = 4096;

    private PingpongPattern() {
    }

    static void fill(ByteBuffer buf, int size) {
        for (int i = 0; i < size; i++) {
            buf.put(i, FILL);
        }
    }

    /** The client's {@code -c}: a zero at each page start. */
    static void markPages(ByteBuffer buf, int size) {
        for (int i = 0; i < size; i += PAGE_SIZE) {
            buf.put(i, (byte) 0);
        }
    }

    /**
     * The first offset of a received message that is not what an rc_pingpong peer sends, or -1. Page-start
     * bytes: 0 when {@code chk} (both sides given {@code -c}), else 0x7b, except that a server cannot know
     * whether the client ran with {@code -c} and accepts either then.
     */
    static int firstBad(ByteBuffer buf, int size, boolean chk, boolean server) {
        for (int i = 0; i < size; i++) {
            byte b = buf.get(i);
            if (i % PAGE_SIZE != 0) {
                if (b != FILL) {
                    return i;
                }
            } else if (chk ? b != 0 : (b != FILL && !(server && b == 0))) {
                return i;
            }
        }
        return -1;
    }
}

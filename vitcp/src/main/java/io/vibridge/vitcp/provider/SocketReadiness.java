package io.vibridge.vitcp.provider;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * Polling mode's way to block: a connection's socket is non-blocking, so a thread whose idle strategy has run
 * out waits here, on a selector of its own, until the socket is readable (or writable) again. Opened on first
 * use: a connection that never idles that long, or a NIC that does not poll, opens none. One thread at a time.
 */
final class SocketReadiness {
    private final SocketChannel channel;
    private final int op;
    private Selector selector;
    private volatile boolean closed;

    SocketReadiness(SocketChannel channel, int op) {
        this.channel = channel;
        this.op = op;
    }

    /** Blocks until the socket is ready for the operation, or {@link #close} is called. */
    void await() throws IOException {
        Selector s;
        synchronized (this) {
            if (closed) {
                return;
            }
            if (selector == null) {
                selector = Selector.open();
                channel.register(selector, op);
            }
            s = selector;
        }
        try {
            s.select();
            s.selectedKeys().clear();
        } catch (ClosedSelectorException e) {
            // closed meanwhile: the caller sees its connection closed
        }
    }

    /** Wakes a waiting thread for good and releases the selector. */
    synchronized void close() {
        closed = true;
        if (selector != null) {
            try {
                selector.close();                               // wakes a thread in select()
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}

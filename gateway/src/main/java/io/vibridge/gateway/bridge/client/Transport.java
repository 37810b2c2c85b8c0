package io.vibridge.gateway.bridge.client;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;

/**
 * The byte stream under a {@link ClientSocket}: a client's TCP connection in the gateway
 * ({@link NetSocketTransport}), memory in the connection's lifecycle tests. Called on one thread, the
 * connection's.
 */
public interface Transport {
    /** Where a transport delivers what it reads, and that it ended. */
    interface Receiver {
        /** The next bytes read; the receiver owns {@code data} (releases it). */
        void onData(ByteBuf data);

        /** A socket error (the stream closes after it, or carries on). */
        void onError(Throwable error);

        /** Either end closed the stream; nothing more is read or written. */
        void onClosed();
    }

    /** Starts delivering to {@code receiver}. */
    void start(Receiver receiver);

    /** Stops reading (what was read is still delivered). */
    void pause();

    void resume();

    /** Whether writes should wait; {@link #whenDrained} tells when they may go on. */
    boolean writeQueueFull();

    /** Runs {@code onDrain} once, when a full write queue has room again. */
    void whenDrained(Runnable onDrain);

    /** Writes {@code data}, taking ownership: it is released once written, or dropped on close. */
    void write(ByteBuf data);

    /** Half-closes after what was written. */
    void end();

    /** Closes now; {@link Receiver#onClosed} follows. */
    void close();

    /** The peer's address (the loopback address when unknown). */
    InetAddress remoteAddress();

    int remotePort();
}

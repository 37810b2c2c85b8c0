package io.vibridge.gateway.bridge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vibridge.gateway.bridge.client.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.Executor;

/**
 * A client connection in memory, for the connection's lifecycle tests: the test {@link #input}s the client's
 * bytes and reads what the gateway {@link #written}; ending it is answered by the client's close, as a TCP peer
 * that reads to EOF does. Confined to the connection's context, like a socket.
 */
final class MemoryTransport implements Transport {
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    /** Runs a task on the connection's context, later (as the network answers later). */
    private final Executor later;
    private Receiver receiver;
    boolean paused;
    boolean ended;
    boolean closed;

    MemoryTransport(Executor later) {
        this.later = later;
    }

    @Override
    public void start(Receiver r) {
        receiver = r;
    }

    /** The client sends {@code bytes}. */
    void input(byte[] bytes) {
        receiver.onData(Unpooled.copiedBuffer(bytes));
    }

    /** The client closes its socket. */
    void clientCloses() {
        if (!closed) {
            closed = true;
            receiver.onClosed();
        }
    }

    /** What the gateway wrote to the client so far. */
    byte[] written() {
        return written.toByteArray();
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
    }

    @Override
    public boolean writeQueueFull() {
        return false;
    }

    @Override
    public void whenDrained(Runnable onDrain) {
    }

    @Override
    public void write(ByteBuf data) {
        try {
            data.readBytes(written, data.readableBytes());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } finally {
            data.release();
        }
    }

    @Override
    public void end() {
        ended = true;
        later.execute(this::clientCloses); // the client reads EOF and closes
    }

    @Override
    public void close() {
        later.execute(this::clientCloses);
    }

    @Override
    public InetAddress remoteAddress() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    public int remotePort() {
        return 40000;
    }
}

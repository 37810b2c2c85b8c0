package io.vibridge.gateway.bridge.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import java.net.InetAddress;

/** A client's TCP connection as Vert.x accepted it: the one place a bridge meets Vert.x and Netty's channel. */
public final class NetSocketTransport implements Transport {
    private final NetSocket socket;
    /** The same socket, for pooled Netty buffers in and out without a wrapper (null if Vert.x hands another kind). */
    private final NetSocketInternal raw;
    private Runnable onDrain;

    public NetSocketTransport(NetSocket socket) {
        this.socket = socket;
        this.raw = socket instanceof NetSocketInternal si ? si : null;
    }

    @Override
    public void start(Receiver receiver) {
        if (raw != null) {
            raw.messageHandler(msg -> { // Netty's buffers as they are: no copy to a heap Buffer
                if (msg instanceof ByteBuf b) {
                    receiver.onData(b);
                } else {
                    ReferenceCountUtil.release(msg);
                }
            });
        } else {
            socket.handler(b -> receiver.onData(Unpooled.wrappedBuffer(b.getBytes())));
        }
        socket.closeHandler(v -> receiver.onClosed());
        socket.exceptionHandler(receiver::onError);
    }

    @Override
    public void pause() {
        socket.pause();
    }

    @Override
    public void resume() {
        socket.resume();
    }

    @Override
    public boolean writeQueueFull() {
        return socket.writeQueueFull();
    }

    @Override
    public void whenDrained(Runnable onDrain) {
        if (this.onDrain == null) {
            socket.drainHandler(v -> this.onDrain.run()); // the handler stays set: one for the connection's life
        }
        this.onDrain = onDrain;
    }

    @Override
    public void write(ByteBuf data) {
        if (raw != null) {
            // the pooled buffer goes to Netty as it is, which releases it once written (or the channel closed): no
            // Buffer wrapper and no completion listener per batch
            raw.writeMessage(data);
        } else {
            // Vert.x writes an unreleasable duplicate: the pooled buffer is ours to release once written
            socket.write(BufferInternal.buffer(data)).onComplete(ar -> data.release());
        }
    }

    @Override
    public void end() {
        socket.end();
    }

    @Override
    public void close() {
        socket.close();
    }

    @Override
    public InetAddress remoteAddress() {
        try {
            return InetAddress.ofLiteral(socket.remoteAddress().hostAddress());
        } catch (RuntimeException e) { // no address (a closed socket) or not an IP literal
            return InetAddress.getLoopbackAddress();
        }
    }

    @Override
    public int remotePort() {
        return socket.remoteAddress() == null ? 0 : socket.remoteAddress().port();
    }

    @Override
    public String toString() {
        return "writeQueueFull=" + socket.writeQueueFull();
    }
}

package io.vibridge.gateway.bridge.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.GatewayMetrics;
import java.nio.ByteBuffer;
import org.slf4j.Logger;

/**
 * A client's TCP connection for a sans-I/O stream engine that lays its messages out into the caller's
 * buffer (the iWARP front end): the one place that bridge meets Vert.x and Netty.
 *
 * <p>Input: each read's pooled buffer goes to the {@link Stream} as it is (no copy); what it leaves is
 * kept, the socket pauses, and {@link #resumeInput} continues with it; bytes that arrive meanwhile are
 * cumulated behind it ({@link ByteToMessageDecoder#MERGE_CUMULATOR}; bounded: Vert.x stops reading once
 * paused). Output: {@link #reserve} a view at the end of a pooled batch buffer, lay a message out in it,
 * {@link #commit}; {@link #flush} writes the batch as it is (Netty releases it once written).
 */
public final class StreamChannel {
    private final Logger log;
    private static final int OUT_BATCH = 128 * 1024;

    /** The engine side: takes input, and writes when asked. */
    public interface Stream {
        /** Consumes what it can of {@code in} (its position advances past what was taken). */
        void receive(ByteBuffer in);

        /** Whether input left untaken waits for later (the socket pauses) rather than being dropped. */
        boolean takesMore();

        /** Input was fed, or the TCP write queue drained: write what is due. */
        void pump();

        /** The socket closed (either end). */
        void closed();
    }

    private final long connId;
    private final NetSocket socket;
    private final NetSocketInternal raw;
    private final GatewayMetrics.ClientBytes traffic;
    private Stream stream;
    private ByteBuf held;
    private boolean paused;
    private boolean inputDone;
    private boolean feeding;
    private boolean feedAgain;
    private boolean closed;
    private boolean endSent;
    private ByteBuf out;
    private int reservedAt;
    private volatile long bytesIn;
    private volatile long bytesOut;

    public StreamChannel(long connId, NetSocket socket, GatewayMetrics.ClientBytes traffic) {
        this.connId = connId;
        this.log = ConnectionLogger.of(StreamChannel.class, connId);
        this.socket = socket;
        this.raw = socket instanceof NetSocketInternal si ? si : null;
        this.traffic = traffic;
    }

    /** Wires the socket's handlers to {@code s}; call on the socket's context. */
    public void start(Stream s) {
        this.stream = s;
        if (raw != null) {
            raw.messageHandler(m -> {
                if (m instanceof ByteBuf b) {
                    onData(b);
                } else {
                    ReferenceCountUtil.release(m);
                }
            });
        } else {
            socket.handler(b -> onData(Unpooled.wrappedBuffer(b.getBytes())));
        }
        socket.closeHandler(v -> onClosed());
        socket.exceptionHandler(e -> log.debug("conn {} socket error: {}", connId, e.toString()));
    }

    /** The peer's address as text ("" when unknown). */
    public String remoteHost() {
        return socket.remoteAddress() == null ? "" : socket.remoteAddress().hostAddress();
    }

    public int remotePort() {
        return socket.remoteAddress() == null ? 0 : socket.remoteAddress().port();
    }

    // ---------------------------------------------------------------------------- input

    private void onData(ByteBuf b) {
        if (closed || inputDone) {
            b.release();
            return;
        }
        held = held == null ? b : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(PooledByteBufAllocator.DEFAULT, held, b);
        feed();
    }

    /** Re-entrant calls (a callback frees room, which resumes input) only ask the running pass for another round. */
    private void feed() {
        if (feeding) {
            feedAgain = true;
            return;
        }
        feeding = true;
        try {
            do {
                feedAgain = false;
                feedOnce();
            } while (feedAgain && !closed);
        } finally {
            feeding = false;
        }
        stream.pump();
    }

    private void feedOnce() {
        ByteBuf b = held;
        if (b == null) {
            return;
        }
        b.retain(); // stays readable here even if the stream drops the input meanwhile
        try {
            ByteBuffer nio = b.internalNioBuffer(b.readerIndex(), b.readableBytes());
            int start = nio.position();
            stream.receive(nio);
            int used = nio.position() - start;
            bytesIn += used;
            traffic.in().increment(used);
            if (held == b) {
                b.skipBytes(used);
                if (!b.isReadable()) {
                    dropInput();
                }
            }
        } finally {
            b.release();
        }
        if (held != null && stream.takesMore()) {
            if (!paused) {
                paused = true;
                socket.pause(); // the stream cannot take the next message yet: wait for resumeInput
            }
        } else {
            dropInput();
            if (paused && !inputDone) {
                paused = false;
                socket.resume();
            }
        }
    }

    /** Room came back: continue with held input. */
    public void resumeInput() {
        if (!closed && held != null) {
            feed();
        }
    }

    /** No more input is wanted (the stream is ending): what arrives from now on is dropped, reading stops. */
    public void stopInput() {
        inputDone = true;
        dropInput();
        if (!paused && !closed) {
            paused = true;
            socket.pause();
        }
    }

    private void dropInput() {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    // ---------------------------------------------------------------------------- output

    /** Whether TCP takes no more for now ({@link Stream#pump} runs again once it drained). */
    public boolean writeQueueFull() {
        return closed || socket.writeQueueFull();
    }

    /** Room for {@code n} bytes at the end of the output batch, as a view positioned there. */
    public ByteBuffer reserve(int n) {
        if (out != null && out.writableBytes() < n) {
            flush();
        }
        if (out == null) {
            out = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(n, OUT_BATCH));
        }
        ByteBuffer view = out.internalNioBuffer(out.writerIndex(), n);
        reservedAt = view.position(); // a pooled buffer's view is positioned in its chunk, not at 0
        return view;
    }

    /** The message laid out into the last {@link #reserve} view joins the batch. */
    public void commit(ByteBuffer view) {
        out.writerIndex(out.writerIndex() + view.position() - reservedAt);
    }

    /** Writes the batch; asks for a {@link Stream#pump} once a full write queue drained. */
    public void flush() {
        ByteBuf b = out;
        out = null;
        if (b != null) {
            if (closed || !b.isReadable()) {
                b.release();
            } else {
                int n = b.readableBytes();
                bytesOut += n;
                traffic.out().increment(n);
                if (raw != null) {
                    raw.writeMessage(b); // released by Netty once written
                } else {
                    socket.write(BufferInternal.buffer(b)).onComplete(ar -> b.release());
                }
            }
        }
        if (!closed && socket.writeQueueFull()) {
            socket.drainHandler(v -> stream.pump());
        }
    }

    /** Half-closes TCP after what was written (once). */
    public void end() {
        if (!endSent && !closed) {
            endSent = true;
            flush();
            socket.end();
        }
    }

    /** Closes the socket now. */
    public void close() {
        if (!closed) {
            socket.close();
        }
    }

    private void onClosed() {
        closed = true;
        dropInput();
        if (out != null) {
            out.release();
            out = null;
        }
        stream.closed();
    }

    public boolean closed() {
        return closed;
    }

    public long bytesIn() {
        return bytesIn;
    }

    public long bytesOut() {
        return bytesOut;
    }
}

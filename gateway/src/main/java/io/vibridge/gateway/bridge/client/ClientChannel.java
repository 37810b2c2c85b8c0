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
import io.vibridge.vitcp.engine.ViConnection;
import java.nio.ByteBuffer;
import org.slf4j.Logger;

/**
 * The client's TCP connection, the one place the bridge meets Vert.x and Netty: client bytes go to
 * the VI engine as Netty read them, the engine's output goes to the socket.
 *
 * <p>Input: each read's pooled buffer is handed to {@link ViConnection#receive} as it is (no copy).
 * When the engine stops early (a new message was not admitted: no free staging slot) the rest is
 * kept, the socket pauses, and {@link #resumeInput} continues with it; bytes that arrive meanwhile
 * are cumulated behind it with Netty's {@link ByteToMessageDecoder#MERGE_CUMULATOR} (bounded: Vert.x
 * stops reading once paused).
 *
 * <p>Output: {@link #pump} moves the engine's segments into pooled buffers of up to
 * {@link #OUT_BATCH} bytes written as they are; while the TCP write queue is full production stops
 * and resumes from the drain handler.
 */
public final class ClientChannel {
    private final Logger log;
    private static final int OUT_BATCH = 128 * 1024;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final long connId;
    private final NetSocket socket;
    /** The same socket, for writing pooled Netty buffers without a wrapper (null if Vert.x hands another kind). */
    private final NetSocketInternal raw;
    private final ViConnection engine;
    /** Runs once the socket closed (either end). */
    private final Runnable onClosed;
    /** Runs after each {@link ViConnection#written()}, outside the engine (its callbacks must not call back in). */
    private final Runnable afterWritten;
    private final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    private final ByteBuffer[] io = new ByteBuffer[4];

    /** Input not consumed yet (pooled, direct), or null. */
    private ByteBuf held;
    private boolean paused;
    /** Draining: held input is still fed to the engine, but the socket is not read again. */
    private boolean draining;
    private boolean closed;
    private boolean endSent;
    private boolean feeding;
    private boolean feedAgain;
    private boolean pumping;
    private boolean pumpAgain;
    private volatile long bytesIn;
    private volatile long bytesOut;
    /** The gateway-wide counters of this connection's encapsulation. */
    private final GatewayMetrics.ClientBytes traffic;

    public ClientChannel(long connId, NetSocket socket, ViConnection engine, GatewayMetrics.ClientBytes traffic,
                         Runnable afterWritten, Runnable onClosed) {
        this.connId = connId;
        this.log = ConnectionLogger.of(ClientChannel.class, connId);
        this.traffic = traffic;
        this.socket = socket;
        this.raw = socket instanceof NetSocketInternal si ? si : null;
        this.engine = engine;
        this.onClosed = onClosed;
        this.afterWritten = afterWritten;
    }

    /** Wires the socket's handlers; call on the socket's context. */
    public void start() {
        if (raw != null) {
            raw.messageHandler(this::onMessage); // Netty's buffers as they are: no copy to a heap Buffer
        } else {
            socket.handler(b -> onData(Unpooled.wrappedBuffer(b.getBytes())));
        }
        socket.closeHandler(v -> onClosed());
        socket.exceptionHandler(e -> log.debug("conn {} socket error: {}", connId, e.toString()));
    }

    // ---------------------------------------------------------------------------- input

    private void onMessage(Object msg) {
        if (msg instanceof ByteBuf b) {
            onData(b);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Takes ownership of {@code b}. */
    private void onData(ByteBuf b) {
        if (closed) {
            b.release();
            return;
        }
        held = held == null ? b : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(PooledByteBufAllocator.DEFAULT, held, b);
        feed();
    }

    /**
     * Hands held input to the engine until it is consumed or the engine stops taking it. Re-entrant calls
     * (an engine callback frees a slot, which resumes input) only ask the running pass for another round:
     * the bytes being fed are skipped only once {@code receive} returned.
     */
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
            pump();
        }
    }

    private void feedOnce() {
        ByteBuf b = held;
        if (b == null) {
            engine.receive(EMPTY); // the engine holds a refused header: it asks for admission again
        } else {
            b.retain(); // stays readable here even if a hostile segment drops the input meanwhile
            try {
                ByteBuffer nio = b.internalNioBuffer(b.readerIndex(), b.readableBytes()); // consumed right here
                int start = nio.position();
                engine.receive(nio);
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
        }
        if (held != null && !engine.closeRequested()) {
            pause(); // the engine refused a new message: wait for a free staging slot
        } else {
            dropInput();
            resumeIfIdle();
        }
    }

    /** Stops reading the socket (shutdown drain or backpressure). */
    public void pause() {
        if (!paused) {
            paused = true;
            socket.pause();
        }
    }

    /**
     * The connection drains: a paused socket is not resumed any more (the engine refuses new messages, so
     * input stops at the next one); input already read is still fed to the engine.
     */
    public void draining() {
        draining = true;
    }

    /** A staging slot came back: continue with held input (or let the engine retry a refused header). */
    public void resumeInput() {
        if (closed) {
            return;
        }
        feed();
    }

    private void resumeIfIdle() {
        if (paused && held == null && !draining) {
            paused = false;
            socket.resume();
        }
    }

    private void dropInput() {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    /** Whether input waits for a staging slot (diagnostics). */
    public boolean holdingInput() {
        return held != null;
    }

    // ---------------------------------------------------------------------------- output

    /**
     * Moves the engine's output to the socket. Re-entrant calls (engine callbacks during written() may
     * end in pump()) only ask the running pump for another round, so bytes already copied leave before
     * anything closes the socket.
     */
    public void pump() {
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                pumpOnce();
            } while (pumpAgain && !closed);
        } finally {
            pumping = false;
        }
    }

    private void pumpOnce() {
        if (closed) {
            return;
        }
        if (socket.writeQueueFull()) {
            socket.drainHandler(v -> pump()); // bounded TCP write queue: produce again once it drained
            return;
        }
        ByteBuf out = null;
        try {
            while (engine.hasOutput()) {
                if (out != null && out.readableBytes() >= OUT_BATCH) {
                    write(out);
                    out = null;
                    if (socket.writeQueueFull()) {
                        break;
                    }
                }
                int n = engine.produce(header, io, 0);
                if (n < 0) {
                    break;
                }
                int total = header.remaining();
                for (int i = 0; i < n; i++) {
                    total += io[i].remaining();
                }
                if (out == null) {
                    out = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(total, 16 * 1024));
                }
                out.writeBytes(header);
                for (int i = 0; i < n; i++) {
                    out.writeBytes(io[i]);
                    io[i] = null;
                }
                bytesOut += total;
                engine.written();
                afterWritten.run();
            }
        } catch (RuntimeException e) {
            log.warn("conn {} output failed", connId, e);
            if (out != null) {
                out.release();
            }
            socket.close();
            return;
        }
        if (out != null) {
            write(out);
        }
        if (socket.writeQueueFull()) {
            socket.drainHandler(v -> pump());
        }
        if (engine.closeRequested() && !engine.hasOutput() && !endSent) {
            endSent = true;
            socket.end();
        }
    }

    private void write(ByteBuf out) {
        traffic.out().increment(out.readableBytes());
        if (raw != null) {
            // the pooled buffer goes to Netty as it is, which releases it once written (or the channel closed):
            // no Buffer wrapper and no completion listener per segment
            raw.writeMessage(out);
            return;
        }
        // Vert.x writes an unreleasable duplicate of the buffer: the pooled buffer is ours to release once
        // the bytes went to the socket
        socket.write(BufferInternal.buffer(out)).onComplete(ar -> out.release());
    }

    // ---------------------------------------------------------------------------- close

    /** Closes the socket now (what was written may be lost). */
    public void close() {
        if (!closed) {
            socket.close();
        }
    }

    private void onClosed() {
        closed = true;
        dropInput();
        onClosed.run();
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

    /** Diagnostics. */
    @Override
    public String toString() {
        return "paused=" + paused + " heldInput=" + (held != null) + " writeQueueFull=" + socket.writeQueueFull()
                + " endSent=" + endSent;
    }
}

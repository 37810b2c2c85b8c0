package io.vibridge.gateway.bridge.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.GatewayMetrics;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.slf4j.Logger;

/**
 * A client's byte stream under a sans-I/O engine (the VI/TCP or the iWARP front end): input cumulation,
 * the feed loop, pause and resume, the output batch, over a {@link Transport} (the TCP connection).
 *
 * <p>Input: each read's pooled buffer goes to the {@link Stream} as it is (no copy). What the stream
 * leaves is kept, the socket pauses, and {@link #resumeInput} continues with it; bytes that arrive
 * meanwhile are cumulated behind it with Netty's {@link ByteToMessageDecoder#MERGE_CUMULATOR} (bounded:
 * Vert.x stops reading once paused).
 *
 * <p>Output: the stream lays its messages out in {@link #reserve}d views at the end of a pooled batch
 * buffer and {@link #commit}s them; each {@link #pump} pass ends with a {@link #flush}, which writes the
 * batch as it is (Netty releases it once written). While the TCP write queue is full the stream writes
 * nothing; the queue's drain handler pumps again.
 *
 * <p>Feeding and pumping are each guarded against re-entry: a stream callback that resumes input or
 * asks for output while a pass runs only asks that pass for another round, so bytes being fed are
 * skipped only once the stream returned, and bytes already laid out leave before anything ends the socket.
 */
public final class ClientSocket implements Transport.Receiver {
    private static final int OUT_BATCH = 128 * 1024;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /** The engine side of the socket. */
    public interface Stream {
        /**
         * Consumes what it can of {@code in} (its position advances past what was taken). Called with no
         * bytes when input resumes with nothing held: an engine holding a refused header asks again.
         */
        void receive(ByteBuffer in);

        /** Whether input left untaken waits for later (the socket pauses) rather than being dropped. */
        boolean takesMore();

        /** Lays out what is due through {@link #reserve}/{@link #commit} while {@link #writeQueueFull} is false. */
        void writeOutput();

        /** After a pump, its batch written: the place to end or close the socket. */
        void outputWritten();
    }

    private final Logger log;
    private final long connId;
    private final Transport socket;
    /** The gateway-wide counters of this connection's encapsulation. */
    private final GatewayMetrics.ClientBytes traffic;
    private Stream stream;
    private Runnable closedHandler;
    private final Runnable pumpOnDrain = this::pump;

    /** Input not consumed yet (pooled, direct), or null. */
    private ByteBuf held;
    private boolean paused;
    /** Draining: held input is still fed, but a paused socket is not read again. */
    private boolean draining;
    private boolean feeding;
    private boolean feedAgain;
    private boolean pumping;
    private boolean pumpAgain;
    private boolean closed;
    private boolean endSent;
    private ByteBuf out;
    private int reservedAt;
    private volatile long bytesIn;
    private volatile long bytesOut;

    public ClientSocket(long connId, Transport socket, GatewayMetrics.ClientBytes traffic) {
        this.connId = connId;
        this.log = ConnectionLogger.of(ClientSocket.class, connId);
        this.socket = socket;
        this.traffic = traffic;
    }

    /** Feeds {@code s}, and runs {@code closed} once the socket closed (either end); on the connection's context. */
    public void start(Stream s, Runnable closed) {
        this.stream = s;
        this.closedHandler = closed;
        socket.start(this);
    }

    /** The peer's address (the loopback address when unknown). */
    public InetAddress remoteAddress() {
        return socket.remoteAddress();
    }

    public int remotePort() {
        return socket.remotePort();
    }

    // ---------------------------------------------------------------------------- input

    /** Takes ownership of {@code b}. */
    @Override
    public void onData(ByteBuf b) {
        if (closed) {
            b.release();
            return;
        }
        held = held == null ? b : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(PooledByteBufAllocator.DEFAULT, held, b);
        feed();
    }

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
        pump();
    }

    private void feedOnce() {
        ByteBuf b = held;
        if (b == null) {
            stream.receive(EMPTY);
        } else {
            b.retain(); // stays readable here even if a hostile segment drops the input meanwhile
            try {
                ByteBuffer nio = b.internalNioBuffer(b.readerIndex(), b.readableBytes()); // consumed right here
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
        }
        if (held != null && stream.takesMore()) {
            pause(); // the stream cannot take the next message yet: wait for resumeInput
        } else {
            dropInput();
            if (paused && !draining) {
                paused = false;
                socket.resume();
            }
        }
    }

    /** Stops reading the socket (shutdown drain or backpressure). */
    public void pause() {
        if (!paused) {
            paused = true;
            socket.pause();
        }
    }

    /** A paused socket is not resumed any more; input already read is still fed. */
    public void draining() {
        draining = true;
    }

    /** Room came back: continue with held input (or let the stream retry a refused header). */
    public void resumeInput() {
        if (!closed) {
            feed();
        }
    }

    private void dropInput() {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    // ---------------------------------------------------------------------------- output

    /** Lets the stream write what is due, then writes the batch. */
    public void pump() {
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                if (closed) {
                    break;
                }
                stream.writeOutput();
                flush();
            } while (pumpAgain);
        } catch (RuntimeException e) {
            log.warn("conn {} output failed", connId, e);
            socket.close();
            return;
        } finally {
            pumping = false;
        }
        stream.outputWritten();
    }

    /** Whether TCP takes no more for now (a pump runs again once it drained). */
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

    /** What was laid out into the last {@link #reserve} view joins the batch. */
    public void commit(ByteBuffer view) {
        out.writerIndex(out.writerIndex() + view.position() - reservedAt);
    }

    /** Writes the batch; asks for a pump once a full write queue drained. */
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
                socket.write(b);
            }
        }
        if (!closed && socket.writeQueueFull()) {
            socket.whenDrained(pumpOnDrain);
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

    /** Closes the socket now (what was written may be lost). */
    public void close() {
        if (!closed) {
            socket.close();
        }
    }

    @Override
    public void onError(Throwable e) {
        log.debug("conn {} socket error: {}", connId, e.toString());
    }

    @Override
    public void onClosed() {
        closed = true;
        dropInput();
        if (out != null) {
            out.release();
            out = null;
        }
        closedHandler.run();
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
        return "paused=" + paused + " heldInput=" + (held != null) + " " + socket
                + " endSent=" + endSent;
    }
}

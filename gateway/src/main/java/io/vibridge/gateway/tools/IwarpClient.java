package io.vibridge.gateway.tools;

import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * An iWARP client of the gateway (tests, {@code perf --framing iwarp}) on {@link IwarpConnection#initiator}:
 * blocking, one thread, over a plain {@link SocketChannel}. Its "memory" is a map of STags to buffers
 * (Tagged Offset = index): the target's cut-through WRITEs land there and its READs are answered from
 * there, as an RNIC would. Received Sends and Read Responses are collected whole as byte arrays: a
 * benchmark's figures include that copy.
 */
public final class IwarpClient implements AutoCloseable {
    public final SocketChannel channel;
    public final IwarpConnection engine;
    public final Map<Integer, ByteBuffer> memory = new HashMap<>();
    public final ArrayDeque<byte[]> received = new ArrayDeque<>();
    public final ArrayDeque<byte[]> readsDone = new ArrayDeque<>();
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private final ByteArrayOutputStream currentRead = new ByteArrayOutputStream();
    private final ArrayDeque<ReadRequest> toAnswer = new ArrayDeque<>();
    private final ByteBuffer in = ByteBuffer.allocateDirect(256 * 1024);
    private final Selector selector;
    private final SelectionKey key;
    public Terminate terminate;
    /** The kind of the last Send received, and the STag it asks to invalidate (0 for none). */
    public RdmapOpcode lastSendOpcode;
    public int lastSendInvalidateStag;
    public IwarpProtocolException failure;

    /** Connects to {@code remote} and sends the MPA Request (CRC32C asked for when {@code crc}). */
    public IwarpClient(InetSocketAddress remote, boolean crc, int maxFpdu) throws IOException {
        this(remote, crc, maxFpdu, new byte[0]);
    }

    /** As {@link #IwarpClient(InetSocketAddress, boolean, int)}, the Request carrying the ULP's {@code privateData}. */
    public IwarpClient(InetSocketAddress remote, boolean crc, int maxFpdu, byte[] privateData) throws IOException {
        channel = SocketChannel.open(remote);
        channel.socket().setTcpNoDelay(true);
        channel.configureBlocking(false);
        selector = Selector.open();
        key = channel.register(selector, SelectionKey.OP_READ);
        engine = IwarpConnection.initiator(crc, 4, 4, maxFpdu, privateData, new Handler());
        flushControl();
    }

    /** To the gateway's iWARP listener on 127.0.0.1:{@code port}, FPDUs as siw's at MTU 1500. */
    public IwarpClient(int port, boolean crc) throws IOException {
        this(new InetSocketAddress("127.0.0.1", port), crc, 1448);
    }

    /** Reads until the Reply came (or the stream ended). */
    public IwarpClient awaitEstablished(Duration timeout) throws IOException {
        pollUntil(() -> engine.state() != IwarpConnection.State.AWAITING_REPLY, timeout);
        return this;
    }

    public void send(byte[] payload) throws IOException {
        send(payload, false, 0);
    }

    /** A Send with the Solicited Event bit or not, with Invalidate of {@code invalidateStag} unless it is 0. */
    public void send(byte[] payload, boolean solicited, int invalidateStag) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.SEND, payload.length));
        engine.send(b, ByteBuffer.wrap(payload), 0, payload.length, solicited, invalidateStag);
        write(b.flip());
    }

    public void write(int stag, long to, byte[] payload) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.RDMA_WRITE, payload.length));
        engine.write(b, stag, to, ByteBuffer.wrap(payload), 0, payload.length);
        write(b.flip());
    }

    /** A Read Request of the target's memory; the data comes to {@link #readsDone}. */
    public void read(int stag, long to, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(engine.readRequestLength());
        engine.readRequest(b, length, stag, to, "read");
        write(b.flip());
    }

    public byte[] awaitSend(Duration timeout) throws IOException {
        pollUntil(() -> !received.isEmpty(), timeout);
        return received.poll();
    }

    public byte[] awaitRead(Duration timeout) throws IOException {
        pollUntil(() -> !readsDone.isEmpty(), timeout);
        return readsDone.poll();
    }

    public interface Condition {
        boolean met();
    }

    /** Feeds what arrives to the engine (answering the target's READs) until {@code c} or the stream ends. */
    public void pollUntil(Condition c, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!c.met()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("timed out; engine " + engine.state() + " failure " + failure);
            }
            int n = channel.read(in);
            if (n < 0) {
                throw new IOException("the gateway closed TCP; engine " + engine.state() + ", failure " + failure
                        + ", terminate " + terminate);
            }
            if (n == 0) {
                selector.select(Math.max(1, left / 1_000_000));
                selector.selectedKeys().clear();
                continue;
            }
            in.flip();
            engine.receive(in);
            in.compact();
            flushControl();
            ReadRequest r;
            while ((r = toAnswer.poll()) != null) {
                ByteBuffer src = memory.get(r.sourceStag());
                ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.READ_RESPONSE, r.size()));
                engine.readResponse(b, src, (int) r.sourceOffset());
                write(b.flip());
            }
            if (engine.state() == IwarpConnection.State.TERMINATED && !c.met()) {
                throw new IOException("stream terminated: failure " + failure + ", terminate " + terminate);
            }
        }
    }

    private void flushControl() throws IOException {
        ByteBuffer c;
        while ((c = engine.pollControl()) != null) {
            write(c);
        }
    }

    private void write(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.write(b) == 0) {
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(1000);
                selector.selectedKeys().clear();
                key.interestOps(SelectionKey.OP_READ);
            }
        }
    }

    /** Whether the gateway closed the stream (reads to EOF, feeding the engine, within {@code timeout}). */
    public boolean closedByGateway(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            int n;
            try {
                n = channel.read(in);
            } catch (IOException e) {
                return true;
            }
            if (n < 0) {
                return true;
            }
            if (n > 0) {
                in.flip();
                engine.receive(in);
                in.compact();
            } else {
                selector.select(10);
                selector.selectedKeys().clear();
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        selector.close();
        channel.close();
    }

    /** One segment's payload, in bulk (a segment is at most one FPDU: {@link #segment} holds it). */
    private void collect(ByteArrayOutputStream to, DdpSegment s) {
        int n = s.payloadLength();
        s.buffer().get(s.payloadOffset(), segment, 0, n);
        to.write(segment, 0, n);
    }

    private final byte[] segment = new byte[65536];

    private final class Handler implements IwarpConnection.Handler {
        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            throw new IllegalStateException("an initiator gets no Request");
        }

        @Override
        public boolean send(DdpSegment s) {
            collect(current, s);
            if (s.last()) {
                lastSendOpcode = s.opcode();
                lastSendInvalidateStag = s.invalidateStag();
                received.add(current.toByteArray());
                current.reset();
            }
            return true;
        }

        @Override
        public boolean write(DdpSegment s) {
            ByteBuffer m = memory.get(s.stag());
            if (m == null) {
                throw new IwarpProtocolException(TerminateCode.DDP_TAGGED_INVALID_STAG,
                        "STag", 0, "unknown STag " + s.stag());
            }
            m.put((int) s.taggedOffset(), s.buffer(), s.payloadOffset(), s.payloadLength());
            return true;
        }

        @Override
        public boolean readRequest(ReadRequest r) {
            toAnswer.add(r);
            return true;
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment s) {
            collect(currentRead, s);
            if (s.last()) {
                readsDone.add(currentRead.toByteArray());
                currentRead.reset();
            }
            return true;
        }

        @Override
        public void terminated(Terminate t) {
            terminate = t;
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            failure = cause;
        }
    }
}

package io.vibridge.iwarp.client;

import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One iWARP stream to a peer (an iWARP listener of the vibridge gateway, or any RNIC), with the calls of
 * a verbs queue pair: {@link #connect}, {@link #postRecv}, {@link #postSend} (and {@link #postWrite},
 * {@link #postRead} for RDMA), {@link #poll} for completions, {@link #close}. It runs the
 * {@code io.vibridge.iwarp} engine in the initiator role (MPA revision 2 with the IRD/ORD exchange, RFC 5044
 * §7, RFC 6581) over a TCP socket, on the caller's thread: nothing happens between calls, and
 * {@link #poll} is what reads the stream. Not thread-safe: one thread per endpoint.
 *
 * <p>A Send of the peer lands in the oldest posted receive buffer. With none posted, the stream is
 * not read further until {@link #postRecv} (TCP holds the peer back) instead of being terminated as an
 * RNIC would (DDP's "no buffer available", RFC 5041). A Send longer than that buffer ends the stream with a
 * Terminate (DDP's "message too long"). Memory given to {@link #registerMemory} can be written and
 * read by the peer's RDMA Writes and Reads under the returned STag; their Read Responses are sent from
 * {@link #poll}.
 */
public final class IwarpEndpoint implements AutoCloseable {
    private static final int READ_BUFFER = 256 * 1024;

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final IwarpConnection engine;
    private final ByteBuffer in = ByteBuffer.allocateDirect(READ_BUFFER);
    private ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024);
    private final ArrayDeque<PostedRecv> receives = new ArrayDeque<>();
    private final ArrayDeque<Completion> completions = new ArrayDeque<>();
    private final ArrayDeque<ReadRequest> readsToAnswer = new ArrayDeque<>();
    private final Map<Integer, ByteBuffer> memory = new HashMap<>();
    /** STags this side hands out: key byte 0, never 0 or 1 (siw's RTR Write goes to STag 1). */
    private int nextStag = 0x1000;
    /** Bytes of the peer's current Send placed so far. */
    private int placed;
    /** The engine refused a Send for want of a posted receive: its bytes wait in {@link #in}. */
    private boolean held;
    private IwarpException ended;

    private record PostedRecv(ByteBuffer buffer, long wrId) {
    }

    private record PendingRead(ByteBuffer sink, long wrId) {
    }

    private IwarpEndpoint(SocketChannel channel, IwarpOptions options) throws IOException {
        this.channel = channel;
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
        selector = Selector.open();
        key = channel.register(selector, SelectionKey.OP_READ);
        engine = IwarpConnection.initiator(options.crc(), options.ird(), options.ord(), options.maxFpdu(),
                new Handler());
    }

    /**
     * Opens TCP to {@code remote}, sends the MPA Request and waits for the Reply; returns the stream
     * established, or throws: {@link IwarpException} when the peer rejected the Request (with its reason) or
     * did not answer within {@link IwarpOptions#connectTimeout()}, another {@link IOException} when TCP could
     * not connect.
     */
    public static IwarpEndpoint connect(InetSocketAddress remote, IwarpOptions options) throws IOException {
        SocketChannel ch = SocketChannel.open();
        IwarpEndpoint ep = null;
        try {
            ch.socket().connect(remote, (int) Math.max(1, options.connectTimeout().toMillis()));
            ep = new IwarpEndpoint(ch, options);
            ep.flushControl(); // the MPA Request
            long deadline = System.nanoTime() + options.connectTimeout().toNanos();
            while (ep.engine.state() == IwarpConnection.State.AWAITING_REPLY) {
                if (ep.ended != null) {
                    throw ep.ended;
                }
                if (!ep.readSome(deadline)) {
                    throw new IwarpException("no MPA Reply from " + remote + " within " + options.connectTimeout(), null);
                }
            }
            ep.throwIfEnded();
            return ep;
        } catch (IOException | RuntimeException e) {
            if (ep != null) {
                ep.close();
            } else {
                ch.close();
            }
            throw e;
        }
    }

    /** What the MPA exchange settled: CRC, the IRD and ORD agreed. */
    public MpaSettings settings() {
        return engine.settings();
    }

    public SocketAddress localAddress() throws IOException {
        return channel.getLocalAddress();
    }

    /**
     * Posts {@code buffer}'s remaining bytes (position to limit) to receive one Send of the peer; its
     * {@link Completion} ({@link WorkKind#RECV}) gives the Send's length, written from the buffer's position
     * on (the position itself does not move).
     */
    public void postRecv(ByteBuffer buffer, long wrId) throws IOException {
        throwIfEnded();
        receives.add(new PostedRecv(buffer, wrId));
        if (held) {
            feed(); // the Send that waited for a buffer
        }
    }

    /** Sends {@code message}'s remaining bytes as one Send (its position does not move); completes at once. */
    public void postSend(ByteBuffer message, long wrId) throws IOException {
        requireTransmit();
        int len = message.remaining();
        ByteBuffer o = output(engine.length(RdmapOpcode.SEND, len));
        engine.send(o, message, message.position(), len, false, 0);
        transmit(o);
        completions.add(new Completion(wrId, WorkKind.SEND, len));
    }

    /** RDMA Writes {@code source}'s remaining bytes to the peer's {@code stag} at tagged offset {@code to}. */
    public void postWrite(ByteBuffer source, int stag, long to, long wrId) throws IOException {
        requireTransmit();
        int len = source.remaining();
        ByteBuffer o = output(engine.length(RdmapOpcode.RDMA_WRITE, len));
        engine.write(o, stag, to, source, source.position(), len);
        transmit(o);
        completions.add(new Completion(wrId, WorkKind.RDMA_WRITE, len));
    }

    /**
     * RDMA Reads {@code sink.remaining()} bytes of the peer's {@code stag} at tagged offset {@code to} into
     * {@code sink} from its position on; completes when the whole Read Response has arrived. At most the
     * ORD agreed may be outstanding ({@link #settings()}): beyond, {@link IllegalStateException}.
     */
    public void postRead(ByteBuffer sink, int stag, long to, long wrId) throws IOException {
        requireTransmit();
        if (!engine.canReadRequest()) {
            throw new IllegalStateException("the ORD of " + engine.settings().ord()
                    + " RDMA Reads is used up: poll their completions first");
        }
        ByteBuffer o = output(engine.readRequestLength());
        engine.readRequest(o, sink.remaining(), stag, to, new PendingRead(sink, wrId));
        transmit(o);
    }

    /**
     * Lets the peer RDMA Write and Read {@code region}'s bytes from its position to its limit (tagged
     * offset 0 is the position) under the returned STag, which the application tells the peer.
     */
    public int registerMemory(ByteBuffer region) {
        int stag = nextStag;
        nextStag += 0x100;
        memory.put(stag, region.slice());
        return stag;
    }

    public void deregisterMemory(int stag) {
        memory.remove(stag);
    }

    /**
     * The oldest completion, reading the stream for up to {@code timeout} while there is none; null when
     * none came (at once when a Send of the peer waits for a receive buffer). Completions that came before
     * the stream ended are handed out first; then {@link IwarpException} says how it ended.
     */
    public Completion poll(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (completions.isEmpty()) {
            throwIfEnded();
            if (held || !readSome(deadline)) {
                return null;
            }
        }
        return completions.poll();
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            channel.close();
        }
    }

    // ------------------------------------------------------------------------------------- I/O

    /** Reads what TCP has, waiting until {@code deadline} for something, and feeds it; false at the deadline. */
    private boolean readSome(long deadline) throws IOException {
        int n = channel.read(in);
        if (n == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            selector.selectedKeys().clear();
            n = channel.read(in);
        }
        if (n < 0) {
            ended = new IwarpException("the peer closed the stream" + (engine.failure() == null ? ""
                    : " after " + engine.failure().getMessage()), null);
            throw ended;
        }
        if (n > 0) {
            feed();
        }
        return true;
    }

    private void feed() throws IOException {
        in.flip();
        boolean all = engine.receive(in);
        in.compact();
        held = !all && engine.state() == IwarpConnection.State.ESTABLISHED;
        answerReads();
        flushControl();
    }

    private void answerReads() throws IOException {
        ReadRequest r;
        while ((r = readsToAnswer.poll()) != null) {
            ByteBuffer o = output(engine.length(RdmapOpcode.READ_RESPONSE, r.size()));
            engine.readResponse(o, memory.get(r.sourceStag()), (int) r.sourceOffset());
            transmit(o);
        }
    }

    private void flushControl() throws IOException {
        ByteBuffer c;
        while ((c = engine.pollControl()) != null) {
            writeFully(c);
        }
    }

    /** The output buffer, cleared, with room for {@code bytes} (grown once to the largest message sent). */
    private ByteBuffer output(int bytes) {
        if (out.capacity() < bytes) {
            out = ByteBuffer.allocateDirect(bytes);
        }
        return out.clear();
    }

    private void transmit(ByteBuffer laidOut) throws IOException {
        writeFully(laidOut.flip());
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.write(b) == 0) {
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(1000);
                selector.selectedKeys().clear();
                key.interestOps(SelectionKey.OP_READ);
            }
        }
    }

    private void requireTransmit() throws IwarpException {
        throwIfEnded();
        if (!engine.canTransmit()) {
            throw new IllegalStateException("the stream is " + engine.state() + ": nothing may be sent");
        }
    }

    private void throwIfEnded() throws IwarpException {
        if (ended != null) {
            throw ended;
        }
    }

    /** The engine's deliveries, placed into the application's buffers. */
    private final class Handler implements IwarpConnection.Handler {
        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            throw new IllegalStateException("an initiator gets no MPA Request");
        }

        @Override
        public boolean send(DdpSegment s) {
            PostedRecv r = receives.peek();
            if (r == null) {
                return false; // held until postRecv
            }
            int n = s.payloadLength();
            ByteBuffer b = r.buffer();
            if (placed + n > b.remaining()) {
                throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_TOO_LONG, "MO", 0, "a Send of more than "
                        + "the " + b.remaining() + " bytes of the posted receive");
            }
            b.put(b.position() + placed, s.buffer(), s.payloadOffset(), n);
            placed += n;
            if (s.last()) {
                receives.poll();
                completions.add(new Completion(r.wrId(), WorkKind.RECV, placed));
                placed = 0;
            }
            return true;
        }

        @Override
        public boolean write(DdpSegment s) {
            ByteBuffer m = region(s.stag(), s.taggedOffset(), s.payloadLength(), TerminateCode.DDP_TAGGED_INVALID_STAG,
                    TerminateCode.DDP_TAGGED_BASE_BOUNDS);
            m.put((int) s.taggedOffset(), s.buffer(), s.payloadOffset(), s.payloadLength());
            return true;
        }

        @Override
        public boolean readRequest(ReadRequest r) {
            region(r.sourceStag(), r.sourceOffset(), r.sizeUnsigned(), TerminateCode.RDMAP_INVALID_STAG,
                    TerminateCode.RDMAP_BASE_BOUNDS);
            readsToAnswer.add(r); // answered once the engine has returned, in the order they came
            return true;
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment s) {
            PendingRead p = (PendingRead) token;
            p.sink().put(p.sink().position() + (int) offset, s.buffer(), s.payloadOffset(), s.payloadLength());
            if (s.last()) {
                completions.add(new Completion(p.wrId(), WorkKind.RDMA_READ, (int) offset + s.payloadLength()));
            }
            return true;
        }

        @Override
        public void terminated(Terminate t) {
            ended = new IwarpException("the peer terminated the stream: " + t, t.code());
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            ended = new IwarpException("the stream failed: " + cause.getMessage(), cause.code());
        }

        /** The registered region {@code stag} if it holds {@code [offset, offset + length)}; else the Terminate's error. */
        private ByteBuffer region(int stag, long offset, long length, TerminateCode noSuchStag, TerminateCode outOfBounds) {
            ByteBuffer m = memory.get(stag);
            if (m == null) {
                throw new IwarpProtocolException(noSuchStag, "STag", 0, String.format("unknown STag 0x%08x", stag));
            }
            if (offset < 0 || offset + length > m.limit()) {
                throw new IwarpProtocolException(outOfBounds, "Tagged Offset", 0, length + " bytes at " + offset
                        + String.format(" of STag 0x%08x", stag) + ", which holds " + m.limit());
            }
            return m;
        }
    }
}

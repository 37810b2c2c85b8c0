package io.vibridge.iwarp.client;

import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The far side of the tests: the iwarp engine's responder role on one loopback connection, on a thread of
 * its own, with a region of memory under {@link #STAG} for the client's RDMA. Each whole Send of the client
 * is a command: {@code W stag to length} RDMA Writes a pattern into the client's memory and then sends
 * "written"; {@code R stag to length} RDMA Reads the client's memory and sends back what it read; {@code L n}
 * sends n bytes; anything else is echoed.
 */
final class ResponderPeer implements AutoCloseable {
    static final int STAG = 0x77;

    final ByteBuffer region = ByteBuffer.allocate(64 * 1024);
    private final ServerSocketChannel server;
    private final Thread thread;
    private final boolean reject;
    private IwarpConnection engine;
    private final ArrayDeque<byte[]> messages = new ArrayDeque<>();
    private final ArrayDeque<ReadRequest> reads = new ArrayDeque<>();
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private final ByteArrayOutputStream readData = new ByteArrayOutputStream();
    volatile Terminate terminateReceived;
    volatile IOException ioFailure;

    ResponderPeer(boolean reject) throws IOException {
        this.reject = reject;
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getByName("127.0.0.171"), 0));
        thread = Thread.ofPlatform().daemon().name("iwarp-responder").start(this::serve);
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /** The byte pattern the peer writes: byte i of a pattern is (i * 7 + 3) mod 256. */
    static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    /** Waits for the connection to end (the client closed it, or a Terminate went either way). */
    void awaitEnd() throws InterruptedException {
        thread.join(30_000);
    }

    private void serve() {
        try (SocketChannel ch = server.accept()) {
            engine = new IwarpConnection(false, 1448, new Handler());
            ByteBuffer in = ByteBuffer.allocate(256 * 1024);
            while (ch.read(in) >= 0) {
                in.flip();
                engine.receive(in);
                in.compact();
                write(ch, null);
                act(ch);
                if (engine.state() == IwarpConnection.State.TERMINATED) {
                    return;
                }
            }
        } catch (IOException e) {
            ioFailure = e;
        }
    }

    private void act(SocketChannel ch) throws IOException {
        ReadRequest r;
        while ((r = reads.poll()) != null) {
            ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.READ_RESPONSE, r.size()));
            engine.readResponse(b, region, (int) r.sourceOffset());
            write(ch, b.flip());
        }
        byte[] m;
        while ((m = messages.poll()) != null) {
            String text = new String(m, StandardCharsets.US_ASCII);
            String[] w = text.split(" ");
            switch (w[0]) {
                case "W" -> {
                    byte[] p = pattern(Integer.parseInt(w[3]));
                    ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.RDMA_WRITE, p.length));
                    engine.write(b, Integer.parseInt(w[1]), Long.parseLong(w[2]), ByteBuffer.wrap(p), 0, p.length);
                    write(ch, b.flip());
                    send(ch, "written".getBytes(StandardCharsets.US_ASCII));
                }
                case "R" -> {
                    ByteBuffer b = ByteBuffer.allocate(engine.readRequestLength());
                    engine.readRequest(b, Integer.parseInt(w[3]), Integer.parseInt(w[1]), Long.parseLong(w[2]), "read");
                    write(ch, b.flip());
                }
                case "L" -> send(ch, new byte[Integer.parseInt(w[1])]);
                default -> send(ch, m);
            }
        }
    }

    private void send(SocketChannel ch, byte[] payload) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.SEND, payload.length));
        engine.send(b, ByteBuffer.wrap(payload), 0, payload.length, false, 0);
        write(ch, b.flip());
    }

    /** Writes {@code b} (if any) after the engine's own control output. */
    private void write(SocketChannel ch, ByteBuffer b) throws IOException {
        ByteBuffer c;
        while ((c = engine.pollControl()) != null) {
            while (c.hasRemaining()) {
                ch.write(c);
            }
        }
        while (b != null && b.hasRemaining()) {
            ch.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    private final class Handler implements IwarpConnection.Handler {
        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            if (reject) {
                engine.reject("not today".getBytes(StandardCharsets.US_ASCII));
            } else {
                engine.accept(4, 4, new byte[0]);
            }
        }

        @Override
        public boolean send(DdpSegment s) {
            collect(current, s);
            if (s.last()) {
                messages.add(current.toByteArray());
                current.reset();
            }
            return true;
        }

        @Override
        public boolean write(DdpSegment s) {
            region.put((int) s.taggedOffset(), s.buffer(), s.payloadOffset(), s.payloadLength());
            return true;
        }

        @Override
        public boolean readRequest(ReadRequest r) {
            reads.add(r);
            return true;
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment s) {
            collect(readData, s);
            if (s.last()) {
                messages.add(("E" + new String(readData.toByteArray(), StandardCharsets.ISO_8859_1))
                        .getBytes(StandardCharsets.ISO_8859_1));
                readData.reset();
            }
            return true;
        }

        @Override
        public void terminated(Terminate t) {
            terminateReceived = t;
        }

        @Override
        public void failed(IwarpProtocolException cause) {
        }

        private void collect(ByteArrayOutputStream to, DdpSegment s) {
            byte[] b = new byte[s.payloadLength()];
            s.buffer().get(s.payloadOffset(), b);
            to.write(b, 0, b.length);
        }
    }
}

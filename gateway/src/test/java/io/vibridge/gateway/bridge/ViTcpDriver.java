package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Random;

/**
 * VI/TCP clients of the gateway's VI listener (the route is the Connect Request's discriminator): sessions on
 * vitcp's provider library ({@link TestSupport.Client}), hostile clients on a raw socket ({@link Raw}).
 */
final class ViTcpDriver implements ClientDriver {
    private final Duration requestTimeout;
    private final ViNic nic;

    ViTcpDriver(Duration requestTimeout) throws IOException {
        this.requestTimeout = requestTimeout;
        this.nic = TestSupport.clientNic();
    }

    @Override
    public String config() {
        return "vi { incoming-timeout = " + requestTimeout.toMillis() + "ms }";
    }

    @Override
    public ClientProtocol protocol() {
        return ClientProtocol.VITCP;
    }

    @Override
    public Session connect(GatewayServer gateway, String route, Assurance assurance, int unreadEchoes)
            throws InterruptedException {
        var c = switch (assurance) {
            case USUAL -> new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, unreadEchoes);
            case STRONGEST -> new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, unreadEchoes);
            case WEAKEST -> new TestSupport.Client(nic, ReliabilityLevel.UNRELIABLE_DELIVERY, false, unreadEchoes);
        };
        c.connect(gateway.port(), route);
        return new ViSession(c);
    }

    @Override
    public Hostile hostile(GatewayServer gateway, String route) throws IOException {
        Raw r = new Raw(gateway.port());
        r.called = route;
        return r;
    }

    @Override
    public Hostile established(GatewayServer gateway, String route) throws IOException {
        Raw r = new Raw(gateway.port());
        r.called = route;
        return r.connect();
    }

    @Override
    public String reason(Hostility input) {
        return switch (input) {
            case SILENT, PART_OF_THE_REQUEST -> "no Connect Request within";
            case GARBAGE_BEFORE_THE_REQUEST -> "Connect Reject IS 9"; // the first byte, 7, is its version
            case MESSAGE_TOO_LARGE -> "message larger than the MTU";
            case OVERSIZED_RDMA_LENGTH -> "larger than the MTU";
            case RESERVED_OPCODE -> "reserved type";
        };
    }

    @Override
    public void close() {
        nic.close();
    }

    /**
     * A VI of the provider library with {@code recvs} receives of 64 KiB posted; Sends go from the client's 8
     * send areas in turn, each reused once the Send that used it completed.
     */
    private static final class ViSession implements Session {
        private static final int SEND_AREAS = 8;
        private final TestSupport.Client c;
        private int sent;
        private int outstanding;
        private int received;

        ViSession(TestSupport.Client c) {
            this.c = c;
        }

        @Override
        public void send(byte[] message) throws InterruptedException {
            if (outstanding == SEND_AREAS) {
                assertThat(c.vi.sendWait(T).isError()).as("Send completion").isFalse();
                outstanding--;
            }
            int off = c.sendArea(sent % SEND_AREAS);
            c.mr.buffer().put(off, message);
            c.vi.postSend(Descriptor.send().data(c.mr, off, message.length));
            sent++;
            outstanding++;
        }

        @Override
        public byte[] awaitEcho() throws InterruptedException {
            Descriptor rx = c.vi.recvWait(T);
            assertThat(rx.isError()).as("receive status %s", rx.status()).isFalse();
            int off = (received++ % c.recvs) * 65536; // receives complete in the order posted (VIA 6.2)
            byte[] m = new byte[(int) rx.length()];
            c.mr.buffer().get(off, m);
            c.vi.postRecv(Descriptor.receive().data(c.mr, off, 65536));
            return m;
        }

        @Override
        public void leave() {
            c.vi.disconnect();
        }

        /** VIA 5: a connection the other side ended leaves the VI in Error, however it ended. */
        @Override
        public void assertClosedByGateway(Ending how) throws InterruptedException {
            awaitTrue(() -> c.vi.state() != ViState.CONNECTED);
        }

        @Override
        public void close() {
            c.close();
        }
    }

    /** A raw VI/TCP client: connects at Reliable Delivery with descriptor flow control, IMN 1000. */
    static final class Raw implements Hostile {
        final SocketChannel ch;
        int msg = 1000;
        int credits;
        int readWindow;
        String called = "echo";
        boolean flowControl = true;

        Raw(int port) throws IOException {
            ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        }

        Raw connect() throws IOException {
            return connect(0);
        }

        /** Connects announcing {@code rxPosted} receive descriptors (credits for the gateway's Sends). */
        Raw connect(int rxPosted) throws IOException {
            ByteBuffer b = connectRequest(rxPosted);
            write(b);
            ByteBuffer accept = readSegment();
            assertThat(SegmentHeader.typeCode(accept, 0)).as("Connect Accept").isEqualTo(6);
            credits = SegmentHeader.rxDescriptorsPosted(accept, 0);
            readWindow = ConnectionHeader.decode(accept, 24, accept.limit()).rdmaReadWindow();
            return this;
        }

        private ByteBuffer connectRequest(int rxPosted) {
            ConnectionHeader h = ConnectionHeader.unsigned(
                    ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, flowControl, false, false),
                    Discriminator.ofUtf8("raw"), 65536, 4, Discriminator.ofUtf8(called));
            ByteBuffer b = ByteBuffer.allocate(512);
            int n = new ConnectRequest(1000, 0, rxPosted, h).encode(b, 0);
            return b.limit(n);
        }

        void write(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        ByteBuffer readSegment() throws IOException {
            ByteBuffer h = ByteBuffer.allocate(24);
            readFully(h);
            int len = SegmentHeader.segmentLength(h, 0);
            ByteBuffer s = ByteBuffer.allocate(len);
            s.put(h.flip());
            readFully(s);
            return s.flip();
        }

        private void readFully(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    throw new IOException("closed");
                }
            }
        }

        /** True once the gateway closed the connection (EOF or reset) within the bound, discarding what it sent. */
        boolean closedByGateway() throws IOException {
            ch.configureBlocking(false);
            ByteBuffer sink = ByteBuffer.allocate(65536);
            long end = System.nanoTime() + T.toNanos();
            while (System.nanoTime() < end) {
                int n;
                try {
                    n = ch.read(sink.clear());
                } catch (IOException e) {
                    return true; // reset
                }
                if (n < 0) {
                    return true;
                }
                if (n == 0) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
            return false;
        }

        ByteBuffer segment(SegmentType type, int flags, int payload, long dataOffset, int number) {
            boolean rdma = type == SegmentType.RDMA_WRITE || type == SegmentType.RDMA_READ_REQUEST;
            int hl = rdma ? 40 : 24;
            ByteBuffer b = ByteBuffer.allocate(hl + payload);
            SegmentHeader.write(b, 0, type, flags, hl + payload, dataOffset, 0, number, 0, 0, 0, 0);
            return b;
        }

        @Override
        public int localPort() throws IOException {
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }

        @Override
        public void sendPartOfTheRequest() throws IOException {
            write(connectRequest(0).limit(10));
        }

        @Override
        public void sendGarbage() throws IOException {
            byte[] junk = new byte[300];
            new Random(1).nextBytes(junk);
            junk[0] = 7; // bad version
            write(ByteBuffer.wrap(junk));
        }

        /** Two segments of 40,000 bytes of one Send: 80,000 bytes, beyond the agreed MTU of 65,536. */
        @Override
        public void sendMessageLargerThanTheLimit() throws IOException {
            write(segment(SegmentType.SEND, 0, 40000, 0, msg));
            write(segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 40000, 40000, msg));
        }

        @Override
        public void sendOversizedRdmaLength() throws IOException {
            ByteBuffer w = segment(SegmentType.RDMA_WRITE, 0, 100, 0, msg);
            RdmaHeader.write(w, 24, 0x1000, 5, 1L << 31);
            write(w);
        }

        /** A Send header with segment type 20, which VI/TCP reserves. */
        @Override
        public void sendReservedOpcode() throws IOException {
            ByteBuffer b = ByteBuffer.allocate(24);
            SegmentHeader.write(b, 0, SegmentType.SEND, 2, 24, 0, 0, msg, 0, 0, 0, 0);
            b.put(1, (byte) ((20 << 3) | 2));
            write(b);
        }

        /** The first segment (1,000 bytes) of a Send, without End of Message. */
        @Override
        public void sendPartOfAMessage() throws IOException {
            write(segment(SegmentType.SEND, 0, 1000, 0, msg));
        }

        @Override
        public void assertClosedByGateway(Hostility input) throws IOException {
            assertThat(closedByGateway()).as("closed by the gateway after %s", input).isTrue();
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}

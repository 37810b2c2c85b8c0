package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.MetricsTest.get;
import static io.vibridge.gateway.bridge.MetricsTest.value;
import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gateway's second listener (VITCP-PROFILE §8): the same routes behind seed-004 framing, its
 * connections and bytes counted under {@code encapsulation="rdmatcp"}, and a frame with a bad CRC or
 * an unknown Connection ID ending the connection and counted by check. Every operation through it,
 * checksums compared, is {@link EndToEndTest} (parameterised by encapsulation).
 */
class RdmaTcpListenerTest {
    static EchoTarget target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.87", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.88",
                TestSupport.route("echo", "127.0.0.87", 5000, 1, 8), ""));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @Test
    void framedClientsAreBridgedAndCountedApart() throws Exception {
        String before = get(gateway.adminPort(), "/metrics");
        double opened = value(before, "vibridge_connections_opened_total{encapsulation=\"rdmatcp\"}");
        double nativeOpened = value(before, "vibridge_connections_opened_total{encapsulation=\"vitcp\"}");
        double in = value(before, "vibridge_client_bytes_total{direction=\"in\",encapsulation=\"rdmatcp\"}");
        try (ViNic nic = TestSupport.clientNic();
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, 4)) {
            c.connect(gateway.rdmaTcpPort(), "echo", Encapsulation.RDMATCP);
            c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 20000));
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            assertThat(c.vi.recvWait(T).length()).isEqualTo(20000);
            String during = get(gateway.adminPort(), "/metrics");
            assertThat(value(during, "vibridge_connections_active{encapsulation=\"rdmatcp\"}")).isEqualTo(1);
            assertThat(value(during, "vibridge_connections_opened_total{encapsulation=\"rdmatcp\"}")).isEqualTo(opened + 1);
            assertThat(value(during, "vibridge_connections_opened_total{encapsulation=\"vitcp\"}")).isEqualTo(nativeOpened);
            // the Connect Request and the Send's frames: headers, control data, payload, padding and CRC
            assertThat(value(during, "vibridge_client_bytes_total{direction=\"in\",encapsulation=\"rdmatcp\"}"))
                    .isGreaterThan(in + 20000);
            assertThat(value(during, "vibridge_client_bytes_total{direction=\"out\",encapsulation=\"rdmatcp\"}"))
                    .isGreaterThan(20000);
        }
    }

    @Test
    void aBadCrcEndsTheConnectionAndIsCounted() throws Exception {
        try (Framed f = Framed.connect()) {
            byte[] frame = f.send(5000);
            frame[frame.length - 1] ^= 1; // the CRC's last byte
            f.write(frame);
            assertThat(f.closedByGateway()).isTrue();
        }
        EndToEndTest.awaitTrue(() -> count(FrameCheck.CRC) >= 1);
    }

    @Test
    void anUnknownConnectionIdEndsTheConnectionAndIsCounted() throws Exception {
        try (Framed f = Framed.connect()) {
            long id = f.connectionId;
            f.connectionId = id + 1;
            f.write(f.send(100));
            assertThat(f.closedByGateway()).isTrue();
        }
        EndToEndTest.awaitTrue(() -> count(FrameCheck.CONNECTION_ID) >= 1);
    }

    @Test
    void nativeSegmentsOnTheFramedPortAreRefused() throws Exception {
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", gateway.rdmaTcpPort()))) {
            ByteBuffer b = ByteBuffer.allocate(512);
            int n = new ConnectRequest(1, 0, 4, Framed.header()).encode(b, 0);
            // read as a frame, the request's Segment Length leaves 4 bytes (the CRC) to come: with them the frame
            // is whole and fails the CRC, and TCP closes without an answer (§9.11); without them the gateway
            // waits, as for any frame, until the Incoming timeout
            ch.write(b.limit(n + 4));
            assertThat(ch.read(ByteBuffer.allocate(64))).isEqualTo(-1);
        }
    }

    private static double count(FrameCheck c) {
        try {
            String tag = c.name().toLowerCase(Locale.ROOT).replace('_', '-');
            return value(get(gateway.adminPort(), "/metrics"), "vibridge_rdmatcp_frame_errors_total{check=\"" + tag + "\"}");
        } catch (Exception e) {
            return -1;
        }
    }

    /** A raw client of the framed port, connected at Reliable Delivery with 4 receives posted. */
    static final class Framed implements AutoCloseable {
        final SocketChannel ch;
        long connectionId = 0x1234_5678_9abc_def0L;
        int msg = 1000;

        private Framed() throws IOException {
            ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", gateway.rdmaTcpPort()));
        }

        static ConnectionHeader header() {
            return ConnectionHeader.unsigned(
                    ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false, false),
                    Discriminator.ofUtf8("raw"), 65536, 4, Discriminator.ofUtf8("echo"));
        }

        static Framed connect() throws IOException {
            Framed f = new Framed();
            ByteBuffer b = ByteBuffer.allocate(512);
            int n = new ConnectRequest(f.msg, 0, 4, header()).encode(b, 0);
            f.write(RdmaTcpFrame.frame(b, 0, n, f.connectionId).array());
            ByteBuffer accept = f.readFrame();
            assertThat(RdmaTcpFrame.check(accept, 0, f.connectionId, false)).isEqualTo(FrameCheck.OK);
            int seg = RdmaTcpFrame.headerLength(accept, 0);
            assertThat(SegmentHeader.typeCode(accept, seg)).isEqualTo(SegmentType.CONNECT_ACCEPT.code());
            return f;
        }

        /** The frame of a {@code len}-byte Send (message {@link #msg}), with this client's Connection ID. */
        byte[] send(int len) {
            ByteBuffer s = ByteBuffer.allocate(SegmentHeader.LENGTH + len);
            SegmentHeader.write(s, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, s.capacity(), 0, 0, msg++, 0,
                    4, 0, 0);
            return RdmaTcpFrame.frame(s, 0, s.capacity(), connectionId).array();
        }

        void write(byte[] bytes) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        ByteBuffer readFrame() throws IOException {
            ByteBuffer head = ByteBuffer.allocate(4);
            readFully(head);
            ByteBuffer f = ByteBuffer.allocate(RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(head, 0)));
            f.put(head.flip());
            readFully(f);
            return f.flip();
        }

        private void readFully(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    throw new IOException("closed");
                }
            }
        }

        /** True once the gateway closed the connection (EOF), discarding what it sent first. */
        boolean closedByGateway() throws IOException {
            ch.socket().setSoTimeout((int) T.toMillis());
            var in = ch.socket().getInputStream();
            byte[] sink = new byte[4096];
            while (true) {
                try {
                    if (in.read(sink) < 0) {
                        return true;
                    }
                } catch (IOException e) {
                    return true; // reset
                }
            }
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}

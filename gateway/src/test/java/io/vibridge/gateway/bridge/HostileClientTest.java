package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
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
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Malformed and hostile clients (raw sockets speaking VI/TCP by hand) are disconnected with a
 * logged reason while a well-behaved client on the same gateway keeps working.
 */
class HostileClientTest {
    static EchoTarget target;
    static GatewayServer gateway;
    static ViNic nic;
    static TestSupport.Client good;
    static ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.69", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.70",
                TestSupport.route("echo", "127.0.0.69", 5000, 1, 8), "vi { incoming-timeout = 1s }"));
        nic = TestSupport.clientNic();
        good = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 8);
        good.connect(gateway.port(), "echo");
        logs.start();
        ((Logger) LoggerFactory.getLogger("io.vibridge.gateway.bridge")).addAppender(logs);
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("io.vibridge.gateway.bridge")).detachAppender(logs);
        good.close();
        nic.close();
        gateway.close();
        target.close();
    }

    /** A raw VI/TCP client: connects at Reliable Delivery with descriptor flow control, IMN 1000. */
    static final class Raw implements AutoCloseable {
        final SocketChannel ch;
        int msg = 1000;
        int credits;
        int readWindow;
        String called = "echo";
        boolean flowControl = true;

        Raw() throws IOException {
            ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", gateway.port()));
        }

        Raw connect() throws IOException {
            return connect(0);
        }

        /** Connects announcing {@code rxPosted} receive descriptors (credits for the gateway's Sends). */
        Raw connect(int rxPosted) throws IOException {
            ConnectionHeader h = ConnectionHeader.unsigned(
                    ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, flowControl, false, false),
                    Discriminator.ofUtf8("raw"), 65536, 4, Discriminator.ofUtf8(called));
            ByteBuffer b = ByteBuffer.allocate(512);
            int n = new ConnectRequest(1000, 0, rxPosted, h).encode(b, 0);
            b.limit(n);
            write(b);
            ByteBuffer accept = readSegment();
            assertThat(SegmentHeader.typeCode(accept, 0)).as("Connect Accept").isEqualTo(6);
            credits = SegmentHeader.rxDescriptorsPosted(accept, 0);
            readWindow = ConnectionHeader.decode(accept, 24, accept.limit()).rdmaReadWindow();
            return this;
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

        /** True once the gateway closed the connection (EOF), reading and discarding what it sent. */
        boolean closedByGateway() throws IOException {
            ch.socket().setSoTimeout((int) T.toMillis());
            var in = ch.socket().getChannel();
            ByteBuffer sink = ByteBuffer.allocate(65536);
            long end = System.nanoTime() + T.toNanos();
            in.configureBlocking(false);
            while (System.nanoTime() < end) {
                int n;
                try {
                    n = in.read(sink.clear());
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
        public void close() throws IOException {
            ch.close();
        }
    }

    private static void assertGoodClientStillWorks() throws InterruptedException {
        good.vi.postSend(Descriptor.send().data(good.mr, good.sendArea(0), 3000));
        assertThat(good.vi.sendWait(T).isError()).isFalse();
        Descriptor rx = good.vi.recvWait(T);
        assertThat(rx.isError()).isFalse();
        good.vi.postRecv(Descriptor.receive().data(good.mr, 0, 65536));
    }

    private static void assertLogged(String fragment) throws InterruptedException {
        EndToEndTest.awaitTrue(() -> logs.list.stream().anyMatch(e -> e.getFormattedMessage().contains(fragment)));
    }

    @Test
    void silentClientIsClosedAfterTheIncomingTimeout() throws Exception {
        try (Raw r = new Raw()) {
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("no Connect Request within");
        assertGoodClientStillWorks();
    }

    @Test
    void garbageBeforeTheConnectRequest() throws Exception {
        try (Raw r = new Raw()) {
            byte[] junk = new byte[300];
            new Random(1).nextBytes(junk);
            junk[0] = 7; // bad version
            r.write(ByteBuffer.wrap(junk));
            assertThat(r.closedByGateway()).isTrue();
        }
        assertGoodClientStillWorks();
    }

    @Test
    void messageLargerThanTheMtu() throws Exception {
        try (Raw r = new Raw().connect()) {
            ByteBuffer a = r.segment(SegmentType.SEND, 0, 40000, 0, r.msg);
            ByteBuffer b = r.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 40000, 40000, r.msg);
            r.write(a);
            r.write(b);
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("message larger than the MTU");
        assertGoodClientStillWorks();
    }

    @Test
    void oversizedRdmaLength() throws Exception {
        try (Raw r = new Raw().connect()) {
            ByteBuffer w = r.segment(SegmentType.RDMA_WRITE, 0, 100, 0, r.msg);
            RdmaHeader.write(w, 24, 0x1000, 5, 1L << 31);
            r.write(w);
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("larger than the MTU");
        assertGoodClientStillWorks();
    }

    @Test
    void creditAbuse() throws Exception {
        try (Raw r = new Raw().connect()) {
            int n = r.credits + 3;
            ByteBuffer burst = ByteBuffer.allocate(n * 25);
            for (int i = 0; i < n; i++) {
                ByteBuffer s = r.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 1, 0, r.msg++);
                burst.put(s);
            }
            r.write(burst.flip());
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("credit abuse");
        assertGoodClientStillWorks();
    }

    @Test
    void readWindowAbuse() throws Exception {
        try (Raw r = new Raw().connect()) {
            int n = r.readWindow + 2;
            ByteBuffer burst = ByteBuffer.allocate(n * 40);
            for (int i = 0; i < n; i++) {
                ByteBuffer s = r.segment(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0, 0, r.msg++);
                RdmaHeader.write(s, 24, target.rdma.address(), target.rdma.rkey(), 60000);
                burst.put(s);
            }
            r.write(burst.flip());
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("IS 7");
        assertGoodClientStillWorks();
    }

    @Test
    void reservedSegmentType() throws Exception {
        try (Raw r = new Raw().connect()) {
            ByteBuffer b = ByteBuffer.allocate(24);
            SegmentHeader.write(b, 0, SegmentType.SEND, 2, 24, 0, 0, r.msg, 0, 0, 0, 0);
            b.put(1, (byte) ((20 << 3) | 2));
            r.write(b);
            assertThat(r.closedByGateway()).isTrue();
        }
        assertLogged("reserved type");
        assertGoodClientStillWorks();
    }
}

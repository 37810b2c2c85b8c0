package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaKey;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hostile-client suite of connection setup, per front end (VI/TCP, RDMA/TCP, iWARP): clients
 * that connect and send only a header claiming the largest segment, frame or MPA Request, then nothing. The
 * connections in setup stay within {@code limits.max-pending} and {@code max-pending-per-client} (the rest
 * closed at accept and counted by reason), the setup timeout closes the ones held, and a healthy client
 * keeps working throughout, an established one and new ones from another address.
 */
class PendingFloodTest {
    static final int MAX_PENDING = 24;
    static final int PER_CLIENT = 8;
    static EchoTarget target;
    static GatewayServer gateway;
    static ViNic nic;
    static TestSupport.Client good;

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.229", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.230",
                TestSupport.route("echo", "127.0.0.229", 5000, 1, 8),
                "limits { max-pending = " + MAX_PENDING + ", max-pending-per-client = " + PER_CLIENT + " }\n"
                        + "vi { incoming-timeout = 2s }\n"
                        + "iwarp { host = \"127.0.0.1\", request-timeout = 2s, listeners = [ { port = 0, route = \"echo\" } ] }"));
        nic = TestSupport.clientNic();
        good = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 8);
        good.connect(gateway.port(), "echo");
    }

    @AfterAll
    static void stop() {
        if (good != null) {
            good.close();
        }
        if (nic != null) {
            nic.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @BeforeEach
    void nothingPending() throws InterruptedException {
        EndToEndTest.awaitTrue(() -> gateway.admission().pending() == 0); // the previous test's held ones timed out
    }

    /** What a hostile client of {@code fe} sends: the header of the largest unit it can claim, and no more. */
    static byte[] claimingTheMaximum(ClientProtocol fe) {
        return switch (fe) {
            case VITCP -> {
                ByteBuffer b = ByteBuffer.allocate(SegmentHeader.LENGTH);
                SegmentHeader.write(b, 0, SegmentType.CONNECT_REQUEST, 0, SegmentHeader.MAX_SEGMENT_LENGTH, 0, 0, 1, 0,
                        0, 0, 0);
                yield b.array();
            }
            case RDMATCP -> {
                // a frame header claiming Segment Length 65,535, and the VI/TCP header in it: 48 bytes of 65,540
                ByteBuffer b = ByteBuffer.allocate(RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH);
                b.put(RdmaTcpFrame.OFF_VERSION, (byte) RdmaTcpFrame.VERSION);
                b.put(RdmaTcpFrame.OFF_FLAGS, (byte) (RdmaTcpFrame.FLAG_BEGIN | RdmaTcpFrame.FLAG_END));
                b.putShort(RdmaTcpFrame.OFF_SEGMENT_LENGTH, (short) RdmaTcpFrame.MAX_SEGMENT_LENGTH);
                SegmentHeader.write(b, RdmaTcpFrame.SHORT_HEADER, SegmentType.CONNECT_REQUEST, 0,
                        SegmentHeader.MAX_SEGMENT_LENGTH - RdmaTcpFrame.SHORT_HEADER, 0, 0, 1, 0, 0, 0, 0);
                yield b.array();
            }
            case IWARP -> {
                // an MPA Request header announcing the most private data (512 bytes, RFC 5044 §7.1), none sent
                byte[] whole = MpaFrame.enhanced(MpaKey.REQUEST, false, false, MpaV2Params.of(4, 4),
                        new byte[MpaFrame.MAX_PRIVATE_DATA - MpaV2Params.LENGTH]).toBytes();
                yield Arrays.copyOf(whole, MpaFrame.HEADER_LENGTH);
            }
        };
    }

    static int port(ClientProtocol fe) {
        return switch (fe) {
            case VITCP -> gateway.port();
            case RDMATCP -> gateway.rdmaTcpPort();
            case IWARP -> gateway.iwarpPorts().get(0);
        };
    }

    /** {@code n} connections from {@code from} to {@code fe}'s port, each sending {@code first} (may be empty). */
    static List<SocketChannel> open(ClientProtocol fe, String from, int n, byte[] first) throws IOException {
        List<SocketChannel> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.bind(new InetSocketAddress(from, 0));
            ch.connect(new InetSocketAddress("127.0.0.1", port(fe)));
            ByteBuffer b = ByteBuffer.wrap(first);
            try {
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            } catch (IOException e) {
                // closed at accept already: a refused one
            }
            l.add(ch);
        }
        return l;
    }

    /** True once the gateway closed {@code ch} (EOF or reset), within {@code T}. */
    static boolean closedByGateway(SocketChannel ch) throws IOException {
        ch.socket().setSoTimeout((int) T.toMillis());
        try {
            return ch.socket().getInputStream().read(new byte[64]) < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    static double count(String name, ClientProtocol fe, String reason) {
        MeterRegistry r = gateway.registry();
        var c = r.find(name).tag("encapsulation", fe.label()).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    static void assertGoodClientStillWorks() throws InterruptedException {
        good.vi.postSend(Descriptor.send().data(good.mr, good.sendArea(0), 3000));
        assertThat(good.vi.sendWait(T).isError()).isFalse();
        Descriptor rx = good.vi.recvWait(T);
        assertThat(rx.isError()).isFalse();
        good.vi.postRecv(Descriptor.receive().data(good.mr, 0, 65536));
    }

    /** A new connection of {@code fe} from 127.0.0.1 is bridged and echoes. */
    static void assertNewClientWorks(ClientProtocol fe) throws Exception {
        if (fe == ClientProtocol.IWARP) {
            try (IwarpClient c = new IwarpClient(port(fe), false).awaitEstablished(T)) {
                byte[] m = {1, 2, 3, 4, 5};
                c.send(m);
                assertThat(c.awaitSend(T)).isEqualTo(m);
            }
            return;
        }
        try (TestSupport.Client c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 2)) {
            c.connect(port(fe), "echo", fe == ClientProtocol.RDMATCP ? Encapsulation.RDMATCP : Encapsulation.VITCP);
            c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 100));
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            assertThat(c.vi.recvWait(T).isError()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(ClientProtocol.class)
    void headersClaimingTheMaximum_fromManyAddresses_areBoundedThenTimedOut(ClientProtocol fe) throws Exception {
        double refusedBefore = count("vibridge.connections.refused", fe, "pending")
                + count("vibridge.connections.refused", fe, "pending_per_client");
        double timeoutsBefore = count("vibridge.connections.setup.failed", fe, "timeout");
        List<SocketChannel> all = new ArrayList<>();
        try {
            // 6 addresses x 8: every address within its share, 48 in all against a bound of 24
            for (int a = 1; a <= 6; a++) {
                all.addAll(open(fe, "127.0.29." + a, PER_CLIENT, claimingTheMaximum(fe)));
            }
            EndToEndTest.awaitTrue(() -> count("vibridge.connections.refused", fe, "pending")
                    + count("vibridge.connections.refused", fe, "pending_per_client") - refusedBefore
                    + gateway.admission().pending() >= all.size());
            assertThat(gateway.admission().pending()).as("connections in setup").isEqualTo(MAX_PENDING);
            assertThat(count("vibridge.connections.refused", fe, "pending")
                    + count("vibridge.connections.refused", fe, "pending_per_client") - refusedBefore)
                    .as("refused at accept").isEqualTo(all.size() - MAX_PENDING);
            assertThat(gateway.registry().get("vibridge.connections.pending").tag("encapsulation", fe.label()).gauge()
                    .value()).isEqualTo(MAX_PENDING);
            assertGoodClientStillWorks();

            // the setup timeout closes every one held: none stays open past it
            for (SocketChannel ch : all) {
                assertThat(closedByGateway(ch)).as("closed by the gateway").isTrue();
            }
            EndToEndTest.awaitTrue(() -> gateway.admission().pending() == 0);
            assertThat(count("vibridge.connections.setup.failed", fe, "timeout") - timeoutsBefore)
                    .as("timed out in setup").isEqualTo(MAX_PENDING);
        } finally {
            for (SocketChannel ch : all) {
                ch.close();
            }
        }
        assertNewClientWorks(fe);
        assertGoodClientStillWorks();
    }

    @ParameterizedTest
    @EnumSource(ClientProtocol.class)
    void oneAddress_holdsAtMostItsShare_whileOthersConnect(ClientProtocol fe) throws Exception {
        double before = count("vibridge.connections.refused", fe, "pending_per_client");
        List<SocketChannel> flood = open(fe, "127.0.29.77", 3 * PER_CLIENT, claimingTheMaximum(fe));
        try {
            EndToEndTest.awaitTrue(() -> count("vibridge.connections.refused", fe, "pending_per_client") - before
                    == 2 * PER_CLIENT);
            assertThat(gateway.admission().pending(InetAddress.ofLiteral("127.0.29.77"))).isEqualTo(PER_CLIENT);
            assertNewClientWorks(fe); // another address: not refused
            assertGoodClientStillWorks();
        } finally {
            for (SocketChannel ch : flood) {
                ch.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ClientProtocol.class)
    void silentAndPartialClients_areClosedByTheSetupTimeout(ClientProtocol fe) throws Exception {
        byte[] header = claimingTheMaximum(fe);
        List<SocketChannel> l = new ArrayList<>();
        try {
            l.addAll(open(fe, "127.0.29.90", 1, new byte[0]));                       // nothing at all
            l.addAll(open(fe, "127.0.29.90", 1, Arrays.copyOf(header, 3)));          // part of a header
            l.addAll(open(fe, "127.0.29.90", 1, header));                            // a header, no body
            long start = System.nanoTime();
            for (SocketChannel ch : l) {
                assertThat(closedByGateway(ch)).as("closed by the gateway").isTrue();
            }
            assertThat(System.nanoTime() - start).as("not before the 2 s timeout").isGreaterThan(1_500_000_000L);
        } finally {
            for (SocketChannel ch : l) {
                ch.close();
            }
        }
    }
}

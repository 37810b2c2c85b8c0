package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The iWARP front end through the generic connection's lifecycle, as {@link DisconnectTest} and
 * {@link HostileClientTest} take the VI/TCP one: a client FIN mid-transfer, the target's DREQ, a gateway
 * shutdown with streams open, more Sends than staging slots (backpressure) and the MPA Request timeout.
 * Each ends with every connection released and every staging slot back in the pool.
 */
class IwarpLifecycleTest {
    static EchoTarget target;
    GatewayServer gateway;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.157", 5000, 8, 65552);
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @AfterEach
    void closeGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private GatewayServer gateway(String extra) {
        gateway = GatewayServer.start(TestSupport.config("127.0.0.158",
                TestSupport.route("echo", "127.0.0.157", 5000, 1, 8),
                "iwarp { host = \"127.0.0.1\", request-timeout = 1s, listeners = [ { port = 0, route = \"echo\" } ] }"
                        + extra));
        return gateway;
    }

    private IwarpClient client() throws Exception {
        return new IwarpClient(gateway.iwarpPorts().getFirst(), true).awaitEstablished(T);
    }

    private static byte[] message(int size, long seed) {
        byte[] m = new byte[size];
        new Random(seed).nextBytes(m);
        m[0] = 1; // never one of the target's command words
        return m;
    }

    private void assertReleased() throws InterruptedException {
        awaitTrue(() -> gateway.bridgeContext().connections().isEmpty());
        assertThat(gateway.bridgeContext().pool().inUse()).as("staging slots back in the pool").isZero();
        assertThat(gateway.bridgeContext().bridgedConnections()).isZero();
    }

    @Test
    void aClientFinMidTransferDisconnectsTheTargetAndFreesStaging() throws Exception {
        gateway("");
        int before = target.disconnects.get();
        IwarpClient c = client();
        c.send(message(100, 1));
        c.awaitSend(T);
        for (int i = 0; i < 5; i++) {
            c.send(message(60_000, i)); // in flight when the client goes
        }
        c.close();
        awaitTrue(() -> target.disconnects.get() == before + 1); // IWARP-MAPPING "Disconnects": FIN -> DREQ
        assertReleased();
    }

    @Test
    void theTargetsDreqEndsTheStreamWithAFin() throws Exception {
        gateway("");
        try (IwarpClient c = client()) {
            c.send(message(5000, 2));
            c.awaitSend(T);
            target.disconnectAll();
            assertThat(c.closedByGateway(T)).isTrue();
            assertThat(c.terminate).as("a FIN, not a Terminate (as siw ends a disconnected stream)").isNull();
        }
        assertReleased();
    }

    @Test
    void aShutdownDrainsOpenStreams() throws Exception {
        gateway("");
        try (IwarpClient c = client()) {
            byte[] m = message(30_000, 3);
            c.send(m);
            assertThat(c.awaitSend(T)).isEqualTo(m);
            Thread closer = Thread.ofVirtual().start(() -> gateway.close());
            assertThat(c.closedByGateway(Duration.ofSeconds(20))).isTrue();
            assertThat(c.terminate).isNull();
            closer.join();
        }
        assertThat(gateway.bridgeContext().connections()).isEmpty();
        assertThat(gateway.bridgeContext().pool().inUse()).isZero();
        gateway = null;
    }

    @Test
    void moreSendsThanStagingSlotsWaitForSlotsAndAllArriveInOrder() throws Exception {
        gateway("");
        double stalls = gateway.registry().get("vibridge.credit.stalls").tag("direction", "client_to_target").counter()
                .count();
        try (IwarpClient c = client()) {
            int n = 3 * gateway.bridgeContext().config().slotsPerConnection();
            byte[][] sent = new byte[n][];
            for (int i = 0; i < n; i++) {
                sent[i] = message(20_000 + i, 100 + i);
                c.send(sent[i]);
            }
            for (byte[] m : sent) {
                assertThat(c.awaitSend(T)).isEqualTo(m);
            }
        }
        assertThat(gateway.registry().get("vibridge.credit.stalls").tag("direction", "client_to_target").counter()
                .count()).as("the socket paused for a slot").isGreaterThan(stalls);
        assertReleased();
    }

    @Test
    void noMpaRequestWithinTheTimeoutIsClosed() throws Exception {
        gateway("");
        double before = gateway.registry().get("vibridge.connections.setup.failed").tag("encapsulation", "iwarp")
                .tag("reason", "timeout").counter().count();
        try (SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", gateway.iwarpPorts().getFirst()))) {
            s.write(ByteBuffer.wrap("MPA ID Req".getBytes())); // part of a Request, then silence
            s.socket().setSoTimeout(10_000);
            assertThat(s.socket().getInputStream().read()).as("closed, nothing sent").isEqualTo(-1);
        }
        awaitTrue(() -> gateway.registry().get("vibridge.connections.setup.failed").tag("encapsulation", "iwarp")
                .tag("reason", "timeout").counter().count() == before + 1);
        assertReleased();
    }
}

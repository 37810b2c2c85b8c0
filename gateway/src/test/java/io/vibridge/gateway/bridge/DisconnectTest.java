package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.bridge.ClientDriver.Assurance;
import io.vibridge.gateway.bridge.ClientDriver.Ending;
import io.vibridge.gateway.bridge.ClientDriver.Hostile;
import io.vibridge.gateway.bridge.ClientDriver.Session;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.soft.FaultConfig;
import io.vibridge.verbs.soft.SoftDevice;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The generic connection's lifecycle over every client front end, each with both FlowC modes of the target:
 * disconnects both ways (the client leaves <-> the target's DREQ), a target that vanishes, a gateway shutdown
 * with connections open and more Sends than staging slots. Each ends with every connection released and every
 * staging slot back in the pool. The shutdown grace is beyond the suite's bound, so no connection here ends by
 * its grace timer.
 */
class DisconnectTest {
    static EchoTarget target;
    ClientDriver driver;
    GatewayServer gateway;
    String route;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.63", 5000, 8, 65552);
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
        if (driver != null) {
            driver.close();
        }
    }

    /** Every front end with the target's FlowC 0 (credits) and FlowC 1 (the transport's RNR) routes. */
    static Stream<Arguments> frontEnds() {
        return Arrays.stream(FrontEndKind.values()).flatMap(k -> Stream.of(Arguments.of(k, 0), Arguments.of(k, 1)));
    }

    /** A gateway whose routes echo0 and echo1 (FlowC 0 and 1) reach the target; clients go to {@link #route}. */
    private GatewayServer gateway(FrontEndKind kind, int flowc, String extra) throws Exception {
        route = "echo" + flowc;
        driver = kind.open(Duration.ofSeconds(10), "echo0", "echo1");
        gateway = GatewayServer.start(TestSupport.config("127.0.0.64",
                TestSupport.route("echo0", "127.0.0.63", 5000, 0, 8) + ","
                        + TestSupport.route("echo1", "127.0.0.63", 5000, 1, 8),
                driver.config() + "\n" + TestSupport.PATIENT + "\n" + extra));
        return gateway;
    }

    private static byte[] message(int size, long seed) {
        byte[] m = new byte[size];
        new Random(seed).nextBytes(m);
        m[0] = 1; // never one of the target's command words
        return m;
    }

    private static void roundTrip(Session c, int size, long seed) throws Exception {
        byte[] m = message(size, seed);
        c.send(m);
        assertThat(c.awaitEcho()).as("echo of %d bytes", size).isEqualTo(m);
    }

    private void assertReleased() throws InterruptedException {
        awaitTrue(() -> gateway.bridgeContext().connections().isEmpty());
        assertThat(gateway.bridgeContext().pool().inUse()).as("staging slots back in the pool").isZero();
        assertThat(gateway.bridgeContext().bridgedConnections()).isZero();
    }

    /** VI/TCP: VipDisconnect with Sends posted; iWARP: a FIN after Sends written (IWARP-MAPPING "Disconnects"). */
    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void aClientThatLeavesMidTransferDisconnectsTheTargetAndFreesStaging(FrontEndKind kind, int flowc)
            throws Exception {
        GatewayServer g = gateway(kind, flowc, "");
        int before = target.disconnects.get();
        try (Session c = driver.connect(g, route)) {
            roundTrip(c, 1000, 1);
            assertThat(g.bridgeContext().pool().inUse()).isGreaterThan(0);
            for (int i = 0; i < 5; i++) {
                c.send(message(60_000, i)); // in flight when the client goes
            }
            c.leave();
        }
        awaitTrue(() -> target.disconnects.get() == before + 1);
        assertReleased();
    }

    /** The client's TCP ends inside a message: the slot that message took comes back without the target seeing it. */
    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void aClientThatLeavesInsideAMessageFreesItsSlot(FrontEndKind kind, int flowc) throws Exception {
        GatewayServer g = gateway(kind, flowc, "");
        int before = target.disconnects.get();
        long received = target.received.get();
        try (Hostile c = driver.established(g, route)) {
            int port = c.localPort();
            long in = bytesIn(g, port); // all of the connect request
            c.sendPartOfAMessage();
            awaitTrue(() -> bytesIn(g, port) > in); // the gateway has the part, in a slot of its own
        }
        awaitTrue(() -> target.disconnects.get() == before + 1);
        assertReleased();
        assertThat(target.received.get()).as("nothing of the message reached the target").isEqualTo(received);
    }

    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void theTargetsDisconnectClosesTheClient(FrontEndKind kind, int flowc) throws Exception {
        GatewayServer g = gateway(kind, flowc, "");
        try (Session c = driver.connect(g, route, Assurance.STRONGEST, 4)) {
            roundTrip(c, 5000, 2);
            target.disconnectAll();
            c.assertClosedByGateway(Ending.ORDERLY);
        }
        assertReleased();
    }

    /**
     * A target that vanishes while the client only waits (nothing in flight on the InfiniBand side) is found by
     * the keepalive probe, a zero-length RDMA WRITE, whose retries run out: the client connection closes within
     * keepalive + (retry-count + 1) ACK timeouts (here 0.2 s + 8 x 16.8 ms) instead of hanging for ever.
     */
    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void aTargetThatVanishesWhileTheClientWaitsClosesTheClient(FrontEndKind kind, int flowc) throws Exception {
        GatewayServer g = gateway(kind, flowc, "infiniband { keepalive = 200ms }");
        try (Session c = driver.connect(g, route)) {
            roundTrip(c, 1000, 3);
            SoftDevice targetDevice = (SoftDevice) target.device;
            try {
                targetDevice.setFaults(new FaultConfig(1.0, 0, 0, 0, 1)); // the target sends nothing any more
                c.assertClosedByGateway(Ending.FAILURE);
            } finally {
                targetDevice.setFaults(FaultConfig.NONE);
            }
        }
        assertReleased();
    }

    /** Shutdown drains each connection (VI/TCP: both reliability extremes; iWARP: CRC on and off) within its grace. */
    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void shutdownDrainsOpenConnections(FrontEndKind kind, int flowc) throws Exception {
        GatewayServer g = gateway(kind, flowc, "");
        try (Session a = driver.connect(g, route); Session b = driver.connect(g, route, Assurance.WEAKEST, 4)) {
            roundTrip(a, 60000, 4);
            roundTrip(b, 10, 5);
            int before = target.disconnects.get();
            // close() returns once every connection drained, which needs each client to read to its end meanwhile
            Thread closer = Thread.ofVirtual().start(g::close);
            a.assertClosedByGateway(Ending.ORDERLY);
            a.close();
            b.assertClosedByGateway(Ending.ORDERLY);
            b.close();
            closer.join(T);
            assertThat(closer.isAlive()).as("the gateway drained and stopped").isFalse();
            awaitTrue(() -> target.disconnects.get() == before + 2);
        }
        assertThat(g.bridgeContext().connections()).isEmpty();
        assertThat(g.bridgeContext().pool().inUse()).isZero();
        gateway = null;
    }

    /**
     * Client input pauses while no staging slot is free (admission), and every Send gets through in order. The
     * clients have no credits to stop them first (VI/TCP without descriptor flow control; iWARP has none): only
     * the gateway's admission holds them back.
     */
    @ParameterizedTest(name = "{0}, FlowC {1}")
    @MethodSource("frontEnds")
    void moreSendsThanStagingSlotsWaitForSlotsAndAllArriveInOrder(FrontEndKind kind, int flowc) throws Exception {
        GatewayServer g = gateway(kind, flowc, "");
        double stalls = stalls(g);
        int n = 3 * g.bridgeContext().config().slotsPerConnection();
        try (Session c = driver.connect(g, route, Assurance.WEAKEST, n)) {
            byte[][] sent = new byte[n][];
            for (int i = 0; i < n; i++) {
                sent[i] = message(20_000 + i, 100 + i);
                c.send(sent[i]);
            }
            for (int i = 0; i < n; i++) {
                assertThat(c.awaitEcho()).as("echo %d", i).isEqualTo(sent[i]);
            }
        }
        assertThat(stalls(g)).as("client input paused for a slot").isGreaterThan(stalls);
        assertReleased();
    }

    /** Bytes the gateway took from the client on {@code clientPort}. */
    private static long bytesIn(GatewayServer g, int clientPort) {
        return g.bridgeContext().connections().stream().map(BridgedConnection::info)
                .filter(i -> i.client().endsWith(":" + clientPort)).mapToLong(ConnectionInfo::bytesIn).sum();
    }

    private static double stalls(GatewayServer g) {
        return g.registry().get("vibridge.credit.stalls").tag("direction", "client_to_target").counter().count();
    }
}

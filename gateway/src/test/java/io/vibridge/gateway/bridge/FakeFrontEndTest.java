package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.Admission;
import io.vibridge.gateway.bridge.client.NetSocketTransport;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.soft.FaultConfig;
import io.vibridge.verbs.soft.SoftDevice;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generic {@link BridgedConnection} driven by the tests' {@link FakeFrontEnd} over a real loopback socket
 * and the soft fabric to an echo target: the lifecycle every front end shares (accept, refusal, target
 * failure, drain, shutdown, keepalive) against a real RC peer. {@link ConnectionLifecycleTest} takes the same
 * lifecycle with no socket and fake verbs.
 */
class FakeFrontEndTest {
    static EchoTarget target;
    static VerbsDevice device;
    static ProtectionDomain pd;
    static Vertx vertx;
    BridgeContext shared;
    StagingPool pool;
    NetServer server;
    volatile FakeFrontEnd fake;
    volatile BridgedConnection connection;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.159", 5000, 8, 65552);
        device = Verbs.open(DeviceConfig.of("127.0.0.160").withProvider("soft"));
        pd = device.allocateProtectionDomain();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        await(vertx.close());
        pd.close();
        device.close();
        target.close();
    }

    @AfterEach
    void closeServer() {
        if (server != null) {
            await(server.close());
        }
        target.reject = false;
    }

    /** A listener whose connections are bridged with a {@link FakeFrontEnd}; its port. */
    private int listen(String extra) {
        GatewayConfig config = TestSupport.config("127.0.0.160", TestSupport.route("echo", "127.0.0.159", 5000, 1, 8),
                extra);
        pool = new StagingPool(pd, config.staging().slotSize(), 256, 16, 4);
        shared = new BridgeContext(config, device, pd, pool, new GatewayMetrics(new SimpleMeterRegistry()));
        Admission admission = new Admission(16, 16, new SimpleMeterRegistry(), TimeUnit.SECONDS.toNanos(10));
        Route route = config.routes().lookup("echo").orElseThrow();
        server = vertx.createNetServer().connectHandler(socket -> {
            fake = new FakeFrontEnd(route);
            connection = new BridgedConnection(shared, vertx, new NetSocketTransport(socket), admission.admit(ClientProtocol.VITCP,
                    InetAddress.getLoopbackAddress()), fake);
            connection.start();
        });
        return await(server.listen(0, "127.0.0.1")).actualPort();
    }

    private static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(Socket s, String command, long value) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(9).put(command.getBytes()[0]).putLong(value);
        s.getOutputStream().write(b.array(), 0, command.equals("C") ? 1 : 9);
        s.getOutputStream().flush();
    }

    /** Asks for the route and waits until the connection is bridged (the fake takes no Send before). */
    private void bridged(Socket s) throws Exception {
        send(s, "C", 0);
        awaitTrue(() -> connection != null && connection.phase() == Phase.CONNECTED);
        assertThat(fake.events).contains("accepted bufs=8 receive=65552");
    }

    private static long echoed(Socket s) throws Exception {
        s.setSoTimeout(20_000);
        byte[] b = s.getInputStream().readNBytes(8);
        assertThat(b).hasSize(8);
        return ByteBuffer.wrap(b).getLong();
    }

    private static boolean endedByTheBridge(Socket s) throws Exception {
        s.setSoTimeout(20_000);
        InputStream in = s.getInputStream();
        return in.read() == -1;
    }

    private void assertReleased() throws InterruptedException {
        awaitTrue(() -> shared.connections().isEmpty());
        assertThat(fake.events).contains("released");
        assertThat(pool.inUse()).as("staging back in the pool").isZero();
        assertThat(shared.bridgedConnections()).isZero();
    }

    @Test
    void acceptedThenSendsGoBothWaysThenTheClientCloses() throws Exception {
        int port = listen("");
        int dreqs = target.disconnects.get();
        try (Socket s = new Socket("127.0.0.1", port)) {
            bridged(s);
            for (long v = 1; v <= 20; v++) { // more than the client slots: each slot comes back
                send(s, "S", v);
                assertThat(echoed(s)).isEqualTo(v);
            }
        }
        awaitTrue(() -> target.disconnects.get() == dreqs + 1); // the client's close is a DREQ
        assertReleased();
        assertThat(fake.events).doesNotContain("fail");
    }

    @Test
    void aRefusalIsTheFrontEndsToAnswer() throws Exception {
        int port = listen("");
        target.reject = true;
        try (Socket s = new Socket("127.0.0.1", port)) {
            send(s, "C", 0);
            assertThat(endedByTheBridge(s)).isTrue();
        }
        assertThat(fake.events).contains("refused TARGET_REJECTED");
        assertReleased();
    }

    @Test
    void aGatewayLimitIsARefusalToo() throws Exception {
        int port = listen("limits { max-connections = 1 }");
        try (Socket first = new Socket("127.0.0.1", port)) {
            send(first, "C", 0);
            awaitTrue(() -> fake != null && fake.events.contains("accepted bufs=8 receive=65552"));
            FakeFrontEnd firstFake = fake;
            try (Socket second = new Socket("127.0.0.1", port)) {
                awaitTrue(() -> fake != firstFake);
                send(second, "C", 0);
                assertThat(endedByTheBridge(second)).isTrue();
                assertThat(fake.events).contains("refused LIMIT");
            }
        }
        assertReleased();
    }

    @Test
    void theTargetsDreqDrainsAndClosesTheFrontEnd() throws Exception {
        int port = listen("");
        try (Socket s = new Socket("127.0.0.1", port)) {
            bridged(s);
            send(s, "S", 7);
            assertThat(echoed(s)).isEqualTo(7);
            target.disconnectAll();
            assertThat(endedByTheBridge(s)).isTrue();
        }
        assertThat(fake.events).contains("close").doesNotContain("fail");
        assertReleased();
    }

    @Test
    void aShutdownDrainsThroughTheFrontEnd() throws Exception {
        int port = listen("");
        try (Socket s = new Socket("127.0.0.1", port)) {
            bridged(s);
            send(s, "S", 9);
            assertThat(echoed(s)).isEqualTo(9);
            connection.shutdownAsync();
            assertThat(endedByTheBridge(s)).isTrue();
        }
        assertThat(fake.events).contains("close");
        assertReleased();
    }

    /** An idle connection whose target vanished: the keepalive probe's retries run out and the front end fails. */
    @Test
    void theKeepaliveFindsAVanishedTarget() throws Exception {
        int port = listen("infiniband { keepalive = 200ms }");
        SoftDevice targetDevice = (SoftDevice) target.device;
        try (Socket s = new Socket("127.0.0.1", port)) {
            bridged(s);
            send(s, "S", 3);
            assertThat(echoed(s)).isEqualTo(3);
            targetDevice.setFaults(new FaultConfig(1.0, 0, 0, 0, 1)); // the target sends nothing any more
            assertThat(endedByTheBridge(s)).isTrue();
        } finally {
            targetDevice.setFaults(FaultConfig.NONE);
        }
        assertThat(fake.events).anyMatch(e -> e.startsWith("fail"));
        assertReleased();
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.gateway.admission.Admission;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generic {@link BridgedConnection}'s lifecycle with no socket and no fabric: a {@link FakeFrontEnd} over a
 * {@link MemoryTransport}, fake verbs whose CM the test answers and whose completions the test makes. Each case
 * ends with the connection released: its QP closed, its staging back in the pool, its setup place returned.
 */
class ConnectionLifecycleTest {
    static Vertx vertx;
    private final List<FakeVerbs.Qp> qps = new ArrayList<>();
    private final List<FakeVerbs.Cq> cqs = new ArrayList<>();
    private final FakeVerbs.Cm cm = new FakeVerbs.Cm();
    private final Admission admission = new Admission(16, 16, new SimpleMeterRegistry(), TimeUnit.SECONDS.toNanos(10));
    private Context context;
    private StagingPool pool;
    private BridgeContext shared;
    private MemoryTransport client;
    private FakeFrontEnd front;
    private BridgedConnection connection;

    @BeforeAll
    static void startVertx() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stopVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    /** A connection to route "echo" (FlowC 1, 8 target buffers, Hello) with {@code extra} configuration. */
    private void open(String extra, Duration requestTimeout) throws Exception {
        GatewayConfig config = TestSupport.config("127.0.0.9", TestSupport.route("echo", "127.0.0.10", 5000, 1, 8),
                extra);
        ProtectionDomain pd = FakeVerbs.protectionDomain(qps);
        pool = new StagingPool(pd, config.staging().slotSize(), 64, 16, 4);
        shared = new BridgeContext(config, FakeVerbs.device(cqs, Set.of(), cm), pd, pool,
                new GatewayMetrics(new SimpleMeterRegistry()));
        context = vertx.getOrCreateContext();
        front = new FakeFrontEnd(config.routes().lookup("echo").orElseThrow());
        front.requestTimeout = requestTimeout;
        client = new MemoryTransport(r -> context.runOnContext(v -> r.run()));
        on(() -> {
            connection = new BridgedConnection(shared, vertx, client,
                    admission.admit(ClientProtocol.VITCP, InetAddress.getLoopbackAddress()), front);
            connection.start();
        });
    }

    private void open() throws Exception {
        open("", Duration.ofSeconds(10));
    }

    /** Runs {@code r} on the connection's context and waits for it. */
    private void on(Runnable r) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        context.runOnContext(v -> {
            try {
                r.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        done.get(10, TimeUnit.SECONDS);
    }

    /** What the connection's context has queued so far has run. */
    private void settle() throws Exception {
        on(() -> { });
        on(() -> { });
    }

    private static byte[] send(long value) {
        return ByteBuffer.allocate(9).put((byte) 'S').putLong(value).array();
    }

    /** The client asks for the route; the connection sends the CM REQ. */
    private FakeVerbs.Id requested() throws Exception {
        on(() -> client.input(new byte[] {'C'}));
        settle();
        assertThat(cm.ids).hasSize(1);
        assertThat(connection.phase()).isEqualTo(Phase.CONNECTING_TARGET);
        FakeVerbs.Id id = cm.ids.getFirst();
        id.qp.flushOnError = true;
        return id;
    }

    /** ... and the target accepts with a HelloReply. */
    private FakeVerbs.Id bridged() throws Exception {
        FakeVerbs.Id id = requested();
        on(() -> id.deliver(i -> new CmEvent.Established(i, HelloReply.of(8, 65552).toBytes(), 4, 4)));
        settle();
        assertThat(connection.phase()).isEqualTo(Phase.CONNECTED);
        assertThat(front.events).contains("accepted bufs=8 receive=65552");
        return id;
    }

    private void assertReleased() throws Exception {
        awaitTrue(() -> shared.connections().isEmpty());
        assertThat(front.events).contains("released");
        assertThat(qps).allSatisfy(q -> assertThat(q.closed).as("QP destroyed").isTrue());
        assertThat(pool.inUse()).as("staging back in the pool").isZero();
        assertThat(shared.bridgedConnections()).as("connection budget").isZero();
        assertThat(admission.pending()).as("setup place").isZero();
    }

    @Test
    void bridgedThenMessagesBothWaysThenTheClientsCloseIsADreq() throws Exception {
        open();
        FakeVerbs.Id id = bridged();
        assertThat(id.params.serviceId()).isNotZero();
        FakeVerbs.Qp qp = id.qp;
        for (long v = 1; v <= 20; v++) { // more than the client slots: each comes back on its completion
            long value = v;
            on(() -> client.input(send(value)));
            settle();
            FakeVerbs.Posted s = qp.outstandingSend(WrOpcode.SEND);
            assertThat(s.length()).isEqualTo(8);
            on(() -> qp.complete(s, WcStatus.SUCCESS));
        }
        on(() -> qp.receive(ByteBuffer.allocate(8).putLong(77).array()));
        settle();
        assertThat(ByteBuffer.wrap(client.written()).getLong()).isEqualTo(77);
        on(client::clientCloses);
        assertReleased();
        assertThat(id.disconnects).hasValue(1);
        assertThat(front.events).doesNotContain("client op failed").noneMatch(e -> e.startsWith("fail"));
    }

    @Test
    void aTargetSendBeforeTheCmEstablishedEventWaitsForTheClientsAcceptance() throws Exception {
        open();
        FakeVerbs.Id id = requested();
        on(() -> id.qp.receive(ByteBuffer.allocate(8).putLong(5).array())); // the target sends once it has our RTU
        settle();
        assertThat(client.written()).isEmpty();
        on(() -> id.deliver(i -> new CmEvent.Established(i, HelloReply.of(8, 65552).toBytes(), 4, 4)));
        settle();
        assertThat(ByteBuffer.wrap(client.written()).getLong()).isEqualTo(5);
        on(client::clientCloses);
        assertReleased();
    }

    @Test
    void aCmRejectIsTheFrontEndsRefusalToAnswer() throws Exception {
        open();
        FakeVerbs.Id id = requested();
        on(() -> id.deliver(i -> new CmEvent.Rejected(i, CmEvent.REJ_CONSUMER, new byte[0])));
        assertReleased();
        assertThat(front.events).contains("refused TARGET_REJECTED");
        assertThat(client.ended).isTrue();
    }

    @Test
    void anUnknownServiceIdOrNoAnswerIsAnUnreachableTarget() throws Exception {
        open();
        FakeVerbs.Id id = requested();
        on(() -> id.deliver(i -> new CmEvent.Rejected(i, CmEvent.REJ_INVALID_SERVICE_ID, new byte[0])));
        assertReleased();
        assertThat(front.events).contains("refused TARGET_UNREACHABLE");

        qps.clear();
        cm.ids.clear();
        open();
        FakeVerbs.Id second = requested();
        on(() -> second.deliver(CmEvent.ConnectTimeout::new));
        assertReleased();
        assertThat(front.events).contains("refused TARGET_UNREACHABLE");
    }

    @Test
    void aBadHelloReplyIsARefusalAndTheTargetGetsItsDreq() throws Exception {
        open();
        FakeVerbs.Id id = requested();
        on(() -> id.deliver(i -> new CmEvent.Established(i, new byte[] {1, 2, 3}, 4, 4)));
        assertReleased();
        assertThat(front.events).contains("refused TARGET_REJECTED");
        assertThat(id.disconnects).hasValue(1);
    }

    @Test
    void aFailedClientMessageFailsTheConnectionAndDisconnectsTheTarget() throws Exception {
        open();
        FakeVerbs.Id id = bridged();
        on(() -> client.input(send(1)));
        settle();
        FakeVerbs.Posted s = id.qp.outstandingSend(WrOpcode.SEND);
        on(() -> id.qp.complete(s, WcStatus.RETRY_EXCEEDED));
        assertReleased();
        assertThat(front.events).contains("client op failed").anyMatch(e -> e.startsWith("fail InfiniBand"));
        assertThat(id.disconnects).hasValue(1);
        assertThat(client.closed).isTrue();
    }

    @Test
    void theTargetsDreqDrainsAndClosesTheFrontEnd() throws Exception {
        open();
        FakeVerbs.Id id = bridged();
        on(id::peerDisconnects);
        assertReleased();
        assertThat(front.events).contains("close").noneMatch(e -> e.startsWith("fail"));
        assertThat(client.ended).isTrue();
    }

    @Test
    void aShutdownWaitsForTheClientsMessageThenDrainsThroughTheFrontEnd() throws Exception {
        open();
        FakeVerbs.Id id = bridged();
        on(() -> client.input(send(1)));
        settle();
        on(connection::shutdown);
        settle();
        assertThat(connection.phase()).as("a client message still in flight").isEqualTo(Phase.DRAINING);
        assertThat(client.paused).isTrue();
        on(() -> id.qp.complete(id.qp.outstandingSend(WrOpcode.SEND), WcStatus.SUCCESS));
        assertReleased();
        assertThat(front.events).contains("close");
        assertThat(id.disconnects).hasValue(1);
    }

    @Test
    void theKeepaliveProbesAnIdleTargetAndItsFailureClosesTheClient() throws Exception {
        open("infiniband { keepalive = 50ms }", Duration.ofSeconds(10));
        FakeVerbs.Id id = bridged();
        awaitTrue(() -> id.qp.sends.stream().anyMatch(p -> p.opcode() == WrOpcode.RDMA_WRITE));
        FakeVerbs.Posted probe = id.qp.sends.stream().filter(p -> p.opcode() == WrOpcode.RDMA_WRITE).findFirst()
                .orElseThrow();
        assertThat(probe.length()).as("a zero-length RDMA WRITE").isZero();
        on(() -> id.qp.complete(probe, WcStatus.RETRY_EXCEEDED)); // the target is gone
        assertReleased();
        assertThat(front.events).anyMatch(e -> e.startsWith("fail InfiniBand"));
    }

    @Test
    void noRequestWithinTheTimeoutClosesTheClient() throws Exception {
        open("", Duration.ofMillis(100));
        awaitTrue(() -> client.closed);
        assertReleased();
        assertThat(cm.ids).isEmpty();
    }

    @Test
    void aClientThatClosesWhileTheTargetIsAskedLeavesNothingBehind() throws Exception {
        open();
        FakeVerbs.Id id = requested();
        on(client::clientCloses);
        settle();
        assertThat(id.disconnects).hasValue(1);
        assertReleased();
    }
}

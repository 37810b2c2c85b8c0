package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.soft.FaultConfig;
import io.vibridge.verbs.soft.SoftDevice;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Disconnects both ways (TCP close <-> DREQ) and a gateway shutdown with connections open. */
class DisconnectTest {
    static EchoTarget target;
    static ViNic nic;
    GatewayServer gateway;

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.63", 5000, 8, 65552);
        nic = TestSupport.clientNic();
    }

    @AfterAll
    static void stop() {
        nic.close();
        target.close();
    }

    @AfterEach
    void closeGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private GatewayServer gateway() {
        gateway = GatewayServer.start(TestSupport.config("127.0.0.64",
                TestSupport.route("echo", "127.0.0.63", 5000, 0, 8), ""));
        return gateway;
    }

    private static void roundTrip(TestSupport.Client c, int size) throws InterruptedException {
        TestSupport.fill(c.mr, c.sendArea(0), size, size);
        c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), size));
        assertThat(c.vi.sendWait(T).isError()).isFalse();
        Descriptor rx = c.vi.recvWait(T);
        assertThat(rx.isError()).isFalse();
        assertThat(rx.length()).isEqualTo(size);
    }

    @Test
    void clientCloseDisconnectsTheTargetAndFreesStaging() throws Exception {
        GatewayServer g = gateway();
        int before = target.disconnects.get();
        var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 4);
        c.connect(g.port(), "echo");
        roundTrip(c, 1000);
        assertThat(g.bridgeContext().pool().inUse()).isGreaterThan(0);
        c.vi.disconnect();
        awaitTrue(() -> target.disconnects.get() == before + 1);
        awaitTrue(() -> g.bridgeContext().connections().isEmpty());
        assertThat(g.bridgeContext().pool().inUse()).isZero();
        assertThat(g.bridgeContext().bridgedConnections()).isZero();
    }

    @Test
    void targetDisconnectClosesTheClient() throws Exception {
        GatewayServer g = gateway();
        var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, 4);
        c.connect(g.port(), "echo");
        roundTrip(c, 5000);
        target.disconnectAll();
        awaitTrue(() -> c.vi.state() != ViState.CONNECTED);
        awaitTrue(() -> g.bridgeContext().connections().isEmpty());
        assertThat(g.bridgeContext().pool().inUse()).isZero();
        c.close();
    }

    /**
     * A target that vanishes while the client only waits (nothing in flight on the InfiniBand side) is found by
     * the keepalive probe, a zero-length RDMA WRITE, whose retries run out: the client connection closes within
     * keepalive + (retry-count + 1) ACK timeouts (here 0.2 s + 8 x 16.8 ms) instead of hanging for ever.
     */
    @Test
    void aTargetThatVanishesWhileTheClientWaitsClosesTheClient() throws Exception {
        gateway = GatewayServer.start(TestSupport.config("127.0.0.64",
                TestSupport.route("echo", "127.0.0.63", 5000, 0, 8), "infiniband { keepalive = 200ms }"));
        var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 4);
        c.connect(gateway.port(), "echo");
        roundTrip(c, 1000);
        SoftDevice targetDevice = (SoftDevice) target.device;
        try {
            targetDevice.setFaults(new FaultConfig(1.0, 0, 0, 0, 1)); // the target sends nothing any more
            awaitTrue(() -> c.vi.state() != ViState.CONNECTED);
        } finally {
            targetDevice.setFaults(FaultConfig.NONE);
        }
        awaitTrue(() -> gateway.bridgeContext().connections().isEmpty());
        c.close();
    }

    @Test
    void shutdownDrainsOpenConnections() throws Exception {
        GatewayServer g = gateway();
        var a = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 4);
        var b = new TestSupport.Client(nic, ReliabilityLevel.UNRELIABLE_DELIVERY, false, 4);
        a.connect(g.port(), "echo");
        b.connect(g.port(), "echo");
        roundTrip(a, 60000);
        roundTrip(b, 10);
        int before = target.disconnects.get();
        long t0 = System.nanoTime();
        g.close();
        gateway = null;
        assertThat(System.nanoTime() - t0).isLessThan(T.toNanos());
        awaitTrue(() -> a.vi.state() != ViState.CONNECTED && b.vi.state() != ViState.CONNECTED);
        awaitTrue(() -> target.disconnects.get() == before + 2);
        a.close();
        b.close();
    }
}

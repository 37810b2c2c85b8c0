package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.Verbs;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Without cut-through, as on hardware (docs/hardware.md): a target's RDMA aimed at the client's memory reaches the
 * gateway's own queue pair, which refuses it (no registration grants remote access); the queue pair's async event
 * ends the connection with the reason, counted, and the client learns it at once rather than waiting on a dead
 * queue pair. Sends in both directions keep working before that.
 */
class NoCutThroughTest {
    static TargetService target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() {
        target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.146")).withProvider("soft")
                .withReceives(16, 65552).withRegionSize(4 << 20).withSchemes(Set.of(ServiceIdScheme.IWARP)));
        gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString("""
                vibridge.gateway { listen { host = "127.0.0.1", port = 0, rdmatcp-port = 0 }
                admin { host = "127.0.0.1", port = 0 }
                infiniband { provider = soft, address = "127.0.0.145", cut-through = off, local-ack-timeout = 14 }
                staging { max-slots = 64 }
                shutdown-grace = 2s
                routes = [ { match = "demo", target = "127.0.0.146", port = 5000, flowc = 1,
                             receive-size = 65552, receive-buffers = 8 } ] }""")));
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
    void targetRdmaToTheClientEndsTheConnectionWithTheReasonAndIsCounted() throws Exception {
        ViClientOptions o = new ViClientOptions(new InetSocketAddress("127.0.0.1", gateway.port()), "demo",
                ReliabilityLevel.RELIABLE_RECEPTION, true, null, 65536, 8, 4, Duration.ofSeconds(30));
        try (ViClient c = ViClient.open(o)) {
            MemoryRegion mem = c.expose(1 << 20);
            c.connect();
            // Sends both ways still work (a control round trip is a Send each way)
            c.controlOk(Control.QUERY_REGION, null);
            ByteBuffer w = ByteBuffer.allocate(20).putLong(0, mem.address(4096)).putInt(8, mem.handle())
                    .putInt(12, 1000).putInt(16, 42);
            assertThatThrownBy(() -> c.control(Control.WRITE_TO_PEER, w)).isNotNull();
        }
        // the async event reaches the gateway on its own context: the flush may end the connection before it
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (gateway.registry().get("vibridge.ib.async.events").tag("event", "qp_access_error").counter().count() < 1
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(gateway.registry().get("vibridge.ib.async.events").tag("event", "qp_access_error").counter().count())
                .isEqualTo(1.0);
        assertThat(gateway.registry().get("vibridge.target.rdma.refused").counter().count()).isEqualTo(1.0);
    }

    /**
     * A device that raises no async event for it (Linux 6.1's rxe, seen in the VM): the gateway's queue pair goes to
     * ERROR and flushes its receives with nothing of ours failed, which says the same at once.
     */
    @Test
    void withoutTheAsyncEventTheQueuePairsOwnErrorSaysIt() throws Exception {
        GatewayServer silent = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString("""
                vibridge.gateway { listen { host = "127.0.0.1", port = 0, rdmatcp-port = off }
                admin { host = "127.0.0.1", port = 0 }
                infiniband { provider = soft, address = "127.0.0.153", cut-through = off, local-ack-timeout = 14 }
                staging { max-slots = 64 }
                shutdown-grace = 2s
                routes = [ { match = "demo", target = "127.0.0.146", port = 5000, flowc = 1,
                             receive-size = 65552, receive-buffers = 8 } ] }""")),
                dc -> new ForwardingDevice(Verbs.open(dc), true));
        try {
            ViClientOptions o = new ViClientOptions(new InetSocketAddress("127.0.0.1", silent.port()), "demo",
                    ReliabilityLevel.RELIABLE_RECEPTION, true, null, 65536, 8, 4, Duration.ofSeconds(30));
            try (ViClient c = ViClient.open(o)) {
                MemoryRegion mem = c.expose(1 << 20);
                c.connect();
                ByteBuffer w = ByteBuffer.allocate(20).putLong(0, mem.address(4096)).putInt(8, mem.handle())
                        .putInt(12, 1000).putInt(16, 42);
                assertThatThrownBy(() -> c.control(Control.WRITE_TO_PEER, w)).isNotNull();
            }
            assertThat(silent.registry().get("vibridge.target.rdma.refused").counter().count()).isEqualTo(1.0);
            assertThat(silent.registry().get("vibridge.ib.async.events").tag("event", "qp_access_error").counter()
                    .count()).isZero();
        } finally {
            silent.close();
        }
    }
}

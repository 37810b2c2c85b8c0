package io.vibridge.interop.virping;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.interop.rping.RpingServer;
import io.vibridge.interop.support.Captured;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.LoopbackDevices;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * vi-rping -> in-process gateway (route {@code cm-format = rdma-cm}) -> our rping server, one JVM: the VI Sends
 * become the server's SENDs, its RDMA READ / WRITE of the client's VI memory are cut through the gateway, the
 * client's disconnect becomes the DREQ that ends the server's loop.
 */
class ViRpingThroughGatewayTest {
    static final int PORT = 7174;
    static final ExecutorService POOL = Executors.newCachedThreadPool();
    static VerbsDevice serverDevice;
    static GatewayServer gateway;

    @BeforeAll
    static void start() {
        serverDevice = LoopbackDevices.open();
        String hocon = "vibridge.gateway { listen { host = \"127.0.0.1\", port = 0, rdmatcp-port = 0 }\n"
                + "admin { host = \"127.0.0.1\", port = 0 }\n"
                + "infiniband { provider = soft, address = \"" + LoopbackDevices.freeAddress() + "\", "
                + "local-ack-timeout = 14, cm-response-timeout = 16 }\n"
                + "staging { max-slots = 256 }\nlimits { max-connections = 16 }\nshutdown-grace = 2s\n"
                + "routes = [ { match = \"rping\", target = \"" + serverDevice.address().getHostAddress() + "\", "
                + "port = " + PORT + ", service-id = rdma-cm, cm-format = rdma-cm, flowc = 1, "
                + "receive-size = 65552, receive-buffers = 8 } ]\n}";
        gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString(hocon)));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (serverDevice != null) {
            serverDevice.close();
        }
        POOL.shutdownNow();
    }

    record Pair(Outcome server, Outcome client, String serverOut, String clientOut) {
    }

    static Pair run(ReliabilityLevel level, String route, int count, int size) throws Exception {
        Captured so = new Captured();
        Captured co = new Captured();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        try (RpingServer srv = RpingServer.listen(serverDevice, new RpingServer.Settings(serverDevice.address(), PORT,
                count, size, true, false, false, 12), deadline, so.out)) {
            Future<Outcome> served = POOL.submit(srv::serve);
            Outcome c = ViRpingClient.run(new ViRpingClient.Settings(new InetSocketAddress("127.0.0.1", gateway.port()),
                    route, level, count, size, true, false), deadline, co.out);
            Outcome s = c.pass() ? served.get(60, TimeUnit.SECONDS) : cancel(served);
            return new Pair(s, c, so.toString(), co.toString());
        }
    }

    private static Outcome cancel(Future<Outcome> served) {
        served.cancel(true);
        return Outcome.fail(RpingServer.NAME, "not run to its end");
    }

    @ParameterizedTest
    @CsvSource({"RELIABLE_DELIVERY, 64", "RELIABLE_DELIVERY, 65000", "RELIABLE_RECEPTION, 64",
            "RELIABLE_RECEPTION, 65000"})
    void rpingOverVi_throughTheGateway(ReliabilityLevel level, int size) throws Exception {
        int count = size == 64 ? 20 : 5;
        Pair p = run(level, "rping", count, size);
        assertThat(p.client().pass()).as(p.clientOut() + p.serverOut()).isTrue();
        assertThat(p.client().details()).startsWith("pings=" + count + " size=" + size + " validated=" + count
                + " reliability=" + level);
        assertThat(p.server().line()).as(p.serverOut()).isEqualTo("RESULT rping-server PASS iterations=" + count
                + " size=" + size + " validated=" + count);
        // the REQ's CMA header names the gateway's own RoCE address (CM-MAPPING §5), which our server checks
        assertThat(p.serverOut()).contains("connect request from ");
    }

    @Test
    void unknownRoute_failsTheClientWithNoMatch() throws Exception {
        Captured co = new Captured();
        Outcome c = ViRpingClient.run(new ViRpingClient.Settings(new InetSocketAddress("127.0.0.1", gateway.port()),
                "nowhere", ReliabilityLevel.RELIABLE_DELIVERY, 1, 64, true, false),
                Deadline.after(Duration.ofSeconds(10)), co.out);
        assertThat(c.pass()).isFalse();
        assertThat(c.details()).contains("No Match");
    }
}

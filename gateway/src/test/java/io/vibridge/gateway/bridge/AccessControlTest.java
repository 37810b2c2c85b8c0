package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Shared-key HMAC (global and per route), per-client and gateway connection limits. */
class AccessControlTest {
    static final String KEY = "global-secret-0123456789";
    static final String ROUTE_KEY = "route-secret-abcdefghijk";
    static EchoTarget target;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.65", 5000, 4, 65552);
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static ViNic nic(String key) throws Exception {
        NicConfig c = NicConfig.loopback().withListen(null);
        return ViNic.open(key == null ? c : c.withKey(key.getBytes(StandardCharsets.UTF_8)));
    }

    private static void expectReject(ViNic nic, int port, String called, int is) {
        var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
        assertThatThrownBy(() -> c.connect(port, called)).isInstanceOfSatisfying(ViException.class, e -> {
            assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
            assertThat(e.isCode()).isEqualTo(is);
        });
    }

    @Test
    void connectRequestsMustBeSignedWithTheRouteOrGlobalKey() throws Exception {
        try (GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.66",
                TestSupport.route("open", "127.0.0.65", 5000, 1, 4) + ","
                        + TestSupport.route("guarded", "127.0.0.65", 5000, 1, 4),
                "security { key = \"" + KEY + "\", route-keys { guarded = \"" + ROUTE_KEY + "\" } }"));
                ViNic none = nic(null); ViNic global = nic(KEY); ViNic routeKey = nic(ROUTE_KEY)) {
            expectReject(none, g.port(), "open", IsCode.SECURITY_REJECTED);
            expectReject(routeKey, g.port(), "open", IsCode.SECURITY_REJECTED);
            expectReject(global, g.port(), "guarded", IsCode.SECURITY_REJECTED);
            try (var ok = new TestSupport.Client(global, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
                ok.connect(g.port(), "open"); // the Accept is signed too: the client verifies it
            }
            try (var ok = new TestSupport.Client(routeKey, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
                ok.connect(g.port(), "guarded");
            }
            assertThat(g.registry().scrape()).containsPattern("vibridge_connections_rejected_total\\{reason=\"security\"\\} 3");
        }
    }

    @Test
    void perClientAndRateLimits() throws Exception {
        try (GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.66",
                TestSupport.route("echo", "127.0.0.65", 5000, 1, 4),
                "limits { max-connections-per-client = 2 }"));
                ViNic nic = nic(null)) {
            var a = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
            var b = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
            a.connect(g.port(), "echo");
            b.connect(g.port(), "echo");
            expectReject(nic, g.port(), "echo", IsCode.RESOURCES_EXHAUSTED);
            a.close();
            awaitTrue(() -> g.bridgeContext().bridgedConnections() == 1);
            try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
                c.connect(g.port(), "echo");
            }
            b.close();
            assertThat(g.registry().scrape()).containsPattern("vibridge_connections_rejected_total\\{reason=\"limit\"\\} 1");
        }
        try (GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.66",
                TestSupport.route("echo", "127.0.0.65", 5000, 1, 4),
                "limits { connect-rate = 0.001, connect-burst = 1 }"));
                ViNic nic = nic(null)) {
            try (var ok = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
                ok.connect(g.port(), "echo");
            }
            var over = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
            assertThatThrownBy(() -> over.connect(g.port(), "echo")).isInstanceOf(ViException.class);
        }
    }
}

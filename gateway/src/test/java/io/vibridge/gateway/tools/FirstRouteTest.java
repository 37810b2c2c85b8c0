package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The first route a user writes, with only {@code match}, {@code target} and {@code port} and every
 * other key at its default (the gateway's and the demo target's): it starts and carries traffic, full
 * 64 KiB messages included. Only the addresses and ports are the test's own (loopback, OS-chosen).
 */
class FirstRouteTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 65536})
    void aRouteWithOnlyMatchTargetAndPortCarriesTraffic(int size) throws Exception {
        GatewayConfig config = GatewayConfig.from(ConfigFactory.parseString("""
                vibridge.gateway {
                  listen { host = "127.0.0.1", port = 0, rdmatcp-port = 0 }
                  admin { host = "127.0.0.1", port = 0 }
                  infiniband { provider = soft, address = "127.0.0.123" }
                  routes = [ { match = "storage", target = "127.0.0.122", port = 5000 } ]
                }
                """));
        assertThat(config.routes().lookup("storage").orElseThrow().target().parameters().receiveBuffers())
                .isEqualTo(8).isLessThan(config.slotsPerConnection());
        try (TargetService target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.122"))
                .withProvider("soft"));
                GatewayServer gateway = GatewayServer.start(config)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            int code = Ping.run(new ViClientOptions(new InetSocketAddress("127.0.0.1", gateway.port()), "storage",
                    ReliabilityLevel.RELIABLE_DELIVERY, true, null, size, 4, 1, Duration.ofSeconds(30)), 3,
                    Duration.ZERO, print, print);
            assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("3 sent, 3 received, 0 mismatched");
        }
    }
}

package io.vibridge.cm.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.vitcp.wire.Discriminator;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RoutesTest {

    private static RouteTarget target(String address, int port) {
        return new RouteTarget(InetAddress.ofLiteral(address), port, RouteParameters.DEFAULTS);
    }

    private final Routes routes = Routes.builder()
            .exact("storage", target("127.0.0.3", 5000))
            .prefix("stor", target("127.0.0.4", 5001))
            .prefix("storage-", target("127.0.0.5", 5002))
            .prefix("s", target("127.0.0.6", 5003))
            .exact("hex:00ff10", target("127.0.0.7", 5004))
            .build();

    private static int port(Optional<Route> r) {
        return r.orElseThrow().target().port();
    }

    @Test
    void exactBeatsEveryPrefix() {
        Route r = routes.lookup("storage").orElseThrow();
        assertThat(r.kind()).isEqualTo(Route.Kind.EXACT);
        assertThat(r.target().port()).isEqualTo(5000);
    }

    @Test
    void longestPrefixWins() {
        assertThat(port(routes.lookup("storage-fast"))).isEqualTo(5002);
        assertThat(port(routes.lookup("storagex"))).isEqualTo(5001);
        assertThat(port(routes.lookup("stor"))).isEqualTo(5001);
        assertThat(port(routes.lookup("sto"))).isEqualTo(5003);
        assertThat(routes.lookup("storage-fast").orElseThrow().kind()).isEqualTo(Route.Kind.PREFIX);
    }

    @Test
    void noRouteWhenNothingMatches() {
        assertThat(routes.lookup("x")).isEmpty();
        assertThat(routes.lookup(new byte[0])).isEmpty();
        assertThat(routes.lookup("127.0.0.1:5000")).as("direct routes are disabled").isEmpty();
    }

    @Test
    void binaryDiscriminators() {
        assertThat(port(routes.lookup(new byte[] {0, (byte) 0xFF, 0x10}))).isEqualTo(5004);
        assertThat(routes.lookup(new byte[] {0, (byte) 0xFF})).isEmpty();
    }

    @Test
    void longCalledDiscriminatorsStillMatchPrefixes() {
        assertThat(port(routes.lookup("s".repeat(200)))).isEqualTo(5003);
    }

    @Test
    void catchAllPrefix() {
        Routes r = Routes.builder().prefix("", target("127.0.0.9", 9)).exact("a", target("127.0.0.1", 1)).build();
        assertThat(port(r.lookup("anything"))).isEqualTo(9);
        assertThat(port(r.lookup(new byte[0]))).isEqualTo(9);
        assertThat(port(r.lookup("a"))).isEqualTo(1);
    }

    @Test
    void duplicateExactOrPrefixNamesBothRoutes() {
        assertThatThrownBy(() -> Routes.builder()
                .exact("a", target("127.0.0.1", 1))
                .prefix("a", target("127.0.0.1", 2)) // same text, other kind: fine
                .exact("hex:61", target("127.0.0.1", 3)) // same bytes as "a"
                .build())
                .isInstanceOfSatisfying(RouteConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("routes[2].match");
                    assertThat(e.getMessage()).contains("routes[0] and routes[2] both match exactly \"a\"");
                });
        assertThatThrownBy(() -> Routes.builder()
                .prefix("ab", target("127.0.0.1", 1))
                .prefix("ab", target("127.0.0.1", 2))
                .build())
                .isInstanceOfSatisfying(RouteConfigException.class,
                        e -> assertThat(e.getMessage()).contains("routes[0] and routes[1] both match the prefix \"ab\""));
    }

    @Test
    void directRoutes() {
        RouteParameters direct = new RouteParameters(ServiceIdScheme.SDP, null, CmFormat.HELLO,
                FlowControl.TRANSPORT, 4096, 8);
        Routes r = Routes.builder().exact("10.0.0.1:80", target("127.0.0.1", 1)).directRoutes(direct).build();

        Route v4 = r.lookup("127.0.0.3:5000").orElseThrow();
        assertThat(v4.kind()).isEqualTo(Route.Kind.DIRECT);
        assertThat(v4.target().address()).isEqualTo(InetAddress.ofLiteral("127.0.0.3"));
        assertThat(v4.target().port()).isEqualTo(5000);
        assertThat(v4.target().parameters()).isEqualTo(direct);
        assertThat(v4.target().serviceId().value()).isEqualTo(0x0000_0000_0001_1388L);
        assertThat(v4.discriminator()).isEqualTo(Discriminator.ofUtf8("127.0.0.3:5000"));

        Route v6 = r.lookup("[::1]:65535").orElseThrow();
        assertThat(v6.target().address()).isEqualTo(InetAddress.ofLiteral("::1"));
        assertThat(v6.target().port()).isEqualTo(65535);

        assertThat(port(r.lookup("10.0.0.1:80"))).as("configured route wins").isEqualTo(1);
    }

    @Test
    void directFormIsStrict() {
        Routes r = Routes.builder().directRoutes(RouteParameters.DEFAULTS).build();
        for (String bad : new String[] {
                "localhost:80", "example.com:80", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                "127.0.0.1:080", "127.0.0.1:+80", "256.0.0.1:80", "1.2.3:80", "::1:80", "[::1]", "[::1]:x",
                "[fe80::1%eth0]:80", "[1.2.3.4]:80", " 127.0.0.1:80", "127.0.0.1:80 ", ":80", "[]:80", "[:::]:80"}) {
            assertThat(r.lookup(bad)).as(bad).isEmpty();
        }
        byte[] notUtf8 = "127.0.0.1:80".getBytes(StandardCharsets.UTF_8);
        notUtf8[0] = (byte) 0xC0;
        assertThat(r.lookup(notUtf8)).isEmpty();
    }

    @Test
    void catchAllWithDirectRoutesIsAConfigurationError() {
        assertThatThrownBy(() -> Routes.builder().prefix("", target("127.0.0.1", 1))
                .directRoutes(RouteParameters.DEFAULTS).build())
                .isInstanceOfSatisfying(RouteConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("direct-routes.enabled"));
    }

    @Test
    void routesKeepConfigurationOrder() {
        assertThat(routes.routes()).hasSize(5);
        assertThat(routes.routes().get(1).discriminator()).isEqualTo(Discriminator.ofUtf8("stor"));
        assertThat(routes.directRoutes()).isEmpty();
    }
}

package io.vibridge.cm.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class RoutesConfigTest {

    private static Routes parse(String hocon) {
        return Routes.fromConfig(ConfigFactory.parseString(hocon));
    }

    private static void assertKey(String hocon, String key, String reasonFragment) {
        assertThatThrownBy(() -> parse(hocon)).isInstanceOfSatisfying(RouteConfigException.class, e -> {
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.getMessage()).contains(reasonFragment);
        });
    }

    @Test
    void theCallerChoosesTheDefaultReceiveBuffers() {
        String hocon = """
                routes = [ { match = "a", target = "127.0.0.3", port = 5000 },
                           { match = "b", target = "127.0.0.3", port = 5000, receive-buffers = 5 } ]
                direct-routes { enabled = true }
                """;
        Routes mine = Routes.fromConfig(ConfigFactory.parseString(hocon), 8);
        assertThat(mine.lookup("a").orElseThrow().target().parameters().receiveBuffers()).isEqualTo(8);
        assertThat(mine.lookup("b").orElseThrow().target().parameters().receiveBuffers()).isEqualTo(5);
        assertThat(mine.directRoutes().orElseThrow().receiveBuffers()).isEqualTo(8);
        assertThat(parse(hocon).lookup("a").orElseThrow().target().parameters().receiveBuffers())
                .isEqualTo(RouteParameters.DEFAULT_RECEIVE_BUFFERS);
    }

    @Test
    void theDocumentedExample() {
        Routes routes = parse("""
                routes = [
                  { match = "storage", prefix = false, target = "127.0.0.3", port = 5000, service-id = iwarp, cm-format = hello, flowc = 0, receive-size = 65536, receive-buffers = 64 }
                  { match = "hex:00ff", prefix = true, target = "::1", port = 7471, service-id = rdma-cm, port-space = tcp, cm-format = rdma-cm, flowc = 1 }
                ]
                direct-routes { enabled = false, service-id = iwarp, cm-format = hello, flowc = 1, receive-size = 65536, receive-buffers = 64 }
                """);
        Route storage = routes.lookup("storage").orElseThrow();
        assertThat(storage.target().address()).isEqualTo(InetAddress.ofLiteral("127.0.0.3"));
        assertThat(storage.target().port()).isEqualTo(5000);
        assertThat(storage.target().parameters()).isEqualTo(new RouteParameters(ServiceIdScheme.IWARP, null,
                CmFormat.HELLO, FlowControl.TRANSPORT, 65536, 64));
        assertThat(storage.target().serviceId().value()).isEqualTo(0x0000_0000_0002_1388L);

        Route rdma = routes.lookup(new byte[] {0, (byte) 0xFF, 1}).orElseThrow();
        assertThat(rdma.kind()).isEqualTo(Route.Kind.PREFIX);
        assertThat(rdma.target().parameters().portSpace()).isEqualTo(RdmaPortSpace.TCP);
        assertThat(rdma.target().serviceId().value()).isEqualTo(0x0000_0000_0106_1D2FL);
        assertThat(routes.directRoutes()).isEmpty();
    }

    @Test
    void defaults() {
        Routes routes = parse("routes = [ { match = a, target = \"10.1.2.3\", port = 1 },"
                + " { match = b, target = \"10.1.2.3\", port = 2, cm-format = rdma-cm } ]");
        assertThat(routes.lookup("a").orElseThrow().target().parameters()).isEqualTo(RouteParameters.DEFAULTS);
        RouteParameters b = routes.lookup("b").orElseThrow().target().parameters();
        assertThat(b.scheme()).isEqualTo(ServiceIdScheme.RDMA_CM);
        assertThat(b.flowControl()).isEqualTo(FlowControl.APPLICATION);
        assertThat(parse("").routes()).isEmpty();
        assertThat(parse("other.stuff = 1").directRoutes()).isEmpty();
    }

    @Test
    void helloCarriageIsReadAndCheckedWithItsKey() {
        Routes routes = parse("routes = [ { match = a, target = \"10.1.2.3\", port = 1, service-id = rdma-cm,"
                + " hello-carriage = cma-header } ]");
        assertThat(routes.lookup("a").orElseThrow().target().parameters().helloCarriage())
                .isEqualTo(HelloCarriage.CMA_HEADER);
        assertThatThrownBy(() -> parse("routes = [ { match = a, target = \"10.1.2.3\", port = 1, hello-carriage = half } ]"))
                .isInstanceOfSatisfying(RouteConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("routes[0].hello-carriage"));
        assertThatThrownBy(() -> parse("routes = [ { match = a, target = \"10.1.2.3\", port = 1, service-id = sdp,"
                + " hello-carriage = cma-header } ]"))
                .isInstanceOfSatisfying(RouteConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("routes[0].hello-carriage"));
    }

    @Test
    void sizesAndDirectRoutes() {
        Routes routes = parse("""
                routes = [ { match = "[", target = "[fe80::1]", port = 9, receive-size = 64KiB } ]
                direct-routes { enabled = true, service-id = sdp, flowc = 0, receive-buffers = 16 }
                """);
        assertThat(routes.lookup("[").orElseThrow().target().parameters().receiveSize()).isEqualTo(65536);
        RouteParameters direct = routes.directRoutes().orElseThrow();
        assertThat(direct).isEqualTo(new RouteParameters(ServiceIdScheme.SDP, null, CmFormat.HELLO,
                FlowControl.TRANSPORT, 65536, 16));
        assertThat(routes.lookup("192.168.7.7:4420").orElseThrow().target().serviceId().value())
                .isEqualTo(0x0000_0000_0001_1144L);
    }

    @Test
    void invalidValuesNameTheirKey() {
        String base = "routes = [ { match = a, target = \"127.0.0.1\", port = 1 }, { match = b, target = \"127.0.0.1\", ";
        assertKey(base + "port = 65536 } ]", "routes[1].port", "1..65535");
        assertKey(base + "port = 0 } ]", "routes[1].port", "1..65535");
        assertKey(base + "port = x } ]", "routes[1].port", "integer");
        assertKey(base + "port = 1, service-id = ipoib } ]", "routes[1].service-id", "expected iwarp, sdp or rdma-cm");
        assertKey(base + "port = 1, flowc = 2 } ]", "routes[1].flowc", "0 or 1");
        assertKey(base + "port = 1, cm-format = rdma-cm, flowc = 0 } ]", "routes[1].flowc", "flowc = 1");
        assertKey(base + "port = 1, cm-format = rdma-cm, service-id = iwarp } ]", "routes[1].service-id", "rdma-cm");
        assertKey(base + "port = 1, cm-format = verbs } ]", "routes[1].cm-format", "hello or rdma-cm");
        assertKey(base + "port = 1, receive-size = 0 } ]", "routes[1].receive-size", "1..2147483647");
        assertKey(base + "port = 1, receive-size = -5 } ]", "routes[1].receive-size", "size");
        assertKey(base + "port = 1, receive-size = 4GiB } ]", "routes[1].receive-size", "1..2147483647");
        assertKey(base + "port = 1, receive-buffers = 0 } ]", "routes[1].receive-buffers", "1..65535");
        assertKey(base + "port = 1, flowc = 0, receive-buffers = 2 } ]", "routes[1].receive-buffers", "at least 3");
        assertKey(base + "port = 1, port-space = tcp } ]", "routes[1].port-space", "only applies");
        assertKey(base + "port = 1, service-id = rdma-cm, port-space = sctp } ]", "routes[1].port-space", "tcp, udp");
        assertKey(base + "port = 1, recieve-size = 1 } ]", "routes[1].recieve-size", "unknown key");
        assertKey(base + "port = 1, prefix = maybe } ]", "routes[1].prefix", "true or false");
        assertKey("routes = [ { target = \"127.0.0.1\", port = 1 } ]", "routes[0].match", "missing");
        assertKey("routes = [ { match = a, port = 1 } ]", "routes[0].target", "missing");
        assertKey("routes = [ { match = a, target = \"127.0.0.1\" } ]", "routes[0].port", "missing");
        assertKey("routes = [ { match = a, target = localhost, port = 1 } ]", "routes[0].target", "literal");
        assertKey("routes = [ { match = a, target = \"1.2.3\", port = 1 } ]", "routes[0].target", "literal");
        assertKey("routes = [ { match = \"" + "x".repeat(65) + "\", target = \"127.0.0.1\", port = 1 } ]",
                "routes[0].match", "at most 64");
        assertKey("routes = [ { match = \"hex:0\", target = \"127.0.0.1\", port = 1 } ]", "routes[0].match", "hex");
        assertKey("routes = [ 5 ]", "routes[0]", "must be an object");
        assertKey("routes = 5", "routes", "list");
        assertKey("direct-routes = 5", "direct-routes", "object");
        assertKey("direct-routes { enabled = true, flowc = 7 }", "direct-routes.flowc", "0 or 1");
        assertKey("direct-routes { enabled = true, colour = red }", "direct-routes.colour", "unknown key");
    }

    @Test
    void overlapsNameBothRoutes() {
        assertKey("""
                routes = [
                  { match = a, target = "127.0.0.1", port = 1 }
                  { match = b, target = "127.0.0.1", port = 1 }
                  { match = a, target = "127.0.0.2", port = 2 }
                ]""", "routes[2].match", "routes[0] and routes[2] both match exactly \"a\"");
        assertKey("""
                routes = [
                  { match = a, prefix = true, target = "127.0.0.1", port = 1 }
                  { match = "hex:61", prefix = true, target = "127.0.0.1", port = 1 }
                ]""", "routes[1].match", "routes[0] and routes[1] both match the prefix \"a\"");
        assertKey("""
                routes = [ { match = "", prefix = true, target = "127.0.0.1", port = 1 } ]
                direct-routes.enabled = true
                """, "direct-routes.enabled", "catch-all");
    }

    @Test
    void readsASubtreeOfALargerConfig() {
        Config big = ConfigFactory.parseString("""
                vibridge.gateway { listen-port = 7000, routes = [ { match = x, target = "127.0.0.1", port = 3 } ] }
                """);
        Routes routes = Routes.fromConfig(big.getConfig("vibridge.gateway"));
        assertThat(routes.lookup("x")).isPresent();
    }
}

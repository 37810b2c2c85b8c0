package io.vibridge.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.vibridge.vitcp.security.ConnectSigner;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigTest {

    @Test
    void theSoftProvidersOptionsGoOnlyWhereSoftMayOpen() {
        GatewayConfig.Infiniband ib = GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway.infiniband { idle = spin, faults = \"drop=0.1\" }")).infiniband();
        InetAddress a = InetAddress.ofLiteral("127.0.0.2");
        assertThat(ib.deviceConfig(a, "auto").options()).containsKeys("udp-offload", "idle", "faults",
                "min-rnr-wait-us", "max-rnr-wait-us");
        assertThat(ib.deviceConfig(a, "auto").provider()).isNull();
        assertThat(ib.deviceConfig(a, "soft").options()).containsEntry("idle", "spin");
        // a named hardware provider refuses options it does not know
        assertThat(ib.deviceConfig(a, "rdma-core").options()).isEmpty();
        assertThat(ib.deviceConfig(a, "disni").provider()).isEqualTo("disni");
    }

    @Test
    void defaultsLoadWithoutAnyConfiguration() {
        GatewayConfig c = GatewayConfig.from(ConfigFactory.empty());
        assertThat(c.listen().port()).isEqualTo(7470);
        assertThat(c.listen().rdmaTcpPort()).isEqualTo(7471);
        assertThat(c.admin().port()).isEqualTo(9464);
        assertThat(c.infiniband().address().getHostAddress()).isEqualTo("127.0.0.2");
        assertThat(c.routes().lookup("demo")).isPresent();
        assertThat(c.routes().lookup("demo").get().target().port()).isEqualTo(5000);
        assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.slotsPerConnection()).isGreaterThan(c.routes().lookup("demo").get().target().parameters().receiveBuffers());
        assertThat(c.security().enabled()).isFalse();
        assertThat(c.infiniband().udpOffload()).isEqualTo("auto");
        assertThat(c.infiniband().idle()).as("polling mode is opt-in").isEqualTo("block");
        assertThat(c.infiniband().minRnrWait()).isEqualTo(Duration.ofMillis(1));
        assertThat(c.infiniband().maxRnrWait()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.security().replay()).isEqualTo(ConnectSigner.Policy.DEFAULT);
        assertThat(c.transport()).isEqualTo(GatewayConfig.Transport.AUTO);
        // staging.max-slots = auto: the default staging pool admits the default connection limit when the JVM has
        // the direct memory for it (grows on demand up to max-slots); StagingSizeTest has the other cases
        GatewayConfig roomy = GatewayConfig.from(ConfigFactory.empty(), new MemoryLimits(4L << 30, 1L << 30, 16L << 30));
        assertThat(roomy.staging().maxSlots()).as("1000 connections x 15 slots, in whole chunks of 64").isEqualTo(15040);
        assertThat(roomy.stagingConnectionCapacity()).isGreaterThanOrEqualTo(roomy.limits().maxConnections());
    }

    @Test
    void unknownAndRenamedKeysAreErrorsNamingTheKey() {
        assertThatThrownBy(() -> GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.limits.max-conections = 5")))
                .isInstanceOfSatisfying(ConfigError.class, e -> assertThat(e.key()).isEqualTo("limits.max-conections"))
                .hasMessageContaining("unknown key");
        assertThatThrownBy(() -> GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.staging.slots = 128")))
                .isInstanceOfSatisfying(ConfigError.class, e -> assertThat(e.key()).isEqualTo("staging.slots"))
                .hasMessageContaining("renamed: use staging.max-slots");
        // keys of the user's choosing: per-route HMAC keys
        GatewayConfig c = GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway.security.route-keys { demo = \"0123456789abcdef0123\" }"));
        assertThat(c.security().enabled()).isTrue();
    }

    @Test
    void systemPropertiesOverride() {
        System.setProperty("vibridge.gateway.listen.port", "7777");
        try {
            assertThat(GatewayConfig.load().listen().port()).isEqualTo(7777);
        } finally {
            System.clearProperty("vibridge.gateway.listen.port");
            ConfigFactory.invalidateCaches();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "listen.port = 70000 | listen.port",
        "listen.port = abc | listen.port",
        "listen.rdmatcp-port = 70000 | listen.rdmatcp-port",
        "listen.rdmatcp-port = on | listen.rdmatcp-port",
        "admin.port = -1 | admin.port",
        "vi.max-mtu = 1000 | vi.max-mtu",
        "vi.segment-size = 0 | vi.segment-size",
        "vi.incoming-timeout = 0s | vi.incoming-timeout",
        "staging.slot-size = 1024 | staging.slot-size",
        "staging.max-slots = 0 | staging.max-slots",
        "staging.max-slots = 0 | staging.max-slots",
        "staging.chunk-slots = 0 | staging.chunk-slots",
        "'staging { max-slots = 10 }' | limits.buffer-per-connection",
        "limits.max-connections = 0 | limits.max-connections",
        "limits.connect-rate = -1 | limits.connect-rate",
        "limits.buffer-per-connection = 10KiB | limits.buffer-per-connection",
        "infiniband.provider = magic | infiniband.provider",
        "infiniband.address = not-an-ip | infiniband.address",
        "infiniband.path-mtu = 3000 | infiniband.path-mtu",
        "infiniband.udp-offload = fast | infiniband.udp-offload",
        "infiniband.idle = busy | infiniband.idle",
        "infiniband.min-rnr-wait = -1ms | infiniband.min-rnr-wait",
        "infiniband.max-rnr-wait = 2m | infiniband.max-rnr-wait",
        "'infiniband { min-rnr-wait = 10ms, max-rnr-wait = 5ms }' | infiniband.max-rnr-wait",
        "security.clock-window = 2m | security.clock-window",
        "security.clock-window = 0s | security.clock-window",
        "security.replay-capacity = 0 | security.replay-capacity",
        "'security { replay-capacity = 10, replay-per-client = 11 }' | security.replay-per-client",
        "transport = io_uring | transport",
        "infiniband.retry-count = 9 | infiniband.retry-count",
        "security.key = short | security.key",
        "'security.route-keys { nosuch = \"0123456789abcdef0123\" }' | security.route-keys",
        "'routes = [ { match = demo, target = \"127.0.0.3\", port = 0 } ]' | routes[0].port",
        "'routes = [ { match = demo, target = \"127.0.0.3\", port = 5, receive-size = 1MiB } ]' | routes[0].receive-size",
        "'routes = [ { match = demo, target = \"127.0.0.3\", port = 5, receive-buffers = 500 } ]' | routes[0].receive-buffers",
        "'routes = [ { match = demo, target = \"127.0.0.3\", port = 5, tpyo = 1 } ]' | routes[0].tpyo",
        "shutdown-grace = forever | shutdown-grace",
    })
    void badValuesNameTheirKey(String hocon, String key) {
        String text = hocon.startsWith("'") ? hocon.substring(1, hocon.length() - 1) : hocon;
        assertThatThrownBy(() -> GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway { " + text + " }")))
                .isInstanceOfSatisfying(ConfigError.class, e -> {
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.getMessage()).contains(key);
                });
    }

    @Test
    void aRouteWithoutReceiveBuffersTakesHalfTheSlotsOfAConnection() {
        GatewayConfig c = GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway.routes = [ { match = storage, target = \"127.0.0.5\", port = 5000 } ]"));
        assertThat(c.slotsPerConnection()).isEqualTo(15);
        assertThat(c.routes().lookup("storage").orElseThrow().target().parameters().receiveBuffers()).isEqualTo(8);
        // the default follows the budget: 4 MiB = 63 slots of 65552 B -> 32
        GatewayConfig big = GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway { "
                + "limits.buffer-per-connection = 4MiB, direct-routes.enabled = true, "
                + "routes = [ { match = storage, target = \"127.0.0.5\", port = 5000 } ] }"));
        assertThat(big.routes().lookup("storage").orElseThrow().target().parameters().receiveBuffers()).isEqualTo(32);
        assertThat(big.routes().directRoutes().orElseThrow().receiveBuffers()).isEqualTo(32);
        // the shipped demo route no longer sets it
        assertThat(GatewayConfig.from(ConfigFactory.empty()).routes().lookup("demo").orElseThrow().target()
                .parameters().receiveBuffers()).isEqualTo(8);
    }

    @Test
    void explicitReceiveBuffersThatDoNotFitNameBothKeys() {
        assertThatThrownBy(() -> GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.routes = "
                + "[ { match = storage, target = \"127.0.0.5\", port = 5000, receive-buffers = 64 } ]")))
                .isInstanceOfSatisfying(ConfigError.class,
                        e -> assertThat(e.key()).isEqualTo("routes[0].receive-buffers"))
                .hasMessageContaining("vibridge.gateway.routes[0].receive-buffers: 64")
                .hasMessageContaining("limits.buffer-per-connection (1048576 bytes) holds 15 slots")
                .hasMessageContaining("staging.slot-size (65552 bytes)");
    }

    @Test
    void theTransportIsReadWhateverItsCase() {
        assertThat(GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.transport = EPOLL")).transport())
                .isEqualTo(GatewayConfig.Transport.EPOLL);
        assertThat(GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.transport = nio")).transport())
                .isEqualTo(GatewayConfig.Transport.NIO);
    }

    @Test
    void theRdmaTcpListenerCanBeTurnedOff() {
        GatewayConfig c = GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.listen.rdmatcp-port = off"));
        assertThat(c.listen().rdmaTcp()).isFalse();
        assertThat(GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.listen.rdmatcp-port = 0"))
                .listen().rdmaTcpPort()).isZero();
    }

    @Test
    void keysDecodeHexBase64AndText() {
        assertThat(GatewayConfig.decodeKey("k", "hex:00112233445566778899aabbccddeeff")).hasSize(16);
        assertThat(GatewayConfig.decodeKey("k", "base64:AAECAwQFBgcICQoLDA0ODw==")).hasSize(16);
        assertThat(GatewayConfig.decodeKey("k", "a-long-enough-secret")).hasSize(20);
        assertThatThrownBy(() -> GatewayConfig.decodeKey("k", "hex:zz")).isInstanceOf(ConfigError.class);
    }
}

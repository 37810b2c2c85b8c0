package io.vibridge.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.config.ConfigError;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.vitcp.wire.Discriminator;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.utility.DockerImageName;

/**
 * What the containers are told, without Docker: the configuration a {@link VibridgeContainer} renders,
 * read back by the gateway's own configuration loader; the target's command line; refusals at the call.
 */
class VibridgeContainerTest {
    static final String IMAGE = "vibridge/gateway:local";
    /** Stands for a target container's address on the Docker network (only written into the file here). */
    static final String TARGET_IP = "127.0.0.172";

    @TempDir
    Path dir;

    GatewayConfig load(String conf) throws IOException {
        Path f = dir.resolve("application.conf");
        Files.writeString(f, conf, StandardCharsets.UTF_8);
        return GatewayConfig.load(f.toFile());
    }

    @Test
    void rendersWhatItWasToldAsTheGatewayReadsIt() throws IOException {
        VibridgeTargetContainer target = new VibridgeTargetContainer(IMAGE);
        VibridgeContainer gateway = new VibridgeContainer(IMAGE)
                .withTarget(target)
                .withRoute(io.vibridge.testcontainers.Route.of("rdma", "127.0.0.173", 6000)
                        .withCmFormat(io.vibridge.testcontainers.CmFormat.RDMA_CM).withPrefix(true))
                .withIwarpListener(7472, "demo")
                .withSecurityKey("a key of sixteen bytes or more")
                .withProviderOption("retry-count", 3)
                .withProviderOption("idle", "backoff");

        String conf = gateway.render(t -> {
            assertThat(t).isSameAs(target);
            return TARGET_IP;
        });
        assertThat(conf).isEqualTo("""
                vibridge.gateway {
                  infiniband {
                    provider = "soft"
                    path-mtu = 1024
                    retry-count = 3
                    idle = "backoff"
                  }
                  security.key = "a key of sixteen bytes or more"
                  iwarp.listeners = [
                    { port = 7472, route = "demo" }
                  ]
                  routes = [
                    { match = "demo", target = "127.0.0.172", port = 5000, flowc = 0, receive-size = 65552 }
                    { match = "rdma", target = "127.0.0.173", port = 6000, prefix = true, cm-format = rdma-cm }
                  ]
                }
                """);

        GatewayConfig c = load(conf);
        assertThat(c.infiniband().provider()).isEqualTo("soft");
        assertThat(c.infiniband().pathMtu()).isEqualTo(1024);
        assertThat(c.infiniband().retryCount()).isEqualTo(3);
        assertThat(c.security().key()).isEqualTo("a key of sixteen bytes or more".getBytes(StandardCharsets.UTF_8));
        List<Route> routes = c.routes().routes();
        assertThat(routes).extracting(Route::discriminator)
                .containsExactly(Discriminator.ofUtf8("demo"), Discriminator.ofUtf8("rdma"));
        assertThat(routes.get(0).target().address()).isEqualTo(InetAddress.getByName(TARGET_IP));
        assertThat(routes.get(0).target().port()).isEqualTo(VibridgeTargetContainer.DEFAULT_SERVICE_PORT);
        assertThat(routes.get(0).target().parameters().receiveSize()).isEqualTo(65552);
        assertThat(routes.get(1).target().parameters().cmFormat()).isEqualTo(CmFormat.RDMA_CM);
        assertThat(routes.get(1).kind()).isEqualTo(Route.Kind.PREFIX);
        assertThat(c.iwarp().listeners()).singleElement().satisfies(l -> {
            assertThat(l.port()).isEqualTo(7472);
            assertThat(l.route()).isSameAs(routes.get(0));
        });
        assertThat(gateway.getExposedPorts()).containsExactly(7470, 7471, 9464, 7472);
        assertThat(gateway.getDependencies()).containsExactly(target);
        assertThat(target.getNetwork()).as("one network for both").isNotNull().isSameAs(gateway.getNetwork());
    }

    @Test
    void extraHoconComesLastAndOverrides() throws IOException {
        VibridgeContainer gateway = new VibridgeContainer(IMAGE)
                .withRoute("storage", "127.0.0.174", 5000)
                .withConfig("vibridge.gateway.limits.max-connections = 10")
                .withConfig("vibridge.gateway.infiniband.path-mtu = 2048");
        GatewayConfig c = load(gateway.render(t -> TARGET_IP));
        assertThat(c.limits().maxConnections()).isEqualTo(10);
        assertThat(c.infiniband().pathMtu()).isEqualTo(2048);
        assertThat(c.routes().routes()).extracting(Route::discriminator).containsExactly(Discriminator.ofUtf8("storage"));
    }

    /** A route the module lets through but the gateway refuses: the container test shows the start-up error. */
    @Test
    void aRouteTheGatewayRefusesIsRenderedAsGiven() {
        VibridgeContainer gateway = new VibridgeContainer(IMAGE)
                .withRoute(io.vibridge.testcontainers.Route.of("bad", "127.0.0.175", 5000).withReceiveBuffers(64));
        assertThatThrownBy(() -> load(gateway.render(t -> TARGET_IP))).isInstanceOf(ConfigError.class)
                .hasMessageContaining("routes[0].receive-buffers");
    }

    @Test
    void quotesWhatHoconWouldMisread() {
        assertThat(GatewayConfiguration.quote("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    @Test
    void theTargetsCommandLine() {
        VibridgeTargetContainer t = new VibridgeTargetContainer(IMAGE).withMode(TargetMode.SOURCE).withServicePort(6000)
                .withReceiveBuffers(16).withRegionSize("4MiB").withSourceSize("8KiB");
        assertThat(t.command()).containsExactly("target", "--port", "6000", "--mode", "source", "--receive-buffers", "16",
                "--region-size", "4MiB", "--size", "8KiB");
        assertThat(new VibridgeTargetContainer(IMAGE).command()).containsExactly("target", "--port", "5000", "--mode",
                "echo");
    }

    /** The module's enums name what the image takes: the target's modes and the routes' CM formats. */
    @Test
    void theEnumsSpeakTheImagesNames() {
        assertThat(TargetMode.values()).extracting(TargetMode::cliName).containsExactlyElementsOf(
                java.util.Arrays.stream(io.vibridge.gateway.demo.control.TargetMode.values())
                        .map(io.vibridge.gateway.demo.control.TargetMode::cliName).toList());
        assertThat(io.vibridge.testcontainers.CmFormat.values()).extracting(io.vibridge.testcontainers.CmFormat::configName)
                .containsExactlyElementsOf(java.util.Arrays.stream(CmFormat.values()).map(CmFormat::configName).toList());
    }

    /** The getters from the host and mapped ports a started container reports (here made up: no Docker). */
    @Test
    void theEndpointGettersUseTheHostAndThePublishedPorts() {
        VibridgeContainer gateway = new VibridgeContainer(IMAGE) {
            @Override
            public String getHost() {
                return "127.0.0.178";
            }

            @Override
            public Integer getMappedPort(int originalPort) {
                return 40000 + originalPort % 10000;
            }
        }.withRoute("demo", "127.0.0.179", 5000).withIwarpListener(7472, "demo");

        assertThat(gateway.getViTcpEndpoint()).isEqualTo(new java.net.InetSocketAddress("127.0.0.178", 47470));
        assertThat(gateway.getRdmaTcpEndpoint()).isEqualTo(new java.net.InetSocketAddress("127.0.0.178", 47471));
        assertThat(gateway.getIwarpEndpoint("demo")).isEqualTo(new java.net.InetSocketAddress("127.0.0.178", 47472));
        assertThat(gateway.getAdminUrl()).hasToString("http://127.0.0.178:49464");
        assertThat(gateway.getMetricsUrl()).hasToString("http://127.0.0.178:49464/metrics");
        assertThat(gateway.getViNetAddress("demo")).isEqualTo(new io.vibridge.vitcp.provider.ViNetAddress(
                new java.net.InetSocketAddress("127.0.0.178", 47470), Discriminator.ofUtf8("demo")));
        assertThat(gateway.getRdmaTcpNetAddress("demo").encapsulation())
                .isEqualTo(io.vibridge.vitcp.wire.Encapsulation.RDMATCP);
        assertThat(gateway.getRdmaTcpNetAddress("demo").host().getPort()).isEqualTo(47471);
    }

    @Test
    void theNicConfigIsActiveOnlyAndCarriesTheKey() {
        VibridgeContainer gateway = new VibridgeContainer(IMAGE).withSecurityKey("hex:00112233445566778899aabbccddeeff");
        assertThat(gateway.getNicConfig().listen()).as("listens nowhere").isNull();
        assertThat(gateway.getNicConfig().securityKey()).hasSize(16).startsWith(0x00, 0x11, 0x22);
        assertThat(new VibridgeContainer(IMAGE).getNicConfig().securityKey()).isNull();
    }

    @Test
    void takesTheImageAndSubstitutesDeclaredCompatible() {
        new VibridgeContainer(IMAGE);
        new VibridgeContainer(VibridgeContainer.LOCAL_IMAGE);
        new VibridgeContainer("vibridge/gateway:0.1.0");
        new VibridgeTargetContainer(DockerImageName.parse("registry.example.org/team/vibridge:1")
                .asCompatibleSubstituteFor("vibridge/gateway"));
        assertThatThrownBy(() -> new VibridgeContainer("postgres:16")).hasMessageContaining("vibridge/gateway");
        assertThatThrownBy(() -> new VibridgeTargetContainer("registry.example.org/team/vibridge:1"))
                .hasMessageContaining("asCompatibleSubstituteFor");
    }

    @Test
    void refusesBadValuesAtTheCall() {
        VibridgeContainer g = new VibridgeContainer(IMAGE);
        assertThatThrownBy(() -> g.withRoute("x", "target.example.org", 5000))
                .hasMessageContaining("IP address literal").hasMessageContaining("target.example.org");
        assertThatThrownBy(() -> g.withRoute("x", "127.0.0.176", 0)).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> g.withRoute("x".repeat(65), "127.0.0.176", 5000)).hasMessageContaining("64 bytes");
        assertThatThrownBy(() -> io.vibridge.testcontainers.Route.of("x", "127.0.0.176", 5000).withFlowC(2))
                .hasMessageContaining("FlowC is 0 or 1");
        g.withRoute("x", "127.0.0.176", 5000);
        assertThatThrownBy(() -> g.withRoute("x", "127.0.0.177", 5000)).hasMessageContaining("already configured");
        assertThatThrownBy(() -> g.withSecurityKey("short")).hasMessageContaining("at least 16 bytes");
        assertThatThrownBy(() -> g.withProviderOption("Path MTU", 1024)).hasMessageContaining("path-mtu");
        assertThatThrownBy(() -> g.withIwarpListener(7470, "x")).hasMessageContaining("gateway's own");
        g.withIwarpListener(7480, "x");
        assertThatThrownBy(() -> g.withIwarpListener(7480, "x")).hasMessageContaining("already configured");
        assertThatThrownBy(() -> g.getIwarpEndpoint("y")).hasMessageContaining("no iWARP listener for route 'y'");
    }
}

package io.vibridge.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.IsCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.DoublePredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The real images on a user-defined Docker network: the demo target and the gateway
 * (vibridge/gateway:local, built by `mvn verify` before this runs) talking RoCEv2 over UDP 4791
 * between their containers, Prometheus (vibridge/prometheus:local) scraping the gateway every
 * second, and a VI/TCP client in this JVM connecting through the gateway's published port.
 *
 * <p>The tests share the containers and run in order: traffic first, then what it left in /metrics
 * and Prometheus, then a gateway restart, then the target stopped (which ends the target's use).
 * Ryuk is off here (no registry), so {@link #stop()} removes every container and the network.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContainersIT {
    private static final Logger LOG = LoggerFactory.getLogger(ContainersIT.class);
    /** The service image: -Dvibridge.it.image or VIBRIDGE_IT_IMAGE, default what `mvn verify` builds. */
    static final String IMAGE = System.getProperty("vibridge.it.image",
            System.getenv().getOrDefault("VIBRIDGE_IT_IMAGE", "vibridge/gateway:local"));
    static final String PROMETHEUS_LOCAL = "vibridge/prometheus:local";
    static final Duration WAIT = Duration.ofSeconds(90);
    static final Path DASHBOARD = Path.of(System.getProperty("user.dir")).resolveSibling("deploy")
            .resolve("grafana/dashboards/vibridge.json");

    /** The gateway container's memory limit: Kubernetes' 1 GiB (deploy/k8s), with the image's JAVA_OPTS. */
    static final long GATEWAY_MEMORY = 1L << 30;

    static Network network;
    static GenericContainer<?> target;
    static GenericContainer<?> gateway;
    static GenericContainer<?> prometheus;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * The gateway's configuration, copied into the container at /etc/vibridge/application.conf (the
     * launcher passes it with --config): the route needs the target's IP literal (routes take no host
     * names). path-mtu 1024: RoCEv2 packets must fit the 1500-byte Ethernet MTU of a Docker network
     * (4096 would need jumbo frames). Short CM and transport timeouts so a dead target shows quickly. The
     * staging pool is the default's, sized from the container's memory (see {@link #GATEWAY_MEMORY}).
     */
    static String gatewayConf(String targetIp) {
        return """
                vibridge.gateway {
                  infiniband {
                    provider = soft, path-mtu = 1024
                    cm-response-timeout = 16, max-cm-retries = 2
                    local-ack-timeout = 14, retry-count = 3
                  }
                  shutdown-grace = 3s
                  routes = [
                    { match = "demo", target = "%s", port = 5000, service-id = iwarp,
                      cm-format = hello, flowc = 0, receive-size = 65552, receive-buffers = 8 }
                  ]
                }
                """.formatted(targetIp);
    }

    static final String PROMETHEUS_CONF = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files: [/etc/prometheus/alerts.yml]
            scrape_configs:
              - job_name: vibridge
                metrics_path: /metrics
                static_configs:
                  - targets: ["gateway:9464"]
            """;

    @BeforeAll
    static void start() throws IOException {
        Docker.requireEngine();
        Docker.requireImage(IMAGE);
        String prometheusImage = System.getProperty("vibridge.it.prometheus-image",
                Docker.hasImage(PROMETHEUS_LOCAL) ? PROMETHEUS_LOCAL : "prom/prometheus:v2.53.5");
        network = Network.newNetwork();
        try {
            target = new GenericContainer<>(DockerImageName.parse(IMAGE))
                    .withNetwork(network).withNetworkAliases("target")
                    .withEnv("VIBRIDGE_IB_ADDRESS", "auto")
                    .withCommand("target", "--port", "5000", "--receive-buffers", "16", "--region-size", "4MiB")
                    .withLogConsumer(new Slf4jLogConsumer(LOG).withPrefix("target"))
                    .waitingFor(Wait.forLogMessage(".*target ready on.*\\n", 1).withStartupTimeout(WAIT));
            target.start();
            String targetIp = Docker.ip(target);
            LOG.info("target container {} at {}", target.getContainerName(), targetIp);

            gateway = new GenericContainer<>(DockerImageName.parse(IMAGE))
                    .withNetwork(network).withNetworkAliases("gateway")
                    .withEnv("VIBRIDGE_IB_ADDRESS", "auto")
                    .withCopyToContainer(Transferable.of(gatewayConf(targetIp)), "/etc/vibridge/application.conf")
                    .withExposedPorts(7470, 9464)
                    .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withMemory(GATEWAY_MEMORY)
                            .withMemorySwap(GATEWAY_MEMORY))
                    .withCommand("gateway")
                    .withLogConsumer(new Slf4jLogConsumer(LOG).withPrefix("gateway"))
                    .waitingFor(Wait.forHttp("/ready").forPort(9464).withStartupTimeout(WAIT));
            gateway.start();
            LOG.info("gateway container {} at {}, VI/TCP published at {}", gateway.getContainerName(),
                    Docker.ip(gateway), Docker.published(gateway, 7470));

            prometheus = new GenericContainer<>(DockerImageName.parse(prometheusImage))
                    .withNetwork(network).withNetworkAliases("prometheus")
                    .withCopyToContainer(Transferable.of(PROMETHEUS_CONF), "/etc/prometheus/prometheus.yml")
                    .withCopyToContainer(Transferable.of(Files.readString(PrometheusFilesTest.ALERTS)),
                            "/etc/prometheus/alerts.yml")
                    .withExposedPorts(9090)
                    .waitingFor(Wait.forHttp("/-/ready").forPort(9090).withStartupTimeout(WAIT));
            prometheus.start();
            LOG.info("prometheus container {} ({}) scraping gateway:9464 every second", prometheus.getContainerName(),
                    prometheusImage);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        for (GenericContainer<?> c : new GenericContainer<?>[] {prometheus, gateway, target}) {
            if (c != null) {
                try {
                    c.stop(); // stops and removes the container and its anonymous volumes
                } catch (RuntimeException e) {
                    LOG.warn("could not remove {}: {}", c.getContainerName(), e.toString());
                }
            }
        }
        if (network != null) {
            network.close();
        }
    }

    static InetSocketAddress viTcp() {
        return Docker.published(gateway, 7470);
    }

    @Test
    @Order(1)
    void send_rdmaWrite_rdmaRead_throughTheContainers() throws Exception {
        try (ItClient c = new ItClient(viTcp(), "demo")) {
            assertThat(c.negotiated.mtu()).isEqualTo(65536L);
            for (int size : new int[] {1, 1000, 4096, 33_000, 65_536}) {
                long[] r = c.echo(size, size + 11);
                assertThat(r[2]).as("echoed length of a %d-byte Send", size).isEqualTo(size);
                assertThat(r[1]).as("CRC32C of the echo of a %d-byte Send", size).isEqualTo(r[0]);
            }

            ByteBuffer region = c.control(Control.QUERY_REGION, null);
            long va = region.getLong(Control.HEADER);
            int rkey = region.getInt(Control.HEADER + 8);

            // RDMA Write: 4 x 64 KiB of a pattern into the target's region, then the target's CRC of it.
            int size = ItClient.MESSAGE;
            Control.fillPattern(c.data(), 0, 4 * size, 0x5eed);
            int written = Control.crc32c(c.data(), 0, 4 * size);
            c.rdmaWrite(va, rkey, 4, size);
            ByteBuffer ck = c.control(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 0).putInt(4, 4 * size));
            assertThat(ck.getInt(Control.HEADER)).as("target's CRC32C of the RDMA-written bytes").isEqualTo(written);

            // RDMA Read: the target fills 2 x 64 KiB with another pattern, the client reads it back.
            ByteBuffer fill = c.control(Control.FILL_REGION,
                    ByteBuffer.allocate(12).putInt(0, 0).putInt(4, 2 * size).putInt(8, 0xfeed));
            c.data().put(0, new byte[2 * size]);
            c.rdmaRead(va, rkey, 2, size);
            assertThat(Control.crc32c(c.data(), 0, 2 * size)).as("CRC32C of the RDMA-read bytes")
                    .isEqualTo(fill.getInt(Control.HEADER))
                    .isEqualTo(Control.patternCrc(0xfeed, 2 * size));
        }
        awaitMetric("vibridge_connections_active", v -> v == 0);
    }

    @Test
    @Order(2)
    void gatewayMetricsShowTheTraffic() throws Exception {
        String text = metricsText();
        assertThat(sample(text, "vibridge_connections_opened_total", Map.of())).isGreaterThanOrEqualTo(1);
        assertThat(sample(text, "vibridge_bytes_total", Map.of("direction", "client_to_target", "operation", "send")))
                .as("Send bytes to the target").isGreaterThanOrEqualTo(1 + 1000 + 4096 + 33_000 + 65_536);
        assertThat(sample(text, "vibridge_bytes_total", Map.of("direction", "target_to_client", "operation", "send")))
                .as("echoed Send bytes").isGreaterThanOrEqualTo(1 + 1000 + 4096 + 33_000 + 65_536);
        assertThat(sample(text, "vibridge_bytes_total", Map.of("direction", "client_to_target", "operation", "rdma_write")))
                .as("RDMA Write bytes").isGreaterThanOrEqualTo(4.0 * 65536);
        assertThat(sumOf(text, "vibridge_bytes_total", Map.of("operation", "rdma_read")))
                .as("RDMA Read bytes").isGreaterThanOrEqualTo(2.0 * 65536);
        assertThat(sample(text, "vibridge_cm_rtt_seconds_count", Map.of())).isGreaterThanOrEqualTo(1);
        assertThat(sumOf(text, "vibridge_ib_packets_total", Map.of())).isGreaterThan(0);
        // staging.max-slots = auto in a 1 GiB container: the image's heap is 30% of it, the direct memory limit
        // follows the heap, staging takes 3/4 of that (reference.conf)
        double direct = sample(text, "vibridge_direct_memory_max_bytes", Map.of());
        assertThat(direct).isBetween(0.25 * GATEWAY_MEMORY, 0.30 * GATEWAY_MEMORY);
        stagingCapacity = sample(text, "vibridge_staging_slots_capacity", Map.of());
        assertThat(stagingCapacity).isEqualTo((double) ((long) direct / 4 * 3 / 65552));
    }

    /** The staging capacity the gateway had before its restart. */
    static double stagingCapacity;

    /** The image ships DiSNI without the log4j 1.2, slf4j-log4j12 and commons-cli it declares (ShippedLibrariesTest). */
    @Test
    @Order(0)
    void theImageShipsNoLog4jOne() throws Exception {
        String lib = gateway.execInContainer("ls", "/opt/vibridge/lib").getStdout();
        LOG.info("/opt/vibridge/lib: {}", lib.replace('\n', ' '));
        assertThat(lib).contains("disni-2.1.jar", "slf4j-api-", "logback-classic-")
                .doesNotContain("log4j-1", "slf4j-log4j12", "reload4j", "commons-cli");
    }

    /** Every panel expression of deploy/grafana's dashboard returns data from a real Prometheus. */
    @Test
    @Order(3)
    void everyDashboardQueryReturnsData() throws Exception {
        // Fresh traffic of every kind while Prometheus scrapes every second, so rates have samples.
        try (ItClient c = new ItClient(viTcp(), "demo")) {
            ByteBuffer region = c.control(Control.QUERY_REGION, null);
            long va = region.getLong(Control.HEADER);
            int rkey = region.getInt(Control.HEADER + 8);
            for (int i = 0; i < 3; i++) {
                c.echo(4096, i);
                c.rdmaWrite(va, rkey, 2, 65536);
                c.rdmaRead(va, rkey, 1, 65536);
            }
        }
        List<String> expressions = dashboardExpressions(Files.readString(DASHBOARD));
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(15);
        URI api = URI.create("http://" + prometheus.getHost() + ":" + prometheus.getMappedPort(9090));
        List<String> empty = new ArrayList<>();
        for (String expr : expressions) {
            String query = withAllSelected(expr);
            assertThat(query).as("unsubstituted Grafana variable in %s", expr).doesNotContain("$");
            JsonArray result = null;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                JsonObject body = new JsonObject(get(api.resolve("/api/v1/query?query="
                        + URLEncoder.encode(query, StandardCharsets.UTF_8))));
                assertThat(body.getString("status")).as("Prometheus on %s: %s", query, body).isEqualTo("success");
                result = body.getJsonObject("data").getJsonArray("result");
                if (!result.isEmpty()) {
                    break;
                }
                Thread.sleep(500);
            }
            LOG.info("dashboard query {} -> {} series", query, result == null ? 0 : result.size());
            if (result == null || result.isEmpty()) {
                empty.add(query);
            }
        }
        assertThat(empty).as("dashboard expressions without data").isEmpty();
    }

    /**
     * deploy/prometheus/alerts.yml loaded by the real Prometheus: every rule evaluates without error on the
     * gateway's series, and with the gateway up and healthy none of them fires.
     */
    @Test
    @Order(4)
    void theAlertRulesEvaluateOnTheGatewaysSeries() throws Exception {
        URI api = URI.create("http://" + prometheus.getHost() + ":" + prometheus.getMappedPort(9090));
        List<JsonObject> rules = new ArrayList<>();
        await("every alert rule evaluated", () -> {
            rules.clear();
            try {
                JsonObject body = new JsonObject(get(api.resolve("/api/v1/rules")));
                for (Object g : body.getJsonObject("data").getJsonArray("groups")) {
                    ((JsonObject) g).getJsonArray("rules").forEach(r -> rules.add((JsonObject) r));
                }
            } catch (IOException | AssertionError e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return rules.size() == 7 && rules.stream().noneMatch(r -> r.getString("lastEvaluation").startsWith("0001"));
        });
        for (JsonObject r : rules) {
            LOG.info("alert rule {}: health {}, state {}", r.getString("name"), r.getString("health"), r.getString("state"));
            assertThat(r.getString("health")).as("%s: %s", r.getString("name"), r.getString("lastError")).isEqualTo("ok");
            assertThat(r.getString("state")).as(r.getString("name")).isEqualTo("inactive");
        }
    }

    @Test
    @Order(5)
    void restartingTheGatewayKeepsItsConfiguration() throws Exception {
        String before = Docker.client().inspectContainerCmd(gateway.getContainerId()).exec().getState().getStartedAt();
        Docker.client().restartContainerCmd(gateway.getContainerId()).withTimeout(10).exec();
        String after = Docker.client().inspectContainerCmd(gateway.getContainerId()).exec().getState().getStartedAt();
        assertThat(after).as("the container was restarted").isNotEqualTo(before);
        await("gateway ready after the restart", () -> status("/ready") == 200);
        // The route (copied in as /etc/vibridge/application.conf) is still there: echo works.
        try (ItClient c = new ItClient(viTcp(), "demo")) {
            long[] r = c.echo(20_000, 3);
            assertThat(r[1]).isEqualTo(r[0]);
            assertThat(r[2]).isEqualTo(20_000);
        }
        assertThat(sample(metricsText(), "vibridge_staging_slots_capacity", Map.of())).isEqualTo(stagingCapacity);
    }

    @Test
    @Order(6)
    void stoppingTheTargetRejectsNewConnectionsAndClosesOpenOnes() throws Exception {
        ItClient open = new ItClient(viTcp(), "demo");
        try {
            assertThat(open.echo(100, 1)[2]).isEqualTo(100);
            Docker.client().stopContainerCmd(target.getContainerId()).withTimeout(10).exec();
            LOG.info("target container stopped");

            // New connections: refused as target unreachable, IS 12 "no route / target unreachable"
            // (VITCP-PROFILE §2): a CM REQ nobody answers (README-bridge "Failures to reach the target").
            double rejectedBefore = sample(metricsText(), "vibridge_connections_rejected_total",
                    Map.of("reason", "target_unreachable"));
            assertThatThrownBy(() -> new ItClient(viTcp(), "demo").close())
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).as("IS code").isEqualTo(IsCode.NO_ROUTE);
                        LOG.info("connect with the target stopped: Connect Reject IS {}", e.isCode());
                    });
            assertThat(sample(metricsText(), "vibridge_connections_rejected_total",
                    Map.of("reason", "target_unreachable"))).isEqualTo(rejectedBefore + 1);

            // The open connection: its next Send cannot reach the target; the gateway ends the
            // connection (QP error after the transport retries) and frees what it held.
            open.postSend(64);
            await("the client's VI leaves CONNECTED", () -> open.vi.state() != ViState.CONNECTED);
            awaitMetric("vibridge_connections_active", v -> v == 0);
            awaitMetric("vibridge_staging_slots_in_use", v -> v == 0);
            assertThat(status("/health")).as("the gateway stays healthy").isEqualTo(200);
        } finally {
            open.close();
        }
    }

    // ---------------------------------------------------------------- helpers

    static String get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError(uri + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    static int status(String path) {
        try {
            InetSocketAddress admin = Docker.published(gateway, 9464);
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://" + admin.getHostString() + ":" + admin.getPort()
                    + path)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static String metricsText() throws IOException, InterruptedException {
        InetSocketAddress admin = Docker.published(gateway, 9464);
        return get(URI.create("http://" + admin.getHostString() + ":" + admin.getPort() + "/metrics"));
    }

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})? (\\S+)$",
            Pattern.MULTILINE);

    /** The sum of every sample of {@code name} whose labels include {@code labels}. */
    static double sumOf(String text, String name, Map<String, String> labels) {
        double sum = 0;
        boolean found = false;
        Matcher m = LINE.matcher(text);
        while (m.find()) {
            if (!m.group(1).equals(name)) {
                continue;
            }
            String l = m.group(3) == null ? "" : m.group(3);
            if (labels.entrySet().stream().allMatch(e -> l.contains(e.getKey() + "=\"" + e.getValue() + "\""))) {
                sum += Double.parseDouble(m.group(4));
                found = true;
            }
        }
        if (!found) {
            throw new AssertionError("no sample " + name + labels + " in /metrics");
        }
        return sum;
    }

    static double sample(String text, String name, Map<String, String> labels) {
        return sumOf(text, name, labels);
    }

    static void awaitMetric(String name, DoublePredicate ok) throws InterruptedException {
        await(name + " as expected", () -> {
            try {
                return ok.test(sample(metricsText(), name, Map.of()));
            } catch (IOException | AssertionError e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.sleep(200);
        }
    }

    /** Every {@code expr} of every panel (rows' nested panels included) of a Grafana dashboard. */
    static List<String> dashboardExpressions(String json) {
        List<JsonObject> panels = new ArrayList<>();
        panels(new JsonObject(json).getJsonArray("panels"), panels);
        List<String> out = new ArrayList<>();
        for (JsonObject p : panels) {
            JsonArray targets = p.getJsonArray("targets");
            assertThat(targets).as("panel '%s' has queries", p.getString("title")).isNotNull().isNotEmpty();
            for (int t = 0; t < targets.size(); t++) {
                out.add(targets.getJsonObject(t).getString("expr"));
            }
        }
        return out;
    }

    /** The panels that are not rows, rows' nested panels included, into {@code out}. */
    static void panels(JsonArray panels, List<JsonObject> out) {
        if (panels == null) {
            return;
        }
        for (int i = 0; i < panels.size(); i++) {
            JsonObject p = panels.getJsonObject(i);
            panels(p.getJsonArray("panels"), out);
            if (!"row".equals(p.getString("type"))) {
                out.add(p);
            }
        }
    }

    /** A panel expression as Grafana sends it with every variable at "All" ({@code .*}). */
    static String withAllSelected(String expr) {
        return expr.replace("$__rate_interval", "15s").replaceAll("\\$(job|namespace|pod|instance)\\b", ".*");
    }
}

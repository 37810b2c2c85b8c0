package io.vibridge.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Prometheus side against a real scrape of a running gateway (soft device on 127.0.0.150, OS-chosen ports,
 * no traffic needed): promtool's lint of the scrape, the shipped alert rules (promtool check rules and their
 * unit tests, deploy/prometheus/alerts.test.yml), and every metric name the rules and the dashboard use
 * present in the scrape. promtool is Debian's package {@code prometheus}, which .ci/run installs: without it
 * the promtool tests are skipped with a message, and fail when CI=true.
 */
class PrometheusFilesTest {
    static final Path ALERTS = DeployFilesTest.DEPLOY.resolve("prometheus/alerts.yml");
    static final Path ALERT_TESTS = DeployFilesTest.DEPLOY.resolve("prometheus/alerts.test.yml");

    static GatewayServer gateway;
    static String scrape;

    @TempDir
    Path dir;

    @BeforeAll
    static void scrapeARunningGateway() throws Exception {
        gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString("""
                vibridge.gateway {
                  listen { host = "127.0.0.1", port = 0, rdmatcp-port = 0 }
                  admin { host = "127.0.0.1", port = 0 }
                  infiniband { provider = soft, address = "127.0.0.150" }
                  shutdown-grace = 1s
                }
                """)));
        try (HttpClient http = HttpClient.newHttpClient()) {
            scrape = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    /** The names of the scrape's series (histograms' _bucket, _count, _sum included). */
    static Set<String> exported() {
        return scrape.lines().filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .map(l -> l.split("[{ ]", 2)[0]).collect(Collectors.toCollection(TreeSet::new));
    }

    private static final Pattern METRIC = Pattern.compile("\\b((?:vibridge|jvm|process|system)_[a-z0-9_]+)\\b");

    /** The gateway's metric names in a PromQL expression (quoted label values left out). */
    static Set<String> metricNames(String expr) {
        Matcher m = METRIC.matcher(expr.replaceAll("\"[^\"]*\"", "\"\""));
        Set<String> names = new TreeSet<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @SuppressWarnings("unchecked")
    static List<String> alertExpressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        for (Map<String, Object> g : (List<Map<String, Object>>) DeployFilesTest.yamlDocuments(ALERTS).getFirst()
                .get("groups")) {
            for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
                exprs.add((String) r.get("expr"));
            }
        }
        return exprs;
    }

    @Test
    void theAlertRulesAndTheDashboardUseOnlyMetricsTheGatewayExports() throws IOException {
        Set<String> used = new TreeSet<>();
        for (String e : alertExpressions()) {
            used.addAll(metricNames(e));
        }
        assertThat(used).as("the rules' metrics").contains("vibridge_connections_rejected_total",
                "vibridge_staging_slots_in_use", "vibridge_ib_retransmissions_total",
                "vibridge_staging_allocation_failures_total");
        for (String e : ContainersIT.dashboardExpressions(Files.readString(ContainersIT.DASHBOARD))) {
            used.addAll(metricNames(e));
        }
        assertThat(used).as("the dashboard's metrics").contains("vibridge_connect_setup_seconds_bucket",
                "jvm_buffer_memory_used_bytes", "jvm_memory_used_bytes", "process_cpu_usage");
        assertThat(exported()).containsAll(used);
    }

    @Test
    void promtoolFindsNoProblemInTheScrape() throws Exception {
        Path file = dir.resolve("metrics.txt");
        Files.writeString(file, scrape);
        assertThat(promtool(file, "check", "metrics")).isEmpty();
    }

    @Test
    void promtoolAcceptsTheAlertRules() throws Exception {
        assertThat(promtool(null, "check", "rules", ALERTS.toString())).contains("SUCCESS: 7 rules found");
    }

    @Test
    void theAlertRulesPassTheirUnitTests() throws Exception {
        assertThat(promtool(null, "test", "rules", ALERT_TESTS.toString())).contains("SUCCESS");
    }

    /** Runs promtool (stdin from {@code input} if given); its output, after asserting exit code 0. */
    static String promtool(Path input, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(findPromtool());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (input != null) {
            pb.redirectInput(input.toFile());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        System.out.println("promtool " + String.join(" ", args) + " -> " + code + "\n" + out);
        assertThat(code).as("promtool %s: %s", String.join(" ", args), out).isZero();
        return out;
    }

    static String findPromtool() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(d, "promtool");
            if (f.canExecute()) {
                return f.getAbsolutePath();
            }
        }
        String why = "promtool not found on PATH (Debian package prometheus; .ci/run installs it)";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true and " + why);
        }
        System.err.println("promtool tests SKIPPED: " + why);
        Assumptions.abort(why);
        return null;
    }
}

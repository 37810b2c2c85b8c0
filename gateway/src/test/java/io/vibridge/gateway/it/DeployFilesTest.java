package io.vibridge.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.config.GatewayConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files parse and say what they must, without any engine or cluster (Surefire):
 * the Kubernetes manifests, the compose files, the gateway configurations they carry (validated by
 * {@link GatewayConfig} itself) and the Grafana dashboard. Their behaviour with real containers is
 * {@link ContainersIT}'s job.
 */
class DeployFilesTest {
    static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();
    static final Path DEPLOY = REPO.resolve("deploy");

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> yamlDocuments(Path file) throws IOException {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object o : new Yaml(new LoaderOptions()).loadAll(Files.readString(file))) {
            if (o != null) {
                assertThat(o).as("a YAML document of %s", file).isInstanceOf(Map.class);
                docs.add((Map<String, Object>) o);
            }
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    static <T> T at(Object node, String... path) {
        Object n = node;
        for (String p : path) {
            assertThat(n).as("parent of %s", p).isInstanceOf(Map.class);
            n = ((Map<String, Object>) n).get(p);
        }
        return (T) n;
    }

    @Test
    void kubernetesManifestsParseAndCarryProbesServicesAndMonitor() throws IOException {
        List<Map<String, Object>> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(DEPLOY.resolve("k8s"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (Map<String, Object> d : yamlDocuments(f)) {
                    assertThat(d).as(f.toString()).containsKeys("apiVersion", "kind");
                    all.add(d);
                }
            }
        }
        Map<String, Object> deployment = only(all, "Deployment");
        Map<String, Object> container = ((List<Map<String, Object>>) at(deployment, "spec", "template", "spec",
                "containers")).getFirst();
        assertThat((String) at(container, "livenessProbe", "httpGet", "path")).isEqualTo("/health");
        assertThat((String) at(container, "readinessProbe", "httpGet", "path")).isEqualTo("/ready");
        assertThat(container.get("ports").toString()).contains("containerPort=7470", "containerPort=4791",
                "protocol=UDP", "containerPort=9464");
        assertThat(((Map<String, Object>) at(deployment, "spec", "selector", "matchLabels")))
                .isEqualTo(at(deployment, "spec", "template", "metadata", "labels"));

        List<Map<String, Object>> services = all.stream().filter(d -> "Service".equals(d.get("kind"))).toList();
        String ports = services.stream().map(s -> at(s, "spec", "ports").toString()).reduce("", String::concat);
        assertThat(ports).contains("port=7470", "protocol=TCP", "port=4791", "protocol=UDP", "port=9464");

        Map<String, Object> monitor = only(all, "ServiceMonitor");
        Map<String, Object> admin = services.stream().filter(s -> at(s, "spec", "ports").toString().contains("9464"))
                .findFirst().orElseThrow();
        assertThat((Map<String, Object>) at(admin, "metadata", "labels"))
                .containsAllEntriesOf(at(monitor, "spec", "selector", "matchLabels"));
        assertThat(at(monitor, "spec", "endpoints").toString()).contains("port=admin", "path=/metrics");

        // The alert rules beside the ServiceMonitor are deploy/prometheus/alerts.yml's groups, unchanged.
        Map<String, Object> rules = only(all, "PrometheusRule");
        assertThat((Object) at(rules, "spec", "groups")).as("prometheusrule.yaml spec.groups = alerts.yml groups")
                .isEqualTo(yamlDocuments(PrometheusFilesTest.ALERTS).getFirst().get("groups"));

        // kubectl apply -k applies every manifest of the directory.
        List<String> resources = at(yamlDocuments(DEPLOY.resolve("k8s/kustomization.yaml")).getFirst(), "resources");
        try (Stream<Path> files = Files.list(DEPLOY.resolve("k8s"))) {
            assertThat(resources).containsExactlyInAnyOrderElementsOf(files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".yaml") && !f.equals("kustomization.yaml")).toList());
        }

        // The ConfigMap's application.conf is a configuration the gateway accepts.
        String conf = at(only(all, "ConfigMap"), "data", "application.conf");
        GatewayConfig cfg = GatewayConfig.from(ConfigFactory.parseString(conf));
        assertThat(cfg.routes().routes()).isNotEmpty();
        assertThat(cfg.infiniband().pathMtu()).isEqualTo(1024);
    }

    @Test
    void composeFilesParseAndTheirGatewayConfigurationIsValid() throws IOException {
        Map<String, Object> compose = yamlDocuments(REPO.resolve("docker-compose.yml")).getFirst();
        Map<String, Object> services = at(compose, "services");
        assertThat(services).containsKeys("gateway", "target", "prometheus", "grafana");
        Map<String, Object> offline = yamlDocuments(REPO.resolve("docker-compose.offline.yml")).getFirst();
        assertThat(at(offline, "services", "grafana", "profiles").toString()).contains("grafana");
        assertThat((String) at(offline, "services", "prometheus", "image")).isEqualTo("vibridge/prometheus:local");

        // The gateway's route points at the target's fixed address on the compose network.
        GatewayConfig cfg = GatewayConfig.from(ConfigFactory.parseFile(DEPLOY.resolve("compose/application.conf").toFile()));
        String targetIp = at(services, "target", "networks", "vibridge", "ipv4_address");
        assertThat(targetIp).isEqualTo("${VIBRIDGE_TARGET_IP:-10.247.47.10}");
        assertThat(cfg.routes().routes().toString()).contains("10.247.47.10");
    }

    @Test
    void dashboardHasAQueryInEveryPanel() throws IOException {
        List<String> exprs = ContainersIT.dashboardExpressions(Files.readString(ContainersIT.DASHBOARD));
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(15)
                .allSatisfy(e -> assertThat(e).containsPattern("(vibridge|jvm|process|system)_"));
        assertThat(String.join("\n", exprs)).contains("vibridge_connections_active", "vibridge_connections_rejected_total",
                "vibridge_bytes_total", "vibridge_credit_stalls_total", "vibridge_cm_rtt_seconds_bucket",
                "vibridge_ib_retransmissions_total", "vibridge_staging_slots_in_use", "vibridge_client_bytes_total",
                "vibridge_rdmatcp_frame_errors_total", "vibridge_connect_setup_seconds_bucket",
                "jvm_buffer_memory_used_bytes", "vibridge_direct_memory_max_bytes", "jvm_memory_used_bytes");
    }

    /**
     * The dashboard works in any Grafana and any Prometheus set-up: the datasource is a variable (no uid of
     * ours hard-coded), and every series every panel selects is filtered by the job, namespace, pod and
     * instance variables (whose values come from the chosen datasource).
     */
    @Test
    void dashboardTakesItsDatasourceAndTargetsFromVariables() throws IOException {
        String text = Files.readString(ContainersIT.DASHBOARD);
        JsonObject dashboard = new JsonObject(text);
        Map<String, JsonObject> vars = new java.util.LinkedHashMap<>();
        dashboard.getJsonObject("templating").getJsonArray("list")
                .forEach(v -> vars.put(((JsonObject) v).getString("name"), (JsonObject) v));
        assertThat(vars.keySet()).containsExactly("datasource", "job", "namespace", "pod", "instance");
        assertThat(vars.get("datasource").getString("type")).isEqualTo("datasource");
        assertThat(vars.get("datasource").getString("query")).isEqualTo("prometheus");
        for (String v : List.of("job", "namespace", "pod", "instance")) {
            assertThat(vars.get(v).getString("type")).as(v).isEqualTo("query");
            assertThat(vars.get(v).getJsonObject("datasource").getString("uid")).as(v).isEqualTo("${datasource}");
            assertThat(vars.get(v).getString("allValue")).as(v).isEqualTo(".*");
        }
        assertThat(text).doesNotContain("\"uid\": \"prometheus\"");

        List<JsonObject> panels = new ArrayList<>();
        ContainersIT.panels(dashboard.getJsonArray("panels"), panels);
        assertThat(panels).hasSizeGreaterThanOrEqualTo(20);
        Pattern selector = Pattern.compile("\\b((?:vibridge|jvm|process|system)_[a-z0-9_]+)(\\{[^}]*\\})?");
        for (JsonObject p : panels) {
            assertThat(p.getJsonObject("datasource").getString("uid")).as(p.getString("title")).isEqualTo("${datasource}");
            for (Object t : p.getJsonArray("targets")) {
                JsonObject target = (JsonObject) t;
                assertThat(target.getJsonObject("datasource").getString("uid")).isEqualTo("${datasource}");
                Matcher m = selector.matcher(target.getString("expr"));
                int selectors = 0;
                while (m.find()) {
                    selectors++;
                    assertThat(m.group(2)).as("%s in panel '%s'", m.group(1), p.getString("title"))
                            .contains("job=~\"$job\"", "namespace=~\"$namespace\"", "pod=~\"$pod\"",
                                    "instance=~\"$instance\"");
                }
                assertThat(selectors).as(target.getString("expr")).isPositive();
            }
        }
    }

    /** The image's EXPOSE lists what the default configuration listens on: no more, no less. */
    @Test
    void theImageExposesWhatTheDefaultConfigurationListensOn() throws IOException {
        GatewayConfig d = GatewayConfig.from(ConfigFactory.empty());
        Set<String> listening = new TreeSet<>(List.of(d.listen().port() + "/tcp", d.admin().port() + "/tcp",
                d.infiniband().udpPort() + "/udp"));
        if (d.listen().rdmaTcp()) {
            listening.add(d.listen().rdmaTcpPort() + "/tcp"); // on by default: 7471
        }
        d.iwarp().listeners().forEach(l -> listening.add(l.port() + "/tcp")); // none by default
        assertThat(exposed(DEPLOY.resolve("Dockerfile"))).isEqualTo(listening)
                .containsExactly("4791/udp", "7470/tcp", "7471/tcp", "9464/tcp");
    }

    static Set<String> exposed(Path dockerfile) throws IOException {
        return Files.readString(dockerfile).lines().filter(l -> l.startsWith("EXPOSE "))
                .flatMap(l -> Arrays.stream(l.substring("EXPOSE ".length()).trim().split("\\s+")))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, Object> only(List<Map<String, Object>> docs, String kind) {
        List<Map<String, Object>> found = docs.stream().filter(d -> kind.equals(d.get("kind"))).toList();
        assertThat(found).as("manifests of kind %s", kind).hasSize(1);
        return found.getFirst();
    }
}

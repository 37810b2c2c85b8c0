package io.vibridge.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.config.MemoryLimits;
import io.vibridge.gateway.server.StartupRouteCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
@SuppressWarnings("unchecked")
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

        // The ConfigMap's application.conf is a configuration the gateway accepts, and the JVM the Deployment
        // starts holds its connections: staging.max-slots = auto in the container's memory.
        String conf = at(only(all, "ConfigMap"), "data", "application.conf");
        GatewayConfig cfg = GatewayConfig.from(ConfigFactory.parseString(conf), jvmOf(container));
        assertThat(cfg.routes().routes()).isNotEmpty();
        assertThat(cfg.infiniband().pathMtu()).isEqualTo(1024);
        assertThat(cfg.stagingConnectionCapacity()).as("connections the staging pool holds")
                .isGreaterThanOrEqualTo(cfg.limits().maxConnections());

        // Rollouts and drains: the preStop sleep and the drain fit the grace period; one pod evicted at a time.
        List<String> preStop = at(container, "lifecycle", "preStop", "exec", "command");
        assertThat(preStop).hasSize(2).first().isEqualTo("sleep");
        assertThat((Integer) at(deployment, "spec", "template", "spec", "terminationGracePeriodSeconds"))
                .isGreaterThan(Integer.parseInt(preStop.get(1)) + (int) cfg.shutdownGrace().toSeconds());
        Map<String, Object> pdb = only(all, "PodDisruptionBudget");
        assertThat((Object) at(pdb, "spec", "selector", "matchLabels"))
                .isEqualTo(at(deployment, "spec", "selector", "matchLabels"));
        assertThat((Integer) at(pdb, "spec", "maxUnavailable")).isLessThan(at(deployment, "spec", "replicas"));
    }

    /**
     * The memory limits of the JVM a Deployment's container starts: its memory limit, the heap share
     * (-XX:MaxRAMPercentage) and the direct memory limit (-XX:MaxDirectMemorySize, else the heap's) of JAVA_OPTS.
     * Heap and direct buffers leave a fifth of the container to the rest of the process.
     */
    static MemoryLimits jvmOf(Map<String, Object> container) {
        long memory = kubernetesBytes(at(container, "resources", "limits", "memory"));
        String opts = ((List<Map<String, Object>>) container.get("env")).stream()
                .filter(e -> "JAVA_OPTS".equals(e.get("name"))).map(e -> (String) e.get("value")).findFirst().orElseThrow();
        Matcher heap = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(opts);
        assertThat(heap.find()).as(opts).isTrue();
        long maxHeap = memory * Long.parseLong(heap.group(1)) / 100;
        Matcher direct = Pattern.compile("-XX:MaxDirectMemorySize=(\\d+)([kmg])").matcher(opts);
        long maxDirect = direct.find() ? Long.parseLong(direct.group(1)) << switch (direct.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            default -> 30;
        } : maxHeap;
        assertThat(maxHeap + maxDirect).as("heap and direct limits of %s in %d bytes", opts, memory)
                .isLessThanOrEqualTo(memory / 5 * 4);
        return new MemoryLimits(maxDirect, maxHeap, memory);
    }

    static long kubernetesBytes(String quantity) {
        Matcher m = Pattern.compile("(\\d+)(Mi|Gi)").matcher(quantity);
        assertThat(m.matches()).as(quantity).isTrue();
        return Long.parseLong(m.group(1)) << (m.group(2).equals("Gi") ? 30 : 20);
    }

    /**
     * deploy/k8s/rdma: its patches name the base's objects, give the pod the RDMA device, host networking and
     * IPC_LOCK, and its configuration is one the gateway accepts and the DiSNI provider (no capability:
     * DisniProviderTest) can serve, in the base's memory. deploy/Dockerfile.rdma keeps the service image's
     * ports, user, health check and entry point and adds rdma-core and libdisni.
     */
    @Test
    void theRdmaVariantPatchesTheBaseForDisni() throws IOException {
        Path rdma = DEPLOY.resolve("k8s/rdma");
        Map<String, Object> kustomization = yamlDocuments(rdma.resolve("kustomization.yaml")).getFirst();
        assertThat((List<String>) at(kustomization, "resources")).containsExactly("../");
        Map<String, Object> base = new HashMap<>();
        for (String f : List.of("deployment.yaml", "configmap.yaml")) {
            Map<String, Object> d = yamlDocuments(DEPLOY.resolve("k8s").resolve(f)).getFirst();
            base.put((String) d.get("kind"), d);
        }
        List<Map<String, Object>> patches = at(kustomization, "patches");
        assertThat(patches).hasSize(2);
        Map<String, Map<String, Object>> patched = new HashMap<>();
        for (Map<String, Object> p : patches) {
            Map<String, Object> patch = yamlDocuments(rdma.resolve((String) p.get("path"))).getFirst();
            assertThat(base).containsKey((String) patch.get("kind"));
            assertThat((String) at(patch, "metadata", "name")).isEqualTo(at(base.get(patch.get("kind")), "metadata", "name"));
            patched.put((String) patch.get("kind"), patch);
        }
        assertThat(at(kustomization, "images").toString()).contains("name=vibridge/gateway,",
                "newName=vibridge/gateway-rdma");

        Map<String, Object> pod = at(patched.get("Deployment"), "spec", "template", "spec");
        assertThat(pod).containsEntry("hostNetwork", true).containsEntry("dnsPolicy", "ClusterFirstWithHostNet");
        assertThat((Integer) at(pod, "securityContext", "runAsUser")).isZero();
        Map<String, Object> container = ((List<Map<String, Object>>) pod.get("containers")).getFirst();
        Map<String, Object> baseContainer = ((List<Map<String, Object>>) at(base.get("Deployment"), "spec", "template",
                "spec", "containers")).getFirst();
        assertThat(container.get("name")).isEqualTo(baseContainer.get("name"));
        assertThat((Map<String, Object>) at(container, "resources", "limits")).containsEntry("rdma/hca", 1);
        assertThat((List<String>) at(container, "securityContext", "capabilities", "add")).containsExactly("IPC_LOCK");

        GatewayConfig cfg = GatewayConfig.from(ConfigFactory.parseString(at(patched.get("ConfigMap"), "data",
                "application.conf")), jvmOf(baseContainer));
        assertThat(cfg.infiniband().provider()).isEqualTo("disni");
        StartupRouteCheck.check(cfg.routes(), Set.of(), "disni");
        assertThat(cfg.stagingConnectionCapacity()).isGreaterThanOrEqualTo(cfg.limits().maxConnections());

        Path rdmaImage = DEPLOY.resolve("Dockerfile.rdma");
        assertThat(exposed(rdmaImage)).isEqualTo(exposed(DEPLOY.resolve("Dockerfile")));
        String main = Files.readString(DEPLOY.resolve("Dockerfile"));
        String text = Files.readString(rdmaImage);
        for (String line : List.of("USER 10001:10001", "ENTRYPOINT [\"/opt/vibridge/bin/vibridge\"]", "CMD [\"gateway\"]",
                "  CMD [\"/opt/vibridge/bin/vibridge\", \"healthcheck\"]",
                "HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=3 \\")) {
            assertThat(main.lines()).as("deploy/Dockerfile").contains(line);
            assertThat(text.lines()).as("deploy/Dockerfile.rdma").contains(line);
        }
        assertThat(text).contains("libibverbs1 librdmacm1 ibverbs-providers",
                "COPY --from=libdisni /usr/local/lib/libdisni.so /usr/lib/libdisni.so",
                "JAVA_OPTS=\"-XX:MaxRAMPercentage=30 -XX:+ExitOnOutOfMemoryError\"");
        assertThat(main).contains("JAVA_OPTS=\"-XX:MaxRAMPercentage=30 -XX:+ExitOnOutOfMemoryError\"");
        // libdisni comes from the vendored sources in the build context (deploy/), with the script they ship
        assertThat(text).contains("COPY vendor/disni-2.1/libdisni /src/libdisni", "./autoprepare.sh;");
        assertThat(DEPLOY.resolve("vendor/disni-2.1/libdisni/autoprepare.sh")).isRegularFile();
        assertThat(DEPLOY.resolve("vendor/disni-2.1/LICENSE")).isRegularFile();
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
        Map<String, JsonObject> vars = new LinkedHashMap<>();
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

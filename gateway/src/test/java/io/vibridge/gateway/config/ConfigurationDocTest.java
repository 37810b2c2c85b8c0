package io.vibridge.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteConfigException;
import io.vibridge.cm.route.RouteParameters;
import io.vibridge.cm.route.Routes;
import io.vibridge.gateway.docs.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md against the code: every key of reference.conf is documented with the default
 * reference.conf gives it; every key the page documents exists; the keys of a route, an iWARP listener
 * and its client rules are the ones the parsers read, with the defaults they apply. Keys are the
 * backquoted first cells of the page's tables, relative to {@code vibridge.gateway}; list entries are
 * written {@code routes[].port}.
 */
class ConfigurationDocTest {

    private static final Path ROOT = RepositoryRoot.find();
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z][a-z0-9.\\[\\]-]*)`\\s*\\|([^|]*)\\|");
    private static final Pattern ENV = Pattern.compile("\\$\\{\\?(VIBRIDGE_[A-Z0-9_]+)}");
    private static final String ROUTE = "routes[].";
    private static final String LISTENER = "iwarp.listeners[].";
    private static final String CLIENT = "iwarp.listeners[].clients[].";
    /** The default cell of a key that has none. */
    private static final String REQUIRED = "required";

    private static final Path REFERENCE_CONF = ROOT.resolve("gateway/src/main/resources/reference.conf");

    private final Map<String, String> documented = documentedKeys();
    private final Config reference = ConfigFactory.parseFile(REFERENCE_CONF.toFile())
            .resolve(ConfigResolveOptions.noSystem()) // the defaults, whatever VIBRIDGE_* this JVM sees
            .getConfig(GatewayConfig.ROOT);

    @Test
    void everyKeyOfReferenceConfIsDocumentedWithItsDefault() {
        Map<String, ConfigValue> leaves = new LinkedHashMap<>();
        leaves(reference.root(), "", leaves);
        assertThat(leaves).as("reference.conf's keys").containsKeys("listen.port", "routes", "security.route-keys");
        List<String> problems = new ArrayList<>();
        leaves.forEach((key, value) -> {
            String doc = documented.get(key);
            if (doc == null) {
                problems.add(key + ": not in docs/configuration.md");
            } else if (!isListOfObjects(value) && !doc.equals(render(value))) {
                problems.add(key + ": documented default " + doc + ", reference.conf has " + render(value));
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void everyDocumentedKeyIsOneTheGatewayReads() {
        Set<String> known = new TreeSet<>();
        Map<String, ConfigValue> leaves = new LinkedHashMap<>();
        leaves(reference.root(), "", leaves);
        known.addAll(leaves.keySet());
        routeKeys().forEach(k -> known.add(ROUTE + k));
        listenerKeys().forEach(k -> known.add(LISTENER + k));
        known.add(CLIENT + "from");
        known.add(CLIENT + "route");
        assertThat(new TreeSet<>(documented.keySet())).as("keys documented but not read").isSubsetOf(known);
    }

    @Test
    void routeKeysAreDocumentedWithTheDefaultsTheParserApplies() {
        // as the gateway reads it: receive-buffers defaults to half the per-connection staging slots
        Route minimal = GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway.routes = [ { match = x, target = \"127.0.0.1\", port = 1 } ]")).routes().routes()
                .getFirst();
        RouteParameters p = minimal.target().parameters();
        Map<String, String> defaults = Map.of(
                "prefix", String.valueOf(minimal.kind() == Route.Kind.PREFIX),
                "cm-format", p.cmFormat().configName(),
                "hello-carriage", p.helloCarriage().configName(),
                "service-id", p.scheme().configName(),
                "port-space", route("match = x, target = \"127.0.0.1\", port = 1, cm-format = rdma-cm")
                        .target().parameters().portSpace().configName(),
                "flowc", String.valueOf(p.flowControl().wireValue()),
                "receive-size", String.valueOf(p.receiveSize()),
                "receive-buffers", String.valueOf(p.receiveBuffers()));
        for (String k : routeKeys()) {
            String doc = documented.get(ROUTE + k);
            assertThat(doc).as(ROUTE + k + " documented").isNotNull();
            if (doc.equals(REQUIRED)) {
                assertThatThrownBy(() -> route(without("match = x, target = \"127.0.0.1\", port = 1", k)))
                        .as(ROUTE + k + " is documented as required")
                        .isInstanceOfSatisfying(RouteConfigException.class,
                                e -> assertThat(e.key()).isEqualTo("routes[0]." + k));
            } else if (defaults.containsKey(k)) {
                assertThat(doc).as(ROUTE + k + " default").isEqualTo(defaults.get(k));
            } else {
                fail(ROUTE + k + ": a default this test does not know; add it to the map above");
            }
        }
    }

    @Test
    void listenerKeysAreDocumentedAsTheGatewayReadsThem() {
        String listener = "port = 0, route = demo";
        String client = "from = \"10.0.0.0/8\", route = demo";
        for (String k : listenerKeys()) {
            String doc = documented.get(LISTENER + k);
            assertThat(doc).as(LISTENER + k + " documented").isNotNull();
            if (doc.equals(REQUIRED)) {
                assertMissing(without(listener, k), k);
            }
        }
        assertThat(documented.get(LISTENER + "clients")).isEqualTo("[]");
        assertThat(iwarp(listener).listeners().getFirst().clients()).isEmpty();
        assertThat(iwarp(listener + ", clients = [ { " + client + " } ]").listeners().getFirst().clients()).hasSize(1);
        for (String k : List.of("from", "route")) {
            assertThat(documented.get(CLIENT + k)).as(CLIENT + k).isEqualTo(REQUIRED);
            assertMissing(listener + ", clients = [ { " + without(client, k) + " } ]", k);
        }
    }

    @Test
    void everyEnvironmentVariableOfReferenceConfIsDocumented() throws IOException {
        String conf = Files.readString(REFERENCE_CONF, StandardCharsets.UTF_8);
        String doc = Files.readString(ROOT.resolve("docs/configuration.md"), StandardCharsets.UTF_8);
        Matcher m = ENV.matcher(conf);
        Set<String> variables = new TreeSet<>();
        while (m.find()) {
            variables.add(m.group(1));
        }
        assertThat(variables).isNotEmpty();
        assertThat(variables).allSatisfy(v -> assertThat(doc).as(v).contains("`" + v + "`"));
    }

    /** Key -> default cell (its first code span, else its text) of every table row that documents a key. */
    private static Map<String, String> documentedKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"), StandardCharsets.UTF_8)) {
                Matcher m = ROW.matcher(line);
                if (m.find()) {
                    String cell = m.group(2).strip();
                    Matcher code = Pattern.compile("^`([^`]*)`").matcher(cell);
                    String previous = keys.put(m.group(1), code.find() ? code.group(1) : cell);
                    assertThat(previous).as("documented twice: " + m.group(1)).isNull();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(keys).as("rows found in docs/configuration.md").isNotEmpty();
        return keys;
    }

    /** The leaf keys under {@code object}: scalars, lists, and empty objects (such as {@code route-keys {}}). */
    private static void leaves(ConfigObject object, String prefix, Map<String, ConfigValue> out) {
        object.forEach((k, v) -> {
            String key = prefix + k;
            if (v.valueType() == ConfigValueType.OBJECT && !((ConfigObject) v).isEmpty()) {
                leaves((ConfigObject) v, key + ".", out);
            } else {
                out.put(key, v);
            }
        });
    }

    private static boolean isListOfObjects(ConfigValue v) {
        return v.valueType() == ConfigValueType.LIST && !((ConfigList) v).isEmpty()
                && ((ConfigList) v).getFirst().valueType() == ConfigValueType.OBJECT;
    }

    /** A default as the page writes it: the bare value, {@code ""} for an empty string. */
    private static String render(ConfigValue v) {
        return switch (v.valueType()) {
            case STRING -> ((String) v.unwrapped()).isEmpty() ? "\"\"" : (String) v.unwrapped();
            case NUMBER, BOOLEAN -> String.valueOf(v.unwrapped());
            default -> v.render(ConfigRenderOptions.concise());
        };
    }

    /** The keys a route object may have, as the route parser lists them when it meets one it does not know. */
    private static Set<String> routeKeys() {
        try {
            route("match = x, target = \"127.0.0.1\", port = 1, not-a-route-key = 1");
        } catch (RouteConfigException e) {
            Matcher m = Pattern.compile("expected one of \\[(.*)]").matcher(e.reason());
            assertThat(m.find()).as("the parser's list of route keys in: " + e.reason()).isTrue();
            return new TreeSet<>(List.of(m.group(1).split(",\\s*")));
        }
        throw new AssertionError("an unknown route key was accepted");
    }

    /** The keys an iWARP listener may have, as the gateway lists them when it meets one it does not know. */
    private static Set<String> listenerKeys() {
        try {
            iwarp("port = 0, route = demo, not-a-listener-key = 1");
        } catch (ConfigError e) {
            Matcher m = Pattern.compile("unknown key \\((.*)\\)").matcher(e.getMessage());
            assertThat(m.find()).as("the gateway's list of listener keys in: " + e.getMessage()).isTrue();
            return new TreeSet<>(List.of(m.group(1).split(",\\s*")));
        }
        throw new AssertionError("an unknown listener key was accepted");
    }

    private static Route route(String fields) {
        return Routes.fromConfig(ConfigFactory.parseString("routes = [ { " + fields + " } ]")).routes().getFirst();
    }

    private static GatewayConfig.Iwarp iwarp(String listenerFields) {
        return GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway.iwarp.listeners = [ { " + listenerFields + " } ]")).iwarp();
    }

    private static void assertMissing(String listenerFields, String key) {
        assertThatThrownBy(() -> iwarp(listenerFields)).as(key + " is documented as required")
                .isInstanceOfSatisfying(ConfigError.class, e -> assertThat(e.key()).endsWith(key));
    }

    /** {@code fields} (comma-separated {@code key = value}) without the one named {@code key}. */
    private static String without(String fields, String key) {
        List<String> kept = new ArrayList<>();
        for (String f : fields.split(",\\s*")) {
            if (!f.startsWith(key + " ")) {
                kept.add(f);
            }
        }
        return String.join(", ", kept);
    }
}

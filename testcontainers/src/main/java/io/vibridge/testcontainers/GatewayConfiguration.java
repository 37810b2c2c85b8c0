package io.vibridge.testcontainers;

import io.vibridge.vitcp.security.ConnectKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * What a {@link VibridgeContainer} was told, and its rendering as the gateway's application.conf
 * (docs/configuration.md): the soft RoCEv2 provider at path MTU 1024 unless told otherwise (RoCEv2 packets
 * must fit a Docker network's 1500-byte MTU), the routes, the iWARP listeners, the security key, then the
 * extra HOCON as given, which may override any of it.
 */
final class GatewayConfiguration {
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9-]*");

    private final List<Route> routes = new ArrayList<>();
    private final List<IwarpListener> listeners = new ArrayList<>();
    private final Map<String, Object> provider = new LinkedHashMap<>();
    private final List<String> extra = new ArrayList<>();
    private String securityKey;

    GatewayConfiguration() {
        provider.put("provider", "soft");
        provider.put("path-mtu", 1024);
    }

    void addRoute(Route route) {
        for (Route r : routes) {
            if (r.match().equals(route.match()) && r.prefix() == route.prefix()) {
                throw new IllegalArgumentException("a route matching '" + route.match() + "' is already configured");
            }
        }
        routes.add(route);
    }

    boolean hasRoute(String match) {
        return routes.stream().anyMatch(r -> r.match().equals(match));
    }

    List<Route> routes() {
        return List.copyOf(routes);
    }

    void addListener(IwarpListener listener) {
        for (IwarpListener l : listeners) {
            if (l.port() == listener.port()) {
                throw new IllegalArgumentException("an iWARP listener on port " + listener.port() + " is already configured");
            }
        }
        listeners.add(listener);
    }

    List<IwarpListener> listeners() {
        return List.copyOf(listeners);
    }

    /** Checked as the gateway will check it, so that a bad key fails here rather than at start. */
    void securityKey(String key) {
        ConnectKeys.decode(key);
        securityKey = key;
    }

    String securityKey() {
        return securityKey;
    }

    void providerOption(String key, Object value) {
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("an infiniband option is a key of vibridge.gateway.infiniband such as "
                    + "path-mtu or retry-count, got '" + key + "'");
        }
        if (!(value instanceof Number || value instanceof Boolean || value instanceof String)) {
            throw new IllegalArgumentException("infiniband." + key + ": a number, a boolean or a string, got " + value);
        }
        provider.put(key, value);
    }

    void extra(String hocon) {
        extra.add(hocon);
    }

    /** The application.conf, with each target container's address as {@code addressOf} gives it. */
    String render(Function<VibridgeTargetContainer, String> addressOf) {
        StringBuilder b = new StringBuilder("vibridge.gateway {\n  infiniband {\n");
        provider.forEach((k, v) -> b.append("    ").append(k).append(" = ").append(value(v)).append('\n'));
        b.append("  }\n");
        if (securityKey != null) {
            b.append("  security.key = ").append(quote(securityKey)).append('\n');
        }
        if (!listeners.isEmpty()) {
            b.append("  iwarp.listeners = [\n");
            for (IwarpListener l : listeners) {
                b.append("    { port = ").append(l.port()).append(", route = ").append(quote(l.route())).append(" }\n");
            }
            b.append("  ]\n");
        }
        if (!routes.isEmpty()) {
            b.append("  routes = [\n");
            for (Route r : routes) {
                b.append("    ").append(route(r, addressOf)).append('\n');
            }
            b.append("  ]\n");
        }
        b.append("}\n");
        for (String e : extra) {
            b.append(e).append('\n');
        }
        return b.toString();
    }

    private static String route(Route r, Function<VibridgeTargetContainer, String> addressOf) {
        String target = switch (r.target()) {
            case RouteTarget.Address a -> a.ip();
            case RouteTarget.Container c -> addressOf.apply(c.target());
        };
        StringBuilder b = new StringBuilder("{ match = ").append(quote(r.match())).append(", target = ")
                .append(quote(target)).append(", port = ").append(r.port());
        if (r.prefix()) {
            b.append(", prefix = true");
        }
        if (r.cmFormat() != null) {
            b.append(", cm-format = ").append(r.cmFormat().configName());
        }
        if (r.flowc() != null) {
            b.append(", flowc = ").append(r.flowc());
        }
        if (r.receiveSize() != null) {
            b.append(", receive-size = ").append(r.receiveSize());
        }
        if (r.receiveBuffers() != null) {
            b.append(", receive-buffers = ").append(r.receiveBuffers());
        }
        return b.append(" }").toString();
    }

    private static String value(Object v) {
        return v instanceof String s ? quote(s) : v.toString();
    }

    /** A HOCON quoted string (JSON's rules). */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}

package io.vibridge.cm.route;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.vitcp.wire.Discriminator;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Reads {@link Routes} from a Typesafe {@link Config}; the shape is documented on {@link Routes#fromConfig}. */
final class RoutesConfig {

    private static final Set<String> PARAMETER_KEYS =
            Set.of("service-id", "port-space", "cm-format", "hello-carriage", "flowc", "receive-size",
                    "receive-buffers");
    private static final Set<String> ROUTE_KEYS = union(PARAMETER_KEYS, "match", "prefix", "target", "port");
    private static final Set<String> DIRECT_KEYS = union(PARAMETER_KEYS, "enabled");

    private RoutesConfig() {
    }

    private static Set<String> union(Set<String> base, String... more) {
        Set<String> s = new TreeSet<>(base);
        s.addAll(List.of(more));
        return Set.copyOf(s);
    }

    static Routes read(Config config, int defaultReceiveBuffers) {
        Routes.Builder builder = Routes.builder();
        if (config.hasPath("direct-routes")) {
            Config d = object(config, "direct-routes");
            checkKeys(d, "direct-routes", DIRECT_KEYS);
            if (bool(d, "enabled", "direct-routes.", false)) {
                builder.directRoutes(parameters(d, "direct-routes.", defaultReceiveBuffers));
            }
        }
        if (config.hasPath("routes")) {
            List<? extends ConfigValue> list;
            try {
                list = config.getList("routes");
            } catch (ConfigException e) {
                throw new RouteConfigException("routes", "must be a list of route objects");
            }
            for (int i = 0; i < list.size(); i++) {
                String key = "routes[" + i + "]";
                ConfigValue v = list.get(i);
                if (v.valueType() != ConfigValueType.OBJECT) {
                    throw new RouteConfigException(key, "must be an object, got " + v.valueType().name().toLowerCase(Locale.ROOT));
                }
                builder.add(key, route(((ConfigObject) v).toConfig(), key, defaultReceiveBuffers));
            }
        }
        return builder.build();
    }

    private static Route route(Config c, String key, int defaultReceiveBuffers) {
        checkKeys(c, key, ROUTE_KEYS);
        String p = key + ".";
        String match = string(c, "match", p, null);
        Discriminator discriminator;
        try {
            discriminator = Discriminator.parse(match);
        } catch (IllegalArgumentException e) {
            throw new RouteConfigException(p + "match", e.getMessage());
        }
        boolean prefix = bool(c, "prefix", p, false);
        String targetText = string(c, "target", p, null);
        InetAddress target = AddressLiterals.parseAddress(targetText);
        if (target == null) {
            throw new RouteConfigException(p + "target",
                    "must be an IPv4 or IPv6 address literal (host names are not resolved), got \"" + targetText + "\"");
        }
        int port = integer(c, "port", p, null);
        RouteParameters parameters = parameters(c, p, defaultReceiveBuffers);
        try {
            return new Route(discriminator, prefix ? Route.Kind.PREFIX : Route.Kind.EXACT,
                    new RouteTarget(target, port, parameters));
        } catch (RouteConfigException e) {
            throw e.withKeyPrefix(p);
        }
    }

    private static RouteParameters parameters(Config c, String p, int defaultReceiveBuffers) {
        CmFormat cmFormat = named(c, "cm-format", p, CmFormat.HELLO.configName(), CmFormat::fromConfigName);
        String defaultScheme = cmFormat == CmFormat.RDMA_CM ? "rdma-cm" : "iwarp";
        ServiceIdScheme scheme = named(c, "service-id", p, defaultScheme, ServiceIdScheme::fromConfigName);
        RdmaPortSpace portSpace = c.hasPath("port-space")
                ? named(c, "port-space", p, null, RdmaPortSpace::fromConfigName) : null;
        HelloCarriage carriage = named(c, "hello-carriage", p, HelloCarriage.AUTO.configName(),
                HelloCarriage::fromConfigName);
        int flowc = integer(c, "flowc", p, 1);
        FlowControl flowControl;
        try {
            flowControl = FlowControl.of(flowc);
        } catch (IllegalArgumentException e) {
            throw new RouteConfigException(p + "flowc", "must be 0 or 1, got " + flowc);
        }
        int receiveSize = size(c, "receive-size", p, RouteParameters.DEFAULT_RECEIVE_SIZE);
        int receiveBuffers = integer(c, "receive-buffers", p, defaultReceiveBuffers);
        try {
            return new RouteParameters(scheme, portSpace, cmFormat, carriage, flowControl, receiveSize,
                    receiveBuffers);
        } catch (RouteConfigException e) {
            throw e.withKeyPrefix(p);
        }
    }

    private interface Parser<T> {
        T parse(String s);
    }

    private static <T> T named(Config c, String k, String p, String dflt, Parser<T> parser) {
        String text = string(c, k, p, dflt);
        try {
            return parser.parse(text);
        } catch (IllegalArgumentException e) {
            throw new RouteConfigException(p + k, e.getMessage());
        }
    }

    private static void checkKeys(Config c, String key, Set<String> allowed) {
        for (String k : c.root().keySet()) {
            if (!allowed.contains(k)) {
                throw new RouteConfigException(key + "." + k, "unknown key; expected one of " + new TreeSet<>(allowed));
            }
        }
    }

    private static Config object(Config c, String k) {
        try {
            return c.getConfig(k);
        } catch (ConfigException e) {
            throw new RouteConfigException(k, "must be an object");
        }
    }

    private static String string(Config c, String k, String p, String dflt) {
        if (!c.hasPath(k)) {
            if (dflt == null) {
                throw new RouteConfigException(p + k, "missing");
            }
            return dflt;
        }
        try {
            return c.getString(k);
        } catch (ConfigException e) {
            throw new RouteConfigException(p + k, "must be a string");
        }
    }

    private static boolean bool(Config c, String k, String p, boolean dflt) {
        if (!c.hasPath(k)) {
            return dflt;
        }
        try {
            return c.getBoolean(k);
        } catch (ConfigException e) {
            throw new RouteConfigException(p + k, "must be true or false");
        }
    }

    private static int integer(Config c, String k, String p, Integer dflt) {
        if (!c.hasPath(k)) {
            if (dflt == null) {
                throw new RouteConfigException(p + k, "missing");
            }
            return dflt;
        }
        try {
            return c.getInt(k);
        } catch (ConfigException e) {
            throw new RouteConfigException(p + k, "must be an integer, got " + c.getValue(k).render());
        }
    }

    private static int size(Config c, String k, String p, int dflt) {
        if (!c.hasPath(k)) {
            return dflt;
        }
        long bytes;
        try {
            bytes = c.getBytes(k);
        } catch (ConfigException e) {
            throw new RouteConfigException(p + k, "must be a size in bytes (e.g. 65536 or 64KiB), got "
                    + c.getValue(k).render());
        }
        if (bytes <= 0 || bytes > Integer.MAX_VALUE) {
            throw new RouteConfigException(p + k, "must be in 1..2147483647 bytes, got " + bytes);
        }
        return (int) bytes;
    }
}

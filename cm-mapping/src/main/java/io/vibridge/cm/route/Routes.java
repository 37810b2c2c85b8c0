package io.vibridge.cm.route;

import com.typesafe.config.Config;
import io.vibridge.vitcp.wire.Discriminator;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The gateway's routing table (CM-MAPPING §6): maps the called discriminator of a VI Connect
 * Request to a {@link Route}. Immutable and safe to share between threads.
 *
 * <p><b>Matching</b>, in this order:
 *
 * <ol>
 *   <li>an {@linkplain Route.Kind#EXACT exact} route whose discriminator equals the called one;</li>
 *   <li>else the {@linkplain Route.Kind#PREFIX prefix} route with the longest prefix of the called
 *       discriminator (an empty prefix is a catch-all);</li>
 *   <li>else, if direct routes are enabled and the called discriminator is the UTF-8 text
 *       {@code a.b.c.d:port} or {@code [ipv6]:port} (IP literals only, never names), a
 *       {@linkplain Route.Kind#DIRECT direct} route to that address and port with the direct-route
 *       parameters;</li>
 *   <li>else no route: the gateway answers Connect No Match and closes (VI/TCP draft 4.3).</li>
 * </ol>
 *
 * Configured routes thus win over the direct form; a catch-all prefix together with direct routes
 * is refused as a configuration error, since the direct form could never match.
 *
 * <p><b>Errors</b> ({@link RouteConfigException}, naming the key): two exact routes with the same
 * discriminator, or two prefix routes with the same prefix (naming both routes); and every invalid
 * value listed in {@link RouteParameters}, {@link RouteTarget} and {@link #fromConfig(Config)}.
 *
 * <p>Built either with {@link #builder()} in plain Java or from configuration with {@link
 * #fromConfig(Config)}.
 */
public final class Routes {

    private final Map<Discriminator, Route> exact;
    /** Prefix routes by prefix; prefixes of different lengths never collide as keys. */
    private final Map<Discriminator, Route> prefixes;
    /** The distinct prefix lengths, longest first: a lookup tries at most 65 of them. */
    private final int[] prefixLengthsDesc;
    private final List<Route> all;
    private final RouteParameters direct;

    private Routes(List<Route> routes, List<String> keys, RouteParameters direct) {
        Map<Discriminator, Route> exactMap = new HashMap<>();
        Map<Discriminator, String> exactKeys = new HashMap<>();
        Map<Discriminator, String> prefixKeys = new HashMap<>();
        List<Route> prefixes = new ArrayList<>();
        for (int i = 0; i < routes.size(); i++) {
            Route r = routes.get(i);
            String key = keys.get(i);
            switch (r.kind()) {
                case EXACT -> {
                    String other = exactKeys.putIfAbsent(r.discriminator(), key);
                    if (other != null) {
                        throw new RouteConfigException(key + ".match", other + " and " + key
                                + " both match exactly " + r.discriminator());
                    }
                    exactMap.put(r.discriminator(), r);
                }
                case PREFIX -> {
                    String other = prefixKeys.putIfAbsent(r.discriminator(), key);
                    if (other != null) {
                        throw new RouteConfigException(key + ".match", other + " and " + key
                                + " both match the prefix " + r.discriminator());
                    }
                    if (direct != null && r.discriminator().length() == 0) {
                        throw new RouteConfigException("direct-routes.enabled", key
                                + " is a catch-all (empty prefix), so a direct route could never match");
                    }
                    prefixes.add(r);
                }
                case DIRECT -> throw new RouteConfigException(key, "direct routes are made by lookup, not configured");
            }
        }
        Map<Discriminator, Route> prefixMap = new HashMap<>();
        for (Route p : prefixes) {
            prefixMap.put(p.discriminator(), p);
        }
        this.exact = Map.copyOf(exactMap);
        this.prefixes = Map.copyOf(prefixMap);
        this.prefixLengthsDesc = prefixes.stream().mapToInt(r -> r.discriminator().length())
                .distinct().boxed().sorted(Comparator.reverseOrder()).mapToInt(Integer::intValue).toArray();
        this.all = List.copyOf(routes);
        this.direct = direct;
    }

    /** An empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Routes from configuration. {@code config} holds (both optional; absent means no routes and
     * no direct routes):
     *
     * <pre>
     * routes = [
     *   { match = "storage", prefix = false, target = "127.0.0.3", port = 5000, service-id = iwarp,
     *     cm-format = hello, flowc = 0, receive-size = 65536, receive-buffers = 64 }
     *   { match = "hex:00ff", prefix = true, target = "::1", port = 7471, service-id = rdma-cm,
     *     port-space = tcp, cm-format = rdma-cm, flowc = 1 }
     * ]
     * direct-routes { enabled = false, service-id = iwarp, cm-format = hello, flowc = 1,
     *                 receive-size = 65536, receive-buffers = 64 }
     * </pre>
     *
     * <ul>
     *   <li>{@code match} (required): the discriminator, UTF-8 text or {@code hex:...}, at most 64
     *       bytes; {@code prefix} (default false) makes it a prefix route.</li>
     *   <li>{@code target} (required): an IPv4 or IPv6 address literal, never a host name;
     *       {@code port} (required): the target port P, 1..65535.</li>
     *   <li>{@code cm-format}: {@code hello} (default) or {@code rdma-cm}; {@code service-id}:
     *       {@code iwarp}, {@code sdp} or {@code rdma-cm} (default {@code rdma-cm} when cm-format is
     *       rdma-cm, else {@code iwarp}); {@code port-space}: {@code tcp} (default) or {@code ib},
     *       rdma-cm only; {@code flowc}: 0 or 1 (default 1); {@code receive-size}: bytes, a number
     *       or a size such as {@code 64KiB} (default 65536); {@code receive-buffers}: 1..65535,
     *       at least 3 with flowc 0 (default 64, or the one {@link #fromConfig(Config, int)} is given).</li>
     *   <li>{@code direct-routes}: {@code enabled} (default false) and the same parameter keys,
     *       applied to every direct route.</li>
     *   <li>Unknown keys are errors (they are usually typos).</li>
     * </ul>
     *
     * @throws RouteConfigException naming the key of the first invalid value, e.g.
     *     {@code routes[2].port}
     */
    public static Routes fromConfig(Config config) {
        return fromConfig(config, RouteParameters.DEFAULT_RECEIVE_BUFFERS);
    }

    /**
     * {@link #fromConfig(Config)} with {@code defaultReceiveBuffers} for routes that do not set
     * {@code receive-buffers}: an application derives it from its own buffer budget (the gateway from the
     * staging slots a connection reserves), so a route needs only {@code match}, {@code target} and
     * {@code port}.
     */
    public static Routes fromConfig(Config config, int defaultReceiveBuffers) {
        return RoutesConfig.read(config, defaultReceiveBuffers);
    }

    /**
     * The route for a called discriminator (see the class comment for the order), or empty.
     *
     * @param called the called discriminator of the Connect Request, any length
     */
    public Optional<Route> lookup(byte[] called) {
        Objects.requireNonNull(called, "called");
        // no route is longer than 64 bytes, so a longer called discriminator can only match a prefix
        Route r = called.length <= Discriminator.MAX_LENGTH ? exact.get(Discriminator.of(called)) : null;
        if (r != null) {
            return Optional.of(r);
        }
        for (int length : prefixLengthsDesc) {
            if (length <= called.length) {
                Route p = prefixes.get(Discriminator.of(Arrays.copyOf(called, length)));
                if (p != null) {
                    return Optional.of(p);
                }
            }
        }
        if (direct != null && called.length <= Discriminator.MAX_LENGTH) {
            AddressLiterals.HostPort hp = parseDirect(called);
            if (hp != null) {
                return Optional.of(new Route(Discriminator.of(called), Route.Kind.DIRECT,
                        new RouteTarget(hp.address(), hp.port(), direct)));
            }
        }
        return Optional.empty();
    }

    /** {@link #lookup(byte[])} of the UTF-8 bytes of {@code called}. */
    public Optional<Route> lookup(String called) {
        return lookup(called.getBytes(StandardCharsets.UTF_8));
    }

    private static AddressLiterals.HostPort parseDirect(byte[] called) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(called))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        return AddressLiterals.parseHostPort(text);
    }

    /** The configured routes, in configuration order. */
    public List<Route> routes() {
        return all;
    }

    /** The parameters of direct routes, or empty when they are disabled. */
    public Optional<RouteParameters> directRoutes() {
        return Optional.ofNullable(direct);
    }

    /** Builds {@link Routes} in plain Java; routes are named {@code routes[i]} in errors, by order. */
    public static final class Builder {

        private final List<Route> routes = new ArrayList<>();
        private final List<String> keys = new ArrayList<>();
        private RouteParameters direct;

        private Builder() {
        }

        /** Adds a route. */
        public Builder add(Route route) {
            return add("routes[" + routes.size() + "]", route);
        }

        /** Adds a route that errors name {@code key}. */
        Builder add(String key, Route route) {
            routes.add(Objects.requireNonNull(route, "route"));
            keys.add(key);
            return this;
        }

        /** Adds an exact route (discriminator as configuration text, see {@link Discriminator#parse}). */
        public Builder exact(String discriminator, RouteTarget target) {
            return add(Route.exact(discriminator, target));
        }

        /** Adds a prefix route. */
        public Builder prefix(String discriminator, RouteTarget target) {
            return add(Route.prefix(discriminator, target));
        }

        /** Enables direct {@code host:port} routes with these parameters ({@code null} disables). */
        public Builder directRoutes(RouteParameters parameters) {
            this.direct = parameters;
            return this;
        }

        /**
         * The routes.
         *
         * @throws RouteConfigException for duplicate discriminators or a catch-all with direct routes
         */
        public Routes build() {
            return new Routes(routes, keys, direct);
        }
    }
}

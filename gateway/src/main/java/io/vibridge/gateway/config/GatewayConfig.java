package io.vibridge.gateway.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteConfigException;
import io.vibridge.cm.route.RouteParameters;
import io.vibridge.cm.route.Routes;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.security.ConnectKeys;
import io.vibridge.vitcp.security.ConnectSigner;
import io.vibridge.vitcp.wire.Discriminator;
import java.io.File;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The gateway's validated configuration: everything under {@code vibridge.gateway} (reference.conf
 * documents each key). {@link #from(Config)} reads and checks every value; a bad one is a
 * {@link ConfigError} naming its key.
 */
public record GatewayConfig(Listen listen, Admin admin, Vi vi, Staging staging, Limits limits, Security security,
        Infiniband infiniband, Iwarp iwarp, Routes routes, Duration shutdownGrace, Transport transport) {

    public static final String ROOT = "vibridge.gateway";

    /**
     * The VI/TCP listeners on {@code host}: native on {@code port}, seed-004 RDMA/TCP framing on
     * {@code rdmaTcpPort} (VITCP-PROFILE §8), or none when it is {@link #OFF}. Both serve the same routes.
     */
    public record Listen(String host, int port, int rdmaTcpPort) {
        /** {@code rdmatcp-port = off}: no seed-004 listener. */
        public static final int OFF = -1;

        public boolean rdmaTcp() {
            return rdmaTcpPort != OFF;
        }
    }

    /** The event loops' socket I/O ({@code transport}). */
    public enum Transport {
        /** Netty's native epoll transport when it loads, else NIO */
        AUTO,
        /** Netty's native epoll transport, or fail */
        EPOLL,
        /** Java NIO */
        NIO
    }

    /**
     * Admin HTTP endpoint: its address, the bearer token required for everything but {@code /health} and
     * {@code /ready} (null: none), how long an idle HTTP connection stays open and how many may be open at once.
     */
    public record Admin(String host, int port, String token, Duration idleTimeout, int maxConnections) {
        public boolean tokenRequired() {
            return token != null;
        }
    }

    /** VI side: MTU cap, outbound segment payload, RDMA Read window announced, Incoming timeout. */
    public record Vi(int maxMtu, int segmentSize, int rdmaReadWindow, Duration incomingTimeout, int creditThreshold) {
    }

    /**
     * Staging buffers: slots of {@code slotSize} bytes, allocated on demand in chunks of {@code chunkSlots}
     * (one registered buffer each), at most {@code maxSlots} in all.
     */
    public record Staging(int slotSize, int maxSlots, int chunkSlots) {
        /** VI payload a slot holds (room for the 16-byte FlowC 0 header is kept). */
        public int payloadSize() {
            return slotSize - FlowControlHeader.LENGTH;
        }
    }

    /** Connection limits and per-connection buffering. */
    public record Limits(int maxConnections, int maxConnectionsPerClient, double connectRate, int connectBurst,
            long bufferPerConnection, int maxPending, int maxPendingPerClient) {
    }

    /**
     * Shared HMAC keys (VITCP-PROFILE §5): a global one and per-route ones (by route match), and the verifier's
     * clock window and replay memory (each key has its own memory).
     */
    public record Security(byte[] key, Map<Discriminator, byte[]> routeKeys, ConnectSigner.Policy replay) {
        public boolean enabled() {
            return key != null || !routeKeys.isEmpty();
        }
    }

    /** The InfiniBand side: device and RC/CM parameters. */
    public record Infiniband(String provider, InetAddress address, int udpPort, int pathMtu, int retryCount,
            int rnrRetry, int localAckTimeout, int cmResponseTimeout, int maxCmRetries, int initiatorDepth,
            int responderResources, Duration keepalive, String faults, String udpOffload, String idle,
            boolean cutThrough, Duration minRnrWait, Duration maxRnrWait) {

        /**
         * The verbs device to open: {@code provider} ({@code auto}: automatic selection) at {@code address}, with the
         * soft provider's options (fault injection, UDP offload, idle mode, RNR waits) only where the soft provider
         * may be the one opened, named or automatic: another provider named refuses options it does not know.
         */
        public DeviceConfig deviceConfig(InetAddress address, String provider) {
            boolean auto = provider.equals("auto");
            DeviceConfig dc = new DeviceConfig(address, udpPort, auto ? null : provider, null);
            if (!auto && !provider.equals("soft")) {
                return dc;
            }
            if (!faults.isEmpty()) {
                dc = dc.withOption("faults", faults);
            }
            dc = dc.withOption("udp-offload", udpOffload);
            if (!idle.equals("block")) {
                dc = dc.withOption("idle", idle);              // the soft device's polling mode
            }
            // the soft requester's RNR floor and backoff: a stalled client must not spin
            return dc.withOption("min-rnr-wait-us", Long.toString(minRnrWait.toNanos() / 1000))
                    .withOption("max-rnr-wait-us", Long.toString(maxRnrWait.toNanos() / 1000));
        }
    }

    /**
     * The iWARP front end: listeners on {@code host}, each routing its clients to one route (by the route's
     * {@code match}) unless a client-address rule picks another; CRC32C when asked or always; the largest
     * FPDU emitted; how long a client may take to send its MPA Request (and, in peer-to-peer mode, its RTR); how
     * long after the MPA Reply the gateway sends first when the client has not (IWARP-MAPPING §2, step 6).
     */
    public record Iwarp(String host, List<IwarpListener> listeners, boolean crcRequired, int maxFpdu,
            Duration requestTimeout, Duration firstSendDelay) {
    }

    /** One iWARP port: its default route and the client-address rules tried first. */
    public record IwarpListener(int port, Route route, List<ClientRule> clients) {
        /** The route for a client at {@code address}: the first rule whose prefix holds it, else the port's. */
        public Route routeFor(InetAddress address) {
            for (ClientRule r : clients) {
                if (r.matches(address)) {
                    return r.route();
                }
            }
            return route;
        }
    }

    /** Clients whose address lies in {@code network}/{@code prefixLength} go to {@code route}. */
    public record ClientRule(InetAddress network, int prefixLength, Route route) {
        public boolean matches(InetAddress a) {
            byte[] n = network.getAddress();
            byte[] x = a.getAddress();
            if (n.length != x.length) {
                return false;
            }
            int bits = prefixLength;
            for (int i = 0; i < n.length && bits > 0; i++, bits -= 8) {
                int mask = bits >= 8 ? 0xFF : (0xFF << (8 - bits)) & 0xFF;
                if (((n[i] ^ x[i]) & mask) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Connections the staging pool can hold at once: max-slots / slots per connection. */
    public int stagingConnectionCapacity() {
        return staging.maxSlots() / Math.max(1, slotsPerConnection());
    }

    /** Slots a connection reserves (buffer-per-connection / slot-size). */
    public int slotsPerConnection() {
        return slotsPerConnection(limits.bufferPerConnection(), staging.slotSize());
    }

    private static int slotsPerConnection(long bufferPerConnection, int slotSize) {
        return (int) Math.min(Integer.MAX_VALUE, bufferPerConnection / slotSize);
    }

    /** The staging pool holds fewer connections than {@code limits.max-connections} (the rest get IS 14). */
    public boolean stagingShortOfMaxConnections() {
        return stagingConnectionCapacity() < limits.maxConnections();
    }

    /** One line: the listeners, the device, the routes and the staging room ({@code vibridge gateway --check}). */
    public String summary() {
        StringBuilder b = new StringBuilder("VI/TCP on ").append(listen.host()).append(':').append(listen.port());
        if (listen.rdmaTcp()) {
            b.append(" (RDMA/TCP frames on port ").append(listen.rdmaTcpPort()).append(')');
        }
        if (!iwarp.listeners().isEmpty()) {
            b.append(", iWARP on ").append(iwarp.host()).append(" port");
            b.append(iwarp.listeners().size() == 1 ? " " : "s ");
            b.append(String.join(", ", iwarp.listeners().stream().map(l -> String.valueOf(l.port())).toList()));
        }
        b.append(", admin on ").append(admin.host()).append(':').append(admin.port());
        b.append(", InfiniBand device ").append(infiniband.address().getHostAddress()).append(" (provider ")
                .append(infiniband.provider()).append(')');
        int n = routes.routes().size();
        b.append(", ").append(n).append(n == 1 ? " route" : " routes");
        if (n > 0) {
            b.append(" (").append(String.join(", ", routes.routes().stream().map(r -> r.discriminator().toString())
                    .toList())).append(')');
        }
        if (routes.directRoutes().isPresent()) {
            b.append(", direct routes on");
        }
        b.append(", staging room for ").append(stagingConnectionCapacity()).append(" connections at once (")
                .append(slotsPerConnection()).append(" slots each, limits.max-connections = ")
                .append(limits.maxConnections()).append(')');
        return b.toString();
    }

    /** {@code ConfigFactory.load()}: reference.conf, application.conf, -D system properties, env substitutions. */
    public static GatewayConfig load() {
        ConfigFactory.invalidateCaches();
        Config root;
        try {
            root = ConfigFactory.load();
        } catch (ConfigException e) {
            throw ConfigError.unreadable(e);
        }
        return from(root);
    }

    /** Loads with {@code file} as the application configuration (over reference.conf, under -D). */
    public static GatewayConfig load(File file) {
        ConfigFactory.invalidateCaches();
        if (!file.isFile()) {
            throw ConfigError.unreadable("configuration file not found: " + file);
        }
        Config root;
        try {
            Config app = ConfigFactory.parseFile(file);
            requireRoot(app, file);
            root = ConfigFactory.defaultOverrides().withFallback(app).withFallback(ConfigFactory.defaultReference())
                    .resolve();
        } catch (ConfigException e) {
            throw ConfigError.unreadable(e);
        }
        return from(root);
    }

    /**
     * A file without the {@code vibridge.gateway} block (an empty file, or keys written without the prefix)
     * would leave every default in place, the demo route included, and pass {@code --check}: an error naming
     * the root key the gateway reads.
     */
    private static void requireRoot(Config app, File file) {
        if (app.hasPathOrNull(ROOT)) {
            return;
        }
        Set<String> top = app.root().keySet();
        throw ConfigError.unreadable("configuration file " + file + ": no " + ROOT + " block ("
                + (top.isEmpty() ? "the file is empty" : "top-level keys " + String.join(", ", new TreeSet<>(top)))
                + "); the gateway reads every key under " + ROOT + " { ... }, e.g. " + ROOT + ".listen.port = 7470");
    }

    /**
     * A key that reference.conf does not document is a typo or a renamed key, which Typesafe Config would
     * otherwise ignore in silence (the default then applies): an error naming it. Route entries and the
     * per-route key map hold keys of the user's choosing.
     */
    private static void rejectUnknownKeys(Config c, Config reference) {
        for (var e : c.entrySet()) {
            String key = e.getKey();
            if (key.startsWith("security.route-keys.") || reference.hasPathOrNull(key)) {
                continue;
            }
            throw new ConfigError(key, key.equals("staging.slots") ? "renamed: use staging.max-slots"
                    : "unknown key (reference.conf lists every key)");
        }
    }

    /** Reads {@code vibridge.gateway} of a resolved config; overrides on top of reference.conf. */
    public static GatewayConfig from(Config root) {
        return from(root, MemoryLimits.ofThisJvm());
    }

    /** As {@link #from(Config)}, with staging checked against (and, when {@code auto}, sized from) {@code memory}. */
    public static GatewayConfig from(Config root, MemoryLimits memory) {
        Config c;
        try {
            c = root.withFallback(ConfigFactory.defaultReference()).resolve().getConfig(ROOT);
        } catch (ConfigException e) {
            throw ConfigError.unreadable(e);
        }
        try {
            rejectUnknownKeys(c, ConfigFactory.defaultReference().getConfig(ROOT));
            Listen listen = new Listen(string(c, "listen.host"), port(c, "listen.port", true),
                    "off".equals(c.getValue("listen.rdmatcp-port").unwrapped()) ? Listen.OFF
                            : port(c, "listen.rdmatcp-port", true));
            Admin admin = new Admin(string(c, "admin.host"), port(c, "admin.port", true), AdminToken.read(c),
                    positive(c, "admin.idle-timeout"), intIn(c, "admin.max-connections", 1, 1 << 16, false));
            int maxMtu = intIn(c, "vi.max-mtu", 32 * 1024, Integer.MAX_VALUE, true);
            int seg = intIn(c, "vi.segment-size", 1, LocalEndpoint.MAX_SEGMENT_PAYLOAD, true);
            int window = intIn(c, "vi.rdma-read-window", 0, 0xFFFF, false);
            Duration incoming = positive(c, "vi.incoming-timeout");
            int creditThreshold = intIn(c, "vi.credit-threshold", 0, 0xFFFF, false);
            Vi vi = new Vi(maxMtu, seg, window, incoming, creditThreshold);
            int slotSize = intIn(c, "staging.slot-size", 32 * 1024 + FlowControlHeader.LENGTH, 16 << 20, true);
            int chunkSlots = intIn(c, "staging.chunk-slots", 1, 1 << 24, false);
            int maxConnections = intIn(c, "limits.max-connections", 1, 1 << 20, false);
            Limits limits = new Limits(maxConnections,
                    "auto".equals(c.getValue("limits.max-connections-per-client").unwrapped())
                            ? perClientShare(maxConnections)
                            : intIn(c, "limits.max-connections-per-client", 1, 1 << 20, false),
                    nonNegativeDouble(c, "limits.connect-rate"),
                    intIn(c, "limits.connect-burst", 1, 1 << 20, false),
                    bytes(c, "limits.buffer-per-connection"),
                    intIn(c, "limits.max-pending", 1, 1 << 20, false),
                    intIn(c, "limits.max-pending-per-client", 1, 1 << 20, false));
            int maxSlots = StagingSize.maxSlots("auto".equals(c.getValue(StagingSize.KEY).unwrapped())
                            ? OptionalInt.empty() : OptionalInt.of(intIn(c, StagingSize.KEY, 1, StagingSize.MAX, false)),
                    slotSize, chunkSlots, slotsPerConnection(limits.bufferPerConnection(), slotSize),
                    limits.maxConnections(), memory);
            if ((long) slotSize * Math.min(chunkSlots, maxSlots) > Integer.MAX_VALUE) {
                throw new ConfigError("staging.chunk-slots",
                        "slot-size x chunk-slots must stay below 2 GiB (one registered buffer per chunk)");
            }
            Staging staging = new Staging(slotSize, maxSlots, chunkSlots);
            checkStagingBudget(limits, staging);
            Security security = security(c);
            Infiniband ib = infiniband(c);
            Routes routes;
            try {
                routes = Routes.fromConfig(c, defaultReceiveBuffers(slotsPerConnection(limits.bufferPerConnection(),
                        slotSize)));
            } catch (RouteConfigException e) {
                throw new ConfigError(e.key(), e.reason());
            }
            Duration grace = nonNegative(c, "shutdown-grace");
            Iwarp iwarp = iwarp(c, listen, routes);
            GatewayConfig g = new GatewayConfig(listen, admin, vi, staging, limits, security, ib, iwarp, routes,
                    grace, transport(c));
            g.checkRoutes();
            return g;
        } catch (ConfigException.Missing e) {
            throw new ConfigError(strip(e.getMessage()), "missing");
        } catch (ConfigException e) {
            throw new ConfigError(keyOf(e), e.getMessage());
        }
    }

    /**
     * {@code limits.max-connections-per-client = auto}: an eighth of {@code max-connections} (125 of 1000), at least 1,
     * so that one client address cannot take the gateway's (or its targets') whole budget. A gateway whose
     * clients share one address (one big client, or many behind NAT) sets the limit itself.
     */
    public static int perClientShare(int maxConnections) {
        return Math.max(1, maxConnections / PER_CLIENT_SHARE);
    }

    /** {@code auto}'s divisor: one client address may hold 1/8 of {@code max-connections}. */
    public static final int PER_CLIENT_SHARE = 8;

    /**
     * {@code receive-buffers} of a route that does not set it: half the staging slots a connection
     * reserves, rounded up (8 of 15 with the defaults), the other half backing the client's credits. Both
     * directions then get the same depth, and any budget of at least 2 slots leaves the client one.
     */
    static int defaultReceiveBuffers(int slotsPerConnection) {
        return Math.max(1, (slotsPerConnection + 1) / 2);
    }

    private static void checkStagingBudget(Limits limits, Staging staging) {
        int perConn = slotsPerConnection(limits.bufferPerConnection(), staging.slotSize());
        if (perConn < 2) {
            throw new ConfigError("limits.buffer-per-connection",
                    "must hold at least 2 staging slots of " + staging.slotSize() + " bytes (staging.slot-size)");
        }
        if (perConn > staging.maxSlots()) {
            throw new ConfigError("limits.buffer-per-connection", "one connection reserves " + perConn
                    + " staging slots of " + staging.slotSize() + " bytes, more than staging.max-slots = "
                    + staging.maxSlots() + ": no connection could ever be admitted");
        }
    }

    private void checkRoutes() {
        int i = 0;
        for (Route r : routes.routes()) {
            checkParameters("routes[" + i + "]", r.target().parameters());
            i++;
        }
        if (routes.directRoutes().isPresent()) {
            checkParameters("direct-routes", routes.directRoutes().get());
        }
        for (Discriminator d : security.routeKeys().keySet()) {
            boolean found = routes.routes().stream().anyMatch(r -> r.discriminator().equals(d));
            if (!found) {
                throw new ConfigError("security.route-keys", "no route matches \"" + d + "\"");
            }
        }
    }

    private void checkParameters(String key, RouteParameters p) {
        if (p.receiveSize() > staging.slotSize()) {
            throw new ConfigError(key + ".receive-size", p.receiveSize() + " does not fit a staging slot of "
                    + staging.slotSize() + " bytes (staging.slot-size)");
        }
        if (p.receiveBuffers() >= slotsPerConnection()) {
            int slots = slotsPerConnection();
            throw new ConfigError(key + ".receive-buffers", p.receiveBuffers() + " leaves no staging slot for the "
                    + "client's messages: limits.buffer-per-connection (" + limits.bufferPerConnection() + " bytes) "
                    + "holds " + slots + " slots of staging.slot-size (" + staging.slotSize() + " bytes); set "
                    + "receive-buffers below " + slots + " (or leave it out: half the slots) or raise "
                    + "limits.buffer-per-connection");
        }
    }

    private static Security security(Config c) {
        byte[] key = null;
        if (c.hasPath("security.key") && !c.getString("security.key").isEmpty()) {
            key = decodeKey("security.key", c.getString("security.key"));
        }
        Map<Discriminator, byte[]> routeKeys = new HashMap<>();
        if (c.hasPath("security.route-keys")) {
            for (Map.Entry<String, ConfigValue> e : c.getObject("security.route-keys").entrySet()) {
                String k = "security.route-keys.\"" + e.getKey() + "\"";
                Discriminator d;
                try {
                    d = Discriminator.parse(e.getKey());
                } catch (IllegalArgumentException ex) {
                    throw new ConfigError(k, ex.getMessage());
                }
                Object v = e.getValue().unwrapped();
                if (!(v instanceof String s)) {
                    throw new ConfigError(k, "must be a string");
                }
                routeKeys.put(d, decodeKey(k, s));
            }
        }
        // the replay memory is per process; the window bounds replays after a restart and across
        // replicas, the per-client share keeps one client from filling the memory for the others
        Duration window = c.hasPath("security.clock-window") ? positive(c, "security.clock-window")
                : Duration.ofMillis(ConnectSigner.CLOCK_WINDOW_MILLIS);
        if (window.compareTo(Duration.ofSeconds(60)) > 0 || window.toMillis() < 1) {
            throw new ConfigError("security.clock-window", "must be within 1ms..60s, got " + window.toMillis() + "ms");
        }
        int capacity = c.hasPath("security.replay-capacity")
                ? intIn(c, "security.replay-capacity", 1, 1 << 20, false) : ConnectSigner.DEFAULT_REPLAY_CAPACITY;
        int perClient = c.hasPath("security.replay-per-client")
                ? intIn(c, "security.replay-per-client", 1, capacity, false)
                : Math.min(capacity, ConnectSigner.DEFAULT_REPLAY_PER_CLIENT);
        return new Security(key, Map.copyOf(routeKeys), new ConnectSigner.Policy(window.toMillis(), capacity, perClient));
    }

    /** "hex:...", "base64:..." or plain UTF-8; at least 16 bytes ({@link ConnectKeys}). */
    public static byte[] decodeKey(String key, String text) {
        try {
            return ConnectKeys.decode(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigError(key, e.getMessage());
        }
    }

    private static Transport transport(Config c) {
        String t = string(c, "transport").trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "auto" -> Transport.AUTO;
            case "epoll" -> Transport.EPOLL;
            case "nio" -> Transport.NIO;
            default -> throw new ConfigError("transport", "must be auto, epoll or nio, got " + t);
        };
    }

    private static Infiniband infiniband(Config c) {
        String provider = string(c, "infiniband.provider").toLowerCase(Locale.ROOT);
        List<String> providers = Verbs.names();
        if (!provider.equals("auto") && !providers.contains(provider)) {
            throw new ConfigError("infiniband.provider", "must be auto or a verbs provider ("
                    + String.join(", ", providers) + "), got " + provider);
        }
        InetAddress address;
        String a = string(c, "infiniband.address");
        try {
            address = InetAddress.ofLiteral(a);
        } catch (IllegalArgumentException e) {
            throw new ConfigError("infiniband.address", "not an IP literal: " + a);
        }
        int mtu = c.getInt("infiniband.path-mtu");
        if (Integer.bitCount(mtu) != 1 || mtu < 256 || mtu > 4096) {
            throw new ConfigError("infiniband.path-mtu", "must be 256, 512, 1024, 2048 or 4096, got " + mtu);
        }
        String faults = c.hasPath("infiniband.faults") ? c.getString("infiniband.faults") : "";
        String offload = c.hasPath("infiniband.udp-offload")
                ? c.getString("infiniband.udp-offload").trim().toLowerCase(Locale.ROOT) : "auto";
        if (!Set.of("auto", "on", "off").contains(offload)) {
            throw new ConfigError("infiniband.udp-offload", "must be auto, on or off, got " + offload);
        }
        String idle = c.hasPath("infiniband.idle")
                ? c.getString("infiniband.idle").trim().toLowerCase(Locale.ROOT) : "block";
        if (!Set.of("block", "spin", "backoff").contains(idle)) {
            throw new ConfigError("infiniband.idle", "must be block, spin or backoff, got " + idle);
        }
        // IBA 9.7.5.2.8: a requester waits at least the RNR NAK's coded time; these bound the soft provider's
        // floor and backoff on top of it (verbs-backend README, "RNR waits")
        Duration minRnr = c.hasPath("infiniband.min-rnr-wait") ? nonNegative(c, "infiniband.min-rnr-wait")
                : Duration.ofMillis(1);
        Duration maxRnr = c.hasPath("infiniband.max-rnr-wait") ? nonNegative(c, "infiniband.max-rnr-wait")
                : Duration.ofMillis(100);
        for (var e : Map.of("infiniband.min-rnr-wait", minRnr, "infiniband.max-rnr-wait", maxRnr).entrySet()) {
            if (e.getValue().compareTo(Duration.ofSeconds(60)) > 0) {
                throw new ConfigError(e.getKey(), "must be at most 60s, got " + e.getValue().toMillis() + "ms");
            }
        }
        if (maxRnr.compareTo(minRnr) < 0) {
            throw new ConfigError("infiniband.max-rnr-wait", "must not be below infiniband.min-rnr-wait ("
                    + minRnr.toMillis() + "ms), got " + maxRnr.toMillis() + "ms");
        }
        return new Infiniband(provider, address, port(c, "infiniband.udp-port", false), mtu,
                intIn(c, "infiniband.retry-count", 0, 7, false), intIn(c, "infiniband.rnr-retry", 0, 7, false),
                // 0 disables the retransmit timer (IBA): a dead target would then hang its clients for ever
                intIn(c, "infiniband.local-ack-timeout", 1, 31, false),
                intIn(c, "infiniband.cm-response-timeout", 0, 31, false),
                intIn(c, "infiniband.max-cm-retries", 0, 15, false),
                intIn(c, "infiniband.initiator-depth", 1, 255, false),
                intIn(c, "infiniband.responder-resources", 0, 255, false),
                nonNegative(c, "infiniband.keepalive"), faults, offload, idle, cutThrough(c), minRnr, maxRnr);
    }

    /** {@code infiniband.cut-through}: auto (where the provider can answer remote access itself) or off. */
    private static boolean cutThrough(Config c) {
        String v = string(c, "infiniband.cut-through").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "auto" -> true;
            case "off" -> false;
            default -> throw new ConfigError("infiniband.cut-through", "must be auto or off, got " + v);
        };
    }

    private static Iwarp iwarp(Config c, Listen listen, Routes routes) {
        String host = c.getString("iwarp.host").isBlank() ? listen.host() : c.getString("iwarp.host");
        String crc = c.getString("iwarp.crc").trim().toLowerCase(Locale.ROOT);
        if (!Set.of("when-asked", "required").contains(crc)) {
            throw new ConfigError("iwarp.crc", "must be when-asked or required, got " + crc);
        }
        List<IwarpListener> listeners = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        var list = c.getConfigList("iwarp.listeners");
        for (int i = 0; i < list.size(); i++) {
            String k = "iwarp.listeners[" + i + "]";
            Config l = list.get(i);
            for (var e : l.entrySet()) {
                if (!Set.of("port", "route", "clients").contains(e.getKey())) {
                    throw new ConfigError(k + "." + e.getKey(), "unknown key (port, route, clients)");
                }
            }
            int port = port(l, "port", true);
            if (port != 0 && (!ports.add(port) || port == listen.port() || port == listen.rdmaTcpPort())) {
                throw new ConfigError(k + ".port", "port " + port + " is already taken by another listener");
            }
            List<ClientRule> rules = new ArrayList<>();
            if (l.hasPath("clients")) {
                var cl = l.getConfigList("clients");
                for (int j = 0; j < cl.size(); j++) {
                    String rk = k + ".clients[" + j + "]";
                    rules.add(clientRule(rk, cl.get(j), routes));
                }
            }
            listeners.add(new IwarpListener(port, routeNamed(k + ".route", string(l, "route"), routes),
                    List.copyOf(rules)));
        }
        return new Iwarp(host, List.copyOf(listeners), crc.equals("required"),
                intIn(c, "iwarp.max-fpdu", 64, 65535, true), positive(c, "iwarp.request-timeout"),
                positive(c, "iwarp.first-send-delay"));
    }

    private static ClientRule clientRule(String key, Config r, Routes routes) {
        String from = string(r, "from");
        int slash = from.indexOf('/');
        InetAddress net;
        try {
            net = InetAddress.ofLiteral(slash < 0 ? from : from.substring(0, slash));
        } catch (IllegalArgumentException e) {
            throw new ConfigError(key + ".from", "not an address or address/prefix: " + from);
        }
        int max = net.getAddress().length * 8;
        int prefix;
        try {
            prefix = slash < 0 ? max : Integer.parseInt(from.substring(slash + 1));
        } catch (NumberFormatException e) {
            prefix = -1;
        }
        if (prefix < 0 || prefix > max) {
            throw new ConfigError(key + ".from", "prefix length must be 0.." + max + ": " + from);
        }
        return new ClientRule(net, prefix, routeNamed(key + ".route", string(r, "route"), routes));
    }

    /** The route whose {@code match} is {@code name} exactly. */
    private static Route routeNamed(String key, String name, Routes routes) {
        Discriminator d;
        try {
            d = Discriminator.parse(name);
        } catch (IllegalArgumentException e) {
            throw new ConfigError(key, e.getMessage());
        }
        for (Route r : routes.routes()) {
            if (r.discriminator().equals(d)) {
                return r;
            }
        }
        throw new ConfigError(key, "no route has match = \"" + name + "\"");
    }

    private static String string(Config c, String key) {
        String s = c.getString(key);
        if (s.isBlank()) {
            throw new ConfigError(key, "must not be empty");
        }
        return s;
    }

    private static int port(Config c, String key, boolean zeroAllowed) {
        return intIn(c, key, zeroAllowed ? 0 : 1, 65535, false);
    }

    private static int intIn(Config c, String key, int min, int max, boolean sizeAllowed) {
        long v;
        try {
            v = sizeAllowed ? c.getBytes(key) : c.getLong(key);
        } catch (ConfigException.WrongType | ConfigException.BadValue e) {
            throw new ConfigError(key, "not a " + (sizeAllowed ? "size" : "number") + ": " + c.getValue(key).render());
        }
        if (v < min || v > max) {
            throw new ConfigError(key, "must be within " + min + ".." + max + ", got " + v);
        }
        return (int) v;
    }

    private static long bytes(Config c, String key) {
        try {
            long v = c.getBytes(key);
            if (v <= 0) {
                throw new ConfigError(key, "must be positive");
            }
            return v;
        } catch (ConfigException.WrongType | ConfigException.BadValue e) {
            throw new ConfigError(key, "not a size: " + c.getValue(key).render());
        }
    }

    private static double nonNegativeDouble(Config c, String key) {
        double v;
        try {
            v = c.getDouble(key);
        } catch (ConfigException.WrongType | ConfigException.BadValue e) {
            throw new ConfigError(key, "not a number: " + c.getValue(key).render());
        }
        if (!(v >= 0)) {
            throw new ConfigError(key, "must be >= 0 (0 = unlimited), got " + v);
        }
        return v;
    }

    private static Duration positive(Config c, String key) {
        Duration d = nonNegative(c, key);
        if (d.isZero()) {
            throw new ConfigError(key, "must be positive");
        }
        return d;
    }

    private static Duration nonNegative(Config c, String key) {
        Duration d;
        try {
            d = c.getDuration(key);
        } catch (ConfigException.WrongType | ConfigException.BadValue e) {
            throw new ConfigError(key, "not a duration: " + c.getValue(key).render());
        }
        if (d.isNegative()) {
            throw new ConfigError(key, "must not be negative");
        }
        return d;
    }

    private static String strip(String msg) {
        int i = msg.indexOf("No configuration setting found for key '");
        if (i >= 0) {
            int s = i + "No configuration setting found for key '".length();
            int e = msg.indexOf('\'', s);
            return e > s ? msg.substring(s, e) : msg;
        }
        return msg;
    }

    private static String keyOf(ConfigException e) {
        String m = e.getMessage();
        int colon = m.indexOf(": ");
        return colon > 0 ? m.substring(0, colon) : "?";
    }
}

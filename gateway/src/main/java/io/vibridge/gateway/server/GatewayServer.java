package io.vibridge.gateway.server;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admin.AdminServer;
import io.vibridge.gateway.admission.Admission;
import io.vibridge.gateway.admission.Pending;
import io.vibridge.gateway.admission.Refusal;
import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.bridge.BridgedConnection;
import io.vibridge.gateway.bridge.client.NetSocketTransport;
import io.vibridge.gateway.bridge.iwarp.IwarpFrontEnd;
import io.vibridge.gateway.bridge.vi.RouteKeys;
import io.vibridge.gateway.bridge.vi.ViFrontEnd;
import io.vibridge.gateway.bridge.BridgeContext;
import io.vibridge.gateway.bridge.staging.DirectMemory;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.config.MemoryLimits;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.ProcessMeters;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import io.vibridge.vitcp.wire.Encapsulation;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway service: opens the verbs device, registers the staging pool, binds the VI/TCP
 * listener (one {@link BridgedConnection} per accepted socket, on that socket's event loop) and the admin HTTP
 * endpoint, and drains connections on {@link #close()}.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);

    private final GatewayConfig config;
    private final Vertx vertx;
    private final VerbsDevice device;
    private final ProtectionDomain pd;
    private final StagingPool pool;
    private final DirectMemory directMemory;
    private final PrometheusMeterRegistry registry;
    private final ProcessMeters processMeters;
    private final BridgeContext shared;
    /** The VI/TCP routes' Security Type 1 keys and their replay memory (VITCP-PROFILE §5). */
    private final RouteKeys routeKeys;
    private final ConnectRateLimiter rate;
    /** The bound on connections in setup, for every listener. */
    private final Admission admission;
    private final boolean ownsVertx;
    /** One listener per event loop and encapsulation (Vert.x shares a port among them, round robin per accepted socket). */
    private final List<NetServer> servers = new ArrayList<>();
    private AdminServer admin;
    private int port;
    private int rdmaTcpPort = GatewayConfig.Listen.OFF;
    private final List<Integer> iwarpPorts = new ArrayList<>();
    private int adminPort;
    private volatile boolean ready;
    private volatile boolean closed;
    /** Why the device was given up (AsyncEvent.DeviceFatal); null while it serves. */
    private volatile String lostDevice;
    private boolean verbsReleased;
    private long summaryTimer = -1;
    private long summaryOpened;
    private long summaryClosed;

    private GatewayServer(GatewayConfig config, Vertx vertx, boolean ownsVertx, Function<DeviceConfig, VerbsDevice> opener) {
        this.config = config;
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        GatewayConfig.Infiniband ib = config.infiniband();
        DeviceConfig dc = ib.deviceConfig(ib.address(), ib.provider());
        try {
            device = opener.apply(dc);
        } catch (VerbsException e) {
            throw new StartupError("cannot open the InfiniBand device at " + ib.address().getHostAddress()
                    + " (infiniband.address, infiniband.provider = " + ib.provider() + "): " + e.getMessage(), e);
        }
        try {
            ConnectionManager cm;
            try {
                cm = device.connectionManager();
            } catch (UnsupportedOperationException e) {
                throw new StartupError("verbs provider " + device.providerName() + " cannot connect: " + e.getMessage(), e);
            }
            RouteCapabilities.check(config.routes(), device.capabilities(), device.providerName(), cm.writesCmaHeader(),
                    cm::takesServiceId);
            if (!device.capabilities().contains(Capability.CM_RETRY_CONTROL)) {
                log.warn("verbs provider {} chooses its own CM retries, ACK timeout, RNR timer and path MTU: "
                        + "infiniband.max-cm-retries, local-ack-timeout, path-mtu are not applied", device.providerName());
            }
            pd = device.allocateProtectionDomain();
            GatewayConfig.Staging st = config.staging();
            directMemory = new DirectMemory(MemoryLimits.ofThisJvm().maxDirect());
            pool = new StagingPool(pd, st.slotSize(), st.maxSlots(), st.chunkSlots(), config.limits().maxConnections(),
                    directMemory);
            int capacity = config.stagingConnectionCapacity();
            String line = "staging: slots of " + st.slotSize() + " B allocated on demand in chunks of "
                    + pool.chunkSlots() + ", at most " + st.maxSlots() + " (" + ((long) st.slotSize() * st.maxSlots() >> 20)
                    + " MiB of the JVM's " + (directMemory.limit() >> 20) + " MiB of direct memory); a connection reserves "
                    + config.slotsPerConnection()
                    + " (limits.buffer-per-connection): room for " + capacity
                    + " connections at once, limits.max-connections = " + config.limits().maxConnections();
            if (capacity < config.limits().maxConnections()) {
                log.warn("{}: connections beyond {} get Connect Reject IS 14 (raise staging.max-slots, or with auto "
                        + "-XX:MaxDirectMemorySize, or lower limits.buffer-per-connection)", line, capacity);
            } else {
                log.info(line);
            }
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        processMeters = ProcessMeters.bindTo(registry); // first: it configures the registry's meter filters
        GatewayMetrics metrics = new GatewayMetrics(registry);
        shared = new BridgeContext(config, device, pd, pool, metrics);
        routeKeys = new RouteKeys(config.security());
        rate = new ConnectRateLimiter(config.limits().connectRate(), config.limits().connectBurst());
        admission = new Admission(config.limits().maxPending(), config.limits().maxPendingPerClient(), registry,
                TimeUnit.MILLISECONDS.toNanos(SUMMARY_MILLIS));
        registerDeviceMeters(metrics);
        Context asyncEvents = vertx.getOrCreateContext();
        device.onAsyncEvent(this::onAsyncEvent, r -> asyncEvents.runOnContext(v -> r.run()));
        if (!device.capabilities().contains(Capability.REMOTE_ACCESS_HANDLER) || !ib.cutThrough()) {
            log.warn("{}: target-initiated RDMA WRITE/READ aimed at a client's memory (cut-through) is not carried: the "
                    + "target's operation fails with a remote access error and its connection closes",
                    ib.cutThrough() ? "verbs provider " + device.providerName() + " cannot answer remote access itself"
                            : "infiniband.cut-through = off");
            warnRoutesThatNeedCutThrough();
        } else {
            log.info("cut-through on: target-initiated RDMA WRITE/READ is forwarded to the client's memory");
        }
    }

    /**
     * Without cut-through, the routes whose targets usually RDMA the client's memory: rdma_cm servers (rping,
     * perftest's READ/WRITE servers, NVMe-oF, iSER and NFS/RDMA targets) behind rdma-cm routes and iWARP listeners.
     */
    private void warnRoutesThatNeedCutThrough() {
        List<Route> routes = config.routes().routes();
        for (int i = 0; i < routes.size(); i++) {
            if (routes.get(i).target().parameters().cmFormat() == CmFormat.RDMA_CM) {
                log.warn("routes[{}] ({}): rdma_cm servers such as rping, NVMe-oF and iSER targets RDMA-read and -write "
                        + "the client's memory; on this gateway such a connection fails at the first one",
                        i, routes.get(i).discriminator());
            }
        }
        List<GatewayConfig.IwarpListener> iwarp = config.iwarp().listeners();
        for (int i = 0; i < iwarp.size(); i++) {
            log.warn("iwarp.listeners[{}] (port {}): iWARP applications such as rping and NVMe-oF hosts let their peer "
                    + "RDMA their memory; on this gateway such a connection fails at the first one", i, iwarp.get(i).port());
        }
    }

    /** Starts with a Vert.x instance of its own, on the configured transport; blocks until the listeners are bound. */
    public static GatewayServer start(GatewayConfig config) {
        return start(config, EventLoops.create(config.transport()), true);
    }

    public static GatewayServer start(GatewayConfig config, Vertx vertx, boolean ownsVertx) {
        return start(config, vertx, ownsVertx, Verbs::open);
    }

    /** As {@link #start(GatewayConfig)}, with the device {@code opener} opens for the configuration's (embedding, tests). */
    public static GatewayServer start(GatewayConfig config, Function<DeviceConfig, VerbsDevice> opener) {
        return start(config, EventLoops.create(config.transport()), true, opener);
    }

    private static GatewayServer start(GatewayConfig config, Vertx vertx, boolean ownsVertx,
                                       Function<DeviceConfig, VerbsDevice> opener) {
        GatewayServer s = new GatewayServer(config, vertx, ownsVertx, opener);
        try {
            s.bind();
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** True when the event loops run on Netty's native epoll transport (vibridge.gateway.transport). */
    public boolean nativeTransport() {
        return vertx.isNativeTransportEnabled();
    }

    private void bind() {
        port = listen(config.listen().port(), Encapsulation.VITCP, "listen.port");
        if (config.listen().rdmaTcp()) {
            rdmaTcpPort = listen(config.listen().rdmaTcpPort(), Encapsulation.RDMATCP, "listen.rdmatcp-port");
        }
        List<GatewayConfig.IwarpListener> iwarp = config.iwarp().listeners();
        for (int i = 0; i < iwarp.size(); i++) {
            iwarpPorts.add(listenIwarp(iwarp.get(i), "iwarp.listeners[" + i + "].port"));
        }
        admin = new AdminServer(vertx, registry, () -> ready && !closed, this::connections, device);
        GatewayConfig.Admin a = config.admin();
        adminPort = awaitBound(admin.start(a.host(), a.port(), new AdminServer.Options(a.token(), a.idleTimeout(),
                a.maxConnections())), "admin HTTP",
                config.admin().host(), config.admin().port(), "admin.port");
        ready = true;
        summaryTimer = vertx.setPeriodic(SUMMARY_MILLIS, t -> summary());
        log.info("gateway listening for VI/TCP on {}:{}{}, admin on {}:{}, InfiniBand device {} ({}) at {}",
                config.listen().host(), port, config.listen().rdmaTcp()
                        ? ", RDMA/TCP framing on port " + rdmaTcpPort + " (CRC reversal: " + RdmaTcpCrc.implementation() + ")" : "",
                config.admin().host(), adminPort, device.name(), device.providerName(), device.address().getHostAddress());
        for (int i = 0; i < iwarpPorts.size(); i++) {
            GatewayConfig.IwarpListener l = config.iwarp().listeners().get(i);
            log.info("iWARP (MPA rev 2, CRC {}) on {}:{} to route {}{}", config.iwarp().crcRequired() ? "required"
                    : "when asked", config.iwarp().host(), iwarpPorts.get(i), l.route().discriminator(),
                    l.clients().isEmpty() ? "" : " (" + l.clients().size() + " client-address rules first)");
        }
    }

    /** Binds one iWARP listener (one per event loop, as {@link #listen}); its port. */
    private int listenIwarp(GatewayConfig.IwarpListener l, String key) {
        NetServerOptions o = new NetServerOptions().setTcpNoDelay(true).setReuseAddress(true)
                .setHost(config.iwarp().host()).setPort(l.port()).setAcceptBacklog(4096);
        if (o.getPort() == 0) {
            o.setPort(-RANDOM_PORT_KEYS.incrementAndGet());
        }
        String what = "iWARP";
        int bound = listenOn(o, socket -> onIwarpConnect(socket, l), what, l.port(), key);
        for (int i = 1; i < LISTENERS; i++) {
            listenOn(o, socket -> onIwarpConnect(socket, l), what, l.port(), key);
        }
        return bound;
    }

    private void onIwarpConnect(NetSocket socket, GatewayConfig.IwarpListener l) {
        Pending pending = admit(socket, ClientProtocol.IWARP);
        if (pending != null) {
            new BridgedConnection(shared, vertx, new NetSocketTransport(socket), pending, new IwarpFrontEnd(l)).start();
        }
    }

    /**
     * A new connection on any listener: its slot among the connections in setup, or null when it was closed
     * (stopping, over the connect rate, over a pending bound: counted, and in the periodic summary line).
     */
    private Pending admit(NetSocket socket, ClientProtocol frontEnd) {
        if (closed || !ready) {
            socket.close();
            return null;
        }
        if (!rate.tryAcquire()) {
            shared.metrics().rejected(RejectReason.LIMIT);
            admission.refused(frontEnd, Refusal.RATE);
            log.debug("connection from {} over the connect rate: closed", socket.remoteAddress());
            socket.close();
            return null;
        }
        Pending pending = admission.admit(frontEnd, clientAddress(socket));
        if (pending == null) {
            log.debug("connection from {} over the pending bound: closed", socket.remoteAddress());
            socket.close();
        }
        return pending;
    }

    private static InetAddress clientAddress(NetSocket socket) {
        try {
            return InetAddress.ofLiteral(socket.remoteAddress().hostAddress());
        } catch (RuntimeException e) {
            return InetAddress.getLoopbackAddress(); // not an IP socket: one bucket for all of them
        }
    }

    /** The iWARP listeners' ports, in the order of {@code iwarp.listeners}. */
    public List<Integer> iwarpPorts() {
        return List.copyOf(iwarpPorts);
    }

    /** Binds the listeners of one encapsulation on {@code requested} (0: OS-chosen, {@code key} chose it); the bound port. */
    private int listen(int requested, Encapsulation encapsulation, String key) {
        NetServerOptions o = new NetServerOptions().setTcpNoDelay(true).setReuseAddress(true)
                .setHost(config.listen().host()).setPort(requested).setAcceptBacklog(4096);
        // each BridgedConnection runs on the event loop of the listener that accepted its socket: a single listener would
        // put every connection's setup (CQ, QP, CM REQ, VI segments) on one thread, so bind one per core
        // Vert.x shares a bound port among the listeners of one Vertx; port 0 is never shared, a negative
        // port is one OS-chosen port shared by every listener asking for that same negative value: one value
        // per gateway and encapsulation, so two gateways on one Vertx never share theirs
        if (o.getPort() == 0) {
            o.setPort(-RANDOM_PORT_KEYS.incrementAndGet());
        }
        String what = encapsulation == Encapsulation.RDMATCP ? "VI/TCP in RDMA/TCP frames" : "VI/TCP";
        int bound = listenOn(o, socket -> onConnect(socket, encapsulation), what, requested, key);
        for (int i = 1; i < LISTENERS; i++) {
            listenOn(o, socket -> onConnect(socket, encapsulation), what, requested, key);
        }
        return bound;
    }

    private static final long SUMMARY_MILLIS = 10_000;

    /**
     * One INFO line per period with connection activity (the per-connection lines are DEBUG), and one line for
     * connection setup when connections were refused at accept (WARN) or ended in setup without an answer: a
     * connect flood logs a line per period, not one per connection.
     */
    private void summary() {
        Admission.Summary setup = admission.summary();
        if (setup != null) {
            if (setup.refused() > 0) {
                log.warn("connection setup in the last {} s: {}", SUMMARY_MILLIS / 1000, setup.line());
            } else {
                log.info("connection setup in the last {} s: {}", SUMMARY_MILLIS / 1000, setup.line());
            }
        }
        GatewayMetrics m = shared.metrics();
        long opened = m.openedTotal();
        long closedNow = m.closedTotal();
        if (opened != summaryOpened || closedNow != summaryClosed) {
            log.info("connections: {} bridged, {} closed in the last {} s; {} open", opened - summaryOpened,
                    closedNow - summaryClosed, SUMMARY_MILLIS / 1000, m.activeConnections());
            summaryOpened = opened;
            summaryClosed = closedNow;
        }
    }

    private static final AtomicInteger RANDOM_PORT_KEYS =
            new AtomicInteger();

    private static final int LISTENERS = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 8));

    /**
     * Binds one listener on a fresh event-loop context (the next event loop, round robin); its port. A
     * failure is a {@link StartupError} naming {@code what}, the address and {@code port} (as configured) and
     * the configuration {@code key}.
     */
    private int listenOn(NetServerOptions o, Handler<NetSocket> onSocket, String what, int port,
            String key) {
        ContextInternal ctx = ((VertxInternal) vertx).createEventLoopContext();
        Promise<NetServer> bound = Promise.promise();
        NetServerOptions copy = new NetServerOptions(o);
        ctx.runOnContext(v -> {
            NetServer s = vertx.createNetServer(copy).connectHandler(onSocket);
            synchronized (servers) {
                servers.add(s);
            }
            s.listen().onComplete(bound);
        });
        return awaitBound(bound.future(), what, o.getHost(), port, key).actualPort();
    }

    private static <T> T awaitBound(Future<T> f, String what, String host, int port, String key) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new StartupError("cannot listen for " + what + " on " + host + ":" + port + " (" + key + "): "
                    + (cause.getMessage() != null ? cause.getMessage() : cause.toString()), cause);
        } catch (Exception e) {
            throw new IllegalStateException("listening for " + what + " on " + host + ":" + port + ": " + e, e);
        }
    }

    /** Waits (bounded) for a close of Vert.x or a server. */
    private static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e.toString(), e);
        }
    }

    private void onConnect(NetSocket socket, Encapsulation encapsulation) {
        Pending pending = admit(socket, ClientProtocol.of(encapsulation));
        if (pending != null) {
            new BridgedConnection(shared, vertx, new NetSocketTransport(socket), pending,
                    new ViFrontEnd(encapsulation, routeKeys)).start();
        }
    }

    private void registerDeviceMeters(GatewayMetrics m) {
        counter(m, "vibridge.ib.retransmissions", "InfiniBand packets retransmitted", DeviceCounters::retransmissions);
        counter(m, "vibridge.ib.timeouts", "InfiniBand ACK timeouts", DeviceCounters::timeouts);
        counter(m, "vibridge.ib.naks.received", "NAKs received", c -> c.naksReceivedSequence(), "kind", "sequence");
        counter(m, "vibridge.ib.naks.received", "NAKs received", c -> c.naksReceivedInvalid(), "kind", "invalid");
        counter(m, "vibridge.ib.naks.received", "NAKs received", c -> c.naksReceivedAccess(), "kind", "access");
        counter(m, "vibridge.ib.naks.received", "NAKs received", c -> c.naksReceivedOperational(), "kind",
                "operational");
        counter(m, "vibridge.ib.naks.received", "NAKs received", c -> c.rnrNaksReceived(), "kind", "rnr");
        counter(m, "vibridge.ib.naks.sent", "NAKs sent", c -> c.naksSentSequence(), "kind", "sequence");
        counter(m, "vibridge.ib.naks.sent", "NAKs sent", c -> c.naksSentInvalid(), "kind", "invalid");
        counter(m, "vibridge.ib.naks.sent", "NAKs sent", c -> c.naksSentAccess(), "kind", "access");
        counter(m, "vibridge.ib.naks.sent", "NAKs sent", c -> c.naksSentOperational(), "kind", "operational");
        counter(m, "vibridge.ib.naks.sent", "NAKs sent", c -> c.rnrNaksSent(), "kind", "rnr");
        counter(m, "vibridge.ib.rnr.waits", "RNR waits", DeviceCounters::rnrWaits);
        // Prometheus: vibridge_ib_rnr_wait_seconds_total (the base unit makes the suffix)
        m.functionCounter("vibridge.ib.rnr.wait", "Time the device's requesters spent waiting after RNR NAKs, summed "
                + "over QPs", "seconds", device, d -> d.counters().rnrWaitNanos() / 1e9);
        counter(m, "vibridge.ib.icrc.drops", "Packets dropped for a bad ICRC", DeviceCounters::icrcDrops);
        counter(m, "vibridge.ib.packets", "InfiniBand packets", DeviceCounters::packetsOut, "direction", "out");
        counter(m, "vibridge.ib.packets", "InfiniBand packets", DeviceCounters::packetsIn, "direction", "in");
        m.gauge("vibridge.staging.slots.in.use", "Staging slots reserved by connections", pool, StagingPool::inUse);
        m.gauge("vibridge.staging.slots.capacity", "Staging slots the pool may grow to (max-slots)", pool,
                StagingPool::capacity);
        m.gauge("vibridge.staging.slots.allocated", "Staging slots allocated and registered so far (chunks)", pool,
                StagingPool::allocated);
        m.functionCounter("vibridge.staging.allocation.failures", "Staging chunks the JVM refused for want of direct "
                + "memory (each refused the connection asking, Connect Reject IS 14)", pool, StagingPool::allocationFailures);
        m.gauge("vibridge.direct.memory.max.bytes", "The JVM's direct memory limit (-XX:MaxDirectMemorySize, else the "
                + "heap limit); compare jvm_buffer_memory_used_bytes{id=\"direct\"}", directMemory, DirectMemory::limit);
    }

    private void counter(GatewayMetrics m, String name, String desc, ToDoubleFunction<DeviceCounters> f,
            String... tags) {
        m.functionCounter(name, desc, device, d -> f.applyAsDouble(d.counters()), tags);
    }

    private boolean anyBridge() {
        return !shared.connections().isEmpty();
    }

    private List<ConnectionInfo> connections() {
        List<ConnectionInfo> l = new ArrayList<>();
        for (BridgedConnection b : shared.connections()) {
            l.add(b.info());
        }
        l.sort((a, b) -> Long.compare(a.id(), b.id()));
        return l;
    }

    public int port() {
        return port;
    }

    /** The seed-004 listener's port (VITCP-PROFILE §8), or {@link GatewayConfig.Listen#OFF}. */
    public int rdmaTcpPort() {
        return rdmaTcpPort;
    }

    public int adminPort() {
        return adminPort;
    }

    /** The bound on connections in setup (tests, diagnostics). */
    public Admission admission() {
        return admission;
    }

    public BridgeContext bridgeContext() {
        return shared;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public VerbsDevice device() {
        return device;
    }

    public boolean isReady() {
        return ready && !closed;
    }

    /** Graceful shutdown: not ready, stop accepting, drain within {@code shutdown-grace}, then force-close. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        if (summaryTimer >= 0) {
            vertx.cancelTimer(summaryTimer);
        }
        // new connections are closed at once from here on (closed = true); the listener itself is closed
        // after the drain, because closing a Vert.x NetServer closes its open connections too
        Duration grace = config.shutdownGrace();
        int open = shared.connections().size();
        if (open > 0) {
            log.info("gateway shutting down: draining {} connections (grace {})", open, grace);
        }
        shared.connections().forEach(BridgedConnection::shutdownAsync);
        if (!bridgesGone(grace.plusSeconds(2))) {
            log.warn("{} connections still hold resources at shutdown", shared.connections().size());
        }
        List<NetServer> listeners;
        synchronized (servers) {
            listeners = List.copyOf(servers);
        }
        for (NetServer s : listeners) {
            try {
                await(s.close());
            } catch (RuntimeException e) {
                log.debug("listener close: {}", e.toString());
            }
        }
        if (admin != null) {
            try {
                await(admin.stop());
            } catch (RuntimeException e) {
                log.debug("admin close: {}", e.toString());
            }
        }
        if (ownsVertx) {
            try {
                await(vertx.close());
            } catch (RuntimeException e) {
                log.debug("vertx close: {}", e.toString());
            }
        }
        releaseVerbs();
        processMeters.close();
        log.info("gateway stopped");
    }

    /** The device's events: to the bridges (BridgeContext), and a failed or removed device ends this gateway's service. */
    private void onAsyncEvent(AsyncEvent event) {
        shared.onAsyncEvent(event);
        if (event instanceof AsyncEvent.DeviceFatal fatal) {
            deviceLost(fatal.reason());
        }
    }

    /**
     * The device failed or is being removed; BridgeContext has failed its bridges. The gateway stops being ready
     * (new connections are closed at accept, /ready answers 503) and, once the bridges have let go (bounded as at
     * shutdown), closes the device: a removal waits for that on drivers without disassociate_ucontext, rxe and siw
     * among them (Linux uverbs_main.c ib_uverbs_remove_one). The process keeps running, for the operator to see why.
     */
    private void deviceLost(String reason) {
        if (lostDevice != null || closed) {
            return;
        }
        lostDevice = reason;
        ready = false;
        log.error("InfiniBand device {} lost ({}): its connections fail, new ones are refused and /ready answers 503 "
                + "until the gateway is restarted with a working device", device.name(), reason);
        Thread.ofPlatform().daemon().name("vibridge-device-release").start(() -> {
            bridgesGone(config.shutdownGrace());
            releaseVerbs();
            log.info("InfiniBand device {} closed after its loss", device.name());
        });
    }

    /** Why the device was given up (a failure or removal), or null while it serves. */
    public String lostDevice() {
        return lostDevice;
    }

    /** Staging memory, protection domain, device: once, at close or after the device's loss. */
    private void releaseVerbs() {
        synchronized (this) {
            if (verbsReleased) {
                return;
            }
            verbsReleased = true;
        }
        try {
            pool.close();
            pd.close();
        } catch (RuntimeException e) {
            log.debug("verbs close: {}", e.toString());
        }
        device.close();
    }

    /**
     * Waits up to {@code wait} for the bridges to end by themselves, then force-closes the rest and waits 2 s more;
     * true when none is left.
     */
    private boolean bridgesGone(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (anyBridge() && System.nanoTime() < deadline) {
            sleep(20);
        }
        shared.connections().forEach(BridgedConnection::forceCloseAsync);
        long hard = System.nanoTime() + 2_000_000_000L;
        while (anyBridge() && System.nanoTime() < hard) {
            sleep(20);
        }
        return !anyBridge();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

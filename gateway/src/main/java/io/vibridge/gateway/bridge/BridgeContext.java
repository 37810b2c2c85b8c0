package io.vibridge.gateway.bridge;

import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Limit;
import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What all bridges of one gateway share: the configuration, the verbs device and its protection
 * domain, the staging pool, metrics and the thread-safe budget counters
 * (connections in total and per client address). Bridges register here for the admin listing.
 */
public final class BridgeContext {
    private static final Logger LOG = LoggerFactory.getLogger(BridgeContext.class);
    final GatewayConfig config;
    final VerbsDevice device;
    final ProtectionDomain pd;
    final StagingPool pool;
    final GatewayMetrics metrics;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger bridged = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perClient = new ConcurrentHashMap<>();
    final Set<BridgedConnection> connections = ConcurrentHashMap.newKeySet();
    /** Every bridge's target queue pair by number, for the device's async events. */
    private final ConcurrentHashMap<Integer, TargetSide> queuePairs = new ConcurrentHashMap<>();
    /**
     * Source ports for the CMA headers of rdma-cm routes (CM-MAPPING §5), handed out in turn over Linux's
     * default ephemeral range (net.ipv4.ip_local_port_range 32768-60999) from a random start, as rdma_cm binds
     * an active id to an ephemeral port of its port space.
     */
    private final AtomicInteger cmaPorts = new AtomicInteger(ThreadLocalRandom.current().nextInt(CMA_PORTS));
    private static final int CMA_FIRST_PORT = 32768;
    private static final int CMA_PORTS = 60999 - CMA_FIRST_PORT + 1;

    public BridgeContext(GatewayConfig config, VerbsDevice device, ProtectionDomain pd, StagingPool pool,
            GatewayMetrics metrics) {
        this.config = config;
        this.device = device;
        this.pd = pd;
        this.pool = pool;
        this.metrics = metrics;
    }

    public GatewayConfig config() {
        return config;
    }

    public StagingPool pool() {
        return pool;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** Connections currently alive, of every front end (admin listing, shutdown). */
    public Set<BridgedConnection> connections() {
        return connections;
    }

    void registerQueuePair(int qpNum, TargetSide target) {
        queuePairs.put(qpNum, target);
    }

    void unregisterQueuePair(int qpNum, TargetSide target) {
        queuePairs.remove(qpNum, target);
    }

    /**
     * A device's async event (any thread): the bridge whose queue pair it names, or every bridge when the device
     * failed, fails with the reason; port and address changes are logged, as the transport's retries decide whether
     * connections survive them. Counted by kind.
     */
    public void onAsyncEvent(AsyncEvent event) {
        metrics.asyncEvent(event);
        switch (event) {
            case AsyncEvent.QueuePairError e -> {
                TargetSide t = queuePairs.get(e.qpNum());
                if (t == null) {
                    LOG.debug("async event for QP {} of no bridge: {}", e.qpNum(), e.cause());
                    return;
                }
                if (e.cause() == AsyncEvent.QpErrorCause.ACCESS_VIOLATION && !t.cutThrough()) {
                    t.targetRdmaRefused("the target RDMA-accessed the client's memory (cut-through), which the gateway does "
                            + "not carry on verbs provider " + device.providerName()
                            + (config.infiniband().cutThrough() ? "" : " (infiniband.cut-through = off)")
                            + ": the target's operation failed with a remote access error");
                } else {
                    t.asyncError("InfiniBand queue pair error: " + e.cause());
                }
            }
            case AsyncEvent.DeviceFatal d -> {
                LOG.debug("InfiniBand device {} failed: {}; failing every bridged connection", device.name(), d.reason());
                queuePairs.values().forEach(t -> t.asyncError("InfiniBand device failed: " + d.reason()));
            }
            case AsyncEvent.PortStateChange p -> {
                if (p.active()) {
                    LOG.info("InfiniBand device {} port {} is active again", device.name(), p.port());
                } else {
                    LOG.warn("InfiniBand device {} port {} is down: connections fail once their retries run out",
                            device.name(), p.port());
                }
            }
            case AsyncEvent.AddressChange a -> LOG.warn("InfiniBand device {} port {}: its addresses changed",
                    device.name(), a.port());
        }
    }

    long nextId() {
        return ids.incrementAndGet();
    }

    /** The next source port for an rdma-cm route's CMA header. */
    int nextCmaPort() {
        return CMA_FIRST_PORT + Math.floorMod(cmaPorts.getAndIncrement(), CMA_PORTS);
    }

    /**
     * Takes a connection budget for {@code client}: null when admitted, else the limit that refuses it (the caller
     * answers IS 14, or an MPA Reject naming it). The gateway-wide limit is checked first, so a refusal names the
     * per-client limit only when the gateway still had room.
     */
    Limit admit(InetAddress client) {
        if (bridged.incrementAndGet() > config.limits().maxConnections()) {
            bridged.decrementAndGet();
            return Limit.GATEWAY;
        }
        AtomicInteger n = perClient.computeIfAbsent(client, k -> new AtomicInteger());
        if (n.incrementAndGet() > config.limits().maxConnectionsPerClient()) {
            n.decrementAndGet();
            bridged.decrementAndGet();
            return Limit.CLIENT;
        }
        return null;
    }

    /**
     * What a target's CM REJ says to the log (and an iWARP client): reason 28 (consumer) is the target's own
     * refusal, most often its connection or memory budget, not a limit of the gateway (IB-WIRE-REFERENCE §5.5, REJ reason codes).
     */
    static String targetRejected(int reason) {
        return "target REJ reason " + reason + (reason == CmEvent.REJ_CONSUMER
                ? " (the target refused: its own budget or policy, not a gateway limit)" : "");
    }

    /** What a refusal by {@code limit} says: the limit, its value and its key. */
    String describe(Limit limit, InetAddress client) {
        return switch (limit) {
            case GATEWAY -> limit.describe(config.limits().maxConnections());
            case CLIENT -> limit.describe(config.limits().maxConnectionsPerClient()) + " reached by "
                    + client.getHostAddress();
            case STAGING -> limit.describe(0);
        };
    }

    void release(InetAddress client) {
        bridged.decrementAndGet();
        AtomicInteger n = perClient.get(client);
        if (n != null && n.decrementAndGet() <= 0) {
            perClient.remove(client, n);
        }
    }

    /** Bridged connections counted against the limits. */
    public int bridgedConnections() {
        return bridged.get();
    }
}

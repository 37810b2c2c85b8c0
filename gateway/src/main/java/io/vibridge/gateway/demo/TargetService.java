package io.vibridge.gateway.demo;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.route.HelloCarriage;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo InfiniBand-side service: listens on the Service IDs of port P, accepts each CM REQ whose
 * Hello (or CMA header) is valid, and serves the connection in echo, sink or source mode with the
 * FlowC the Hello asks for, plus the {@link Control} protocol over one registered region.
 *
 * <p>Threads: one service loop owns every connection's state (no locks on it); CM events and
 * completion notifications are handed to it from the provider's threads. Each connection has its own
 * small completion queue sized for its work requests, so one busy connection cannot overrun another's.
 */
public final class TargetService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TargetService.class);

    final TargetConfig config;
    final VerbsDevice device;
    final ProtectionDomain pd;
    final MemoryRegion region;
    private final List<ConnectionManager.CmListener> listeners = new ArrayList<>();
    private final Map<Long, ServiceIdScheme> schemeBySid = new HashMap<>();
    private final Map<Object, TargetConnection> byId = new IdentityHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ReadyRing ready;
    private final Map<Integer, ArrayDeque<MemoryRegion>> slabPool = new HashMap<>();
    private final Thread loop;
    private final Executor loopExecutor;
    private final AtomicLong nextConnId = new AtomicLong(1);
    private volatile boolean running = true;
    /** Set by the loop just before it parks: producers unpark it only then (a busy loop needs no signal). */
    private volatile boolean parked;
    private long memoryInUse;
    private volatile int active;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();

    private TargetService(TargetConfig config) {
        this.config = config;
        DeviceConfig dc = new DeviceConfig(config.address(), config.udpPort(), config.provider(), Map.of());
        this.device = Verbs.open(dc);
        try {
            this.pd = device.allocateProtectionDomain();
            this.region = pd.registerMemory(ByteBuffer.allocateDirect(config.regionSize()),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
            this.ready = new ReadyRing(config.maxConnections() * 2 + 16);
            this.loop = Thread.ofPlatform().daemon().name("target-loop-" + config.address().getHostAddress())
                    .unstarted(this::run);
            this.loopExecutor = r -> {
                tasks.add(r);
                wake();
            };
            loop.start();
            for (ServiceIdScheme s : config.schemes()) {
                long sid = ServiceId.valueOf(s, config.port());
                schemeBySid.put(sid, s);
                listeners.add(device.connectionManager().listen(sid, this::onCmEvent, loopExecutor));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Opens the device, registers the region and starts listening. */
    public static TargetService start(TargetConfig config) {
        TargetService s = new TargetService(config);
        LOG.info("target on {} ({} provider, device {}): port {} service ids {}, mode {}, {} receives of {} B; "
                        + "region address 0x{} rkey 0x{} length {}",
                config.address().getHostAddress(), s.device.providerName(), s.device.name(), config.port(),
                s.serviceIdsText(), config.mode().cliName(), config.receiveBuffers(), config.receiveSize(),
                Long.toHexString(s.region.address()), Integer.toHexString(s.region.rkey()), s.region.length());
        return s;
    }

    public TargetConfig config() {
        return config;
    }

    public String providerName() {
        return device.providerName();
    }

    /** The region exposed for remote RDMA read and write. */
    public MemoryRegion region() {
        return region;
    }

    /** Service IDs listened on, as text ({@code iwarp:5000=0x21388, ...}). */
    public String serviceIdsText() {
        StringBuilder b = new StringBuilder();
        for (var e : schemeBySid.entrySet()) {
            if (!b.isEmpty()) {
                b.append(", ");
            }
            b.append(e.getValue().configName()).append(':').append(config.port()).append("=0x")
                    .append(Long.toHexString(e.getKey()));
        }
        return b.toString();
    }

    public int activeConnections() {
        return active;
    }

    public long acceptedConnections() {
        return accepted.get();
    }

    public long rejectedConnections() {
        return rejected.get();
    }

    public long closedConnections() {
        return closed.get();
    }

    // ------------------------------------------------------------------ service loop

    private void run() {
        while (running) {
            Runnable t;
            boolean worked = false;
            while ((t = tasks.poll()) != null) {
                worked = true;
                try {
                    t.run();
                } catch (RuntimeException e) {
                    LOG.error("target task failed", e);
                }
            }
            TargetConnection c;
            while ((c = ready.poll()) != null) {
                worked = true;
                try {
                    c.drain();
                } catch (RuntimeException e) {
                    LOG.error("conn {} failed", c.connId, e);
                    c.fail("internal error: " + e);
                }
                if (!tasks.isEmpty()) {
                    break;
                }
            }
            if (worked) {
                maybeSummary();
            }
            if (!worked && tasks.isEmpty() && ready.isEmpty()) {
                parked = true;
                // look again after announcing it: a producer either sees the flag or its entry is seen here
                if (running && tasks.isEmpty() && ready.isEmpty()) {
                    LockSupport.park(this);
                }
                parked = false;
            }
        }
    }

    private static final long SUMMARY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private long summaryAt = System.nanoTime();
    private long summaryAccepted;
    private long summaryClosed;

    /** One INFO line per 10 s with connection activity (loop thread; the stop line gives the totals). */
    private void maybeSummary() {
        long now = System.nanoTime();
        if (now - summaryAt < SUMMARY_NANOS) {
            return;
        }
        summaryAt = now;
        long a = accepted.get();
        long c = closed.get();
        if (a != summaryAccepted || c != summaryClosed) {
            LOG.info("connections: {} accepted, {} closed in the last {} s; {} open", a - summaryAccepted,
                    c - summaryClosed, TimeUnit.NANOSECONDS.toSeconds(SUMMARY_NANOS), active);
            summaryAccepted = a;
            summaryClosed = c;
        }
    }

    /** Called on provider threads when a connection's completion queue has entries. */
    void ready(TargetConnection c) {
        if (ready.offer(c)) {
            wake();
        }
    }

    /** After queueing work: unparks the loop if it parked (or is about to). */
    private void wake() {
        if (parked) {
            LockSupport.unpark(loop);
        }
    }

    // ------------------------------------------------------------------ CM events (service loop)

    private void onCmEvent(CmEvent event) {
        switch (event) {
            case CmEvent.ConnectRequest r -> onRequest(r);
            case CmEvent.Established e -> {
                TargetConnection c = byId.get(e.id());
                if (c != null) {
                    c.established();
                }
            }
            case CmEvent.Disconnected d -> {
                TargetConnection c = byId.get(d.id());
                if (c != null) {
                    c.disconnected("disconnected");
                }
            }
            case CmEvent.ConnectTimeout t -> {
                TargetConnection c = byId.get(t.id());
                if (c != null) {
                    c.disconnected("RTU timeout");
                }
            }
            case CmEvent.Rejected r -> {
                TargetConnection c = byId.get(r.id());
                if (c != null) {
                    c.disconnected("rejected by peer, reason " + r.reason());
                }
            }
            case CmEvent.TimewaitExit x -> LOG.debug("timewait over for cm id {}", x.id().localCommId());
        }
    }

    private void onRequest(CmEvent.ConnectRequest r) {
        long connId = nextConnId.getAndIncrement();
        ServiceIdScheme scheme = schemeBySid.get(r.serviceId());
        FlowControl flowC;
        int peerBufs;
        long peerRcvSize;
        int size = config.receiveSize();
        CmaHeader cma = null;
        Hello h = null;
        // rdma_cm (a CM that writes the CMA header) hands over only what follows it (CM-MAPPING §2.1)
        boolean headerTaken = device.connectionManager().writesCmaHeader();
        try {
            if (scheme == ServiceIdScheme.RDMA_CM && !HelloCarriage.carriesHello(r.privateData(), headerTaken)) {
                // CM-MAPPING §5: CMA header, FlowC 1 semantics
                cma = headerTaken ? null : CmaHeader.fromBytes(r.privateData());
                flowC = FlowControl.APPLICATION;
                peerBufs = 0;
                peerRcvSize = 0;
            } else {
                h = HelloCarriage.decodeRequest(r.privateData(), headerTaken ? device.address() : null);
                flowC = h.flowControl();
                peerBufs = h.bufs();
                peerRcvSize = h.localReceiveSize();
                // honour a larger DesRemRcvSz up to the cap
                size = (int) Math.max(size, Math.min(h.desiredRemoteReceiveSize(), config.maxReceiveSize()));
            }
        } catch (CmFormatException e) {
            reject(r, connId, scheme, "bad private data: " + e.getMessage());
            return;
        }
        if (flowC == FlowControl.TRANSPORT && peerBufs < 1) {
            reject(r, connId, scheme, "FlowC 0 Hello with bufs 0");
            return;
        }
        if (active >= config.maxConnections()) {
            reject(r, connId, scheme, "connection limit " + config.maxConnections() + " reached");
            return;
        }
        // When the receive-memory budget runs short, later connections get fewer receives (never below
        // 3, FlowC 0's minimum for quiet credit updates) rather than being refused outright.
        long room = (config.memoryBudget() - memoryInUse - TargetConnection.EXTRA) / size;
        int bufs = (int) Math.min(config.receiveBuffers(), Math.max(0, room));
        if (bufs < Math.min(3, config.receiveBuffers())) {
            reject(r, connId, scheme, "receive memory budget " + config.memoryBudget() + " B exhausted");
            return;
        }
        long memory = (long) bufs * size + TargetConnection.EXTRA;
        TargetConnection c = new TargetConnection(this, connId, r.id(), flowC, peerBufs, peerRcvSize, bufs, size);
        try {
            c.open();
            byId.put(r.id(), c);
            memoryInUse += memory;
            active++;
            c.accept();
        } catch (RuntimeException | OutOfMemoryError e) {
            // OutOfMemoryError: no direct memory for the slab (-XX:MaxDirectMemorySize)
            if (byId.remove(r.id()) != null) {
                memoryInUse -= memory;
                active--;
            }
            c.release();
            reject(r, connId, scheme, "setup failed: " + e);
            return;
        }
        accepted.incrementAndGet();
        // per-connection lines are DEBUG (thousands of connects per second; their text is built only when
        // enabled); run() logs a periodic summary
        if (LOG.isDebugEnabled()) {
            String who = h == null ? (cma == null ? "(rdma_cm)" : cma.sourceAddress().getHostAddress() + ":"
                    + cma.sourcePort() + " (CMA header)") : h.sourceAddress().getHostAddress() + ":" + h.sourcePort() + " (Hello bufs " + h.bufs()
                            + ", FlowC " + flowC.wireValue() + ", DesRemRcvSz " + h.desiredRemoteReceiveSize()
                            + ", LocalRcvSz " + h.localReceiveSize() + ")";
            LOG.debug("conn {} accepted on {} from {} client {}: {} receives of {} B, FlowC {}, mode {}", connId,
                    sidName(scheme), r.source().getHostAddress(), who, bufs, size, flowC.wireValue(),
                    config.mode().cliName());
        }
    }

    /** The Service ID scheme and port as the log lines name them ("iwarp:5000"). */
    private String sidName(ServiceIdScheme scheme) {
        return (scheme == null ? "?" : scheme.configName()) + ":" + config.port();
    }

    private void reject(CmEvent.ConnectRequest r, long connId, ServiceIdScheme scheme, String why) {
        rejected.incrementAndGet();
        LOG.info("conn {} rejected on {} from {}: {} (REJ 28)", connId, sidName(scheme), r.source().getHostAddress(),
                why);
        try {
            r.id().reject(null);
        } catch (RuntimeException e) {
            LOG.warn("conn {} REJ failed: {}", connId, e.toString());
        }
    }

    /** Service loop: the connection is gone; give back its memory. */
    void released(TargetConnection c, long memory) {
        if (byId.remove(c.id) != null) {
            memoryInUse -= memory;
            active--;
            closed.incrementAndGet();
        }
    }

    MemoryRegion takeSlab(int bytes) {
        ArrayDeque<MemoryRegion> q = slabPool.get(bytes);
        MemoryRegion mr = q == null ? null : q.pollFirst();
        if (mr != null) {
            return mr;
        }
        return pd.registerMemory(ByteBuffer.allocateDirect(bytes), EnumSet.of(Access.LOCAL_WRITE));
    }

    /** Keeps a few idle slabs per size so connection bursts do not allocate and register each time. */
    void returnSlab(MemoryRegion mr) {
        ArrayDeque<MemoryRegion> q = slabPool.computeIfAbsent(mr.length(), k -> new ArrayDeque<>());
        if (q.size() < 64) {
            q.addFirst(mr);
        } else {
            mr.close();
        }
    }

    /** Runs {@code task} on the service loop and waits for it. */
    void onLoop(Runnable task) {
        CountDownLatch done = new CountDownLatch(1);
        loopExecutor.execute(() -> {
            try {
                task.run();
            } finally {
                done.countDown();
            }
        });
        try {
            done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ stop

    /** Disconnects every connection (DREQ), waits briefly for them to go, then closes the device. */
    @Override
    public void close() {
        if (loop != null && loop.isAlive()) {
            for (var l : listeners) {
                try {
                    l.close();
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            }
            onLoop(() -> {
                for (TargetConnection c : List.copyOf(byId.values())) {
                    c.fail("target stopping");
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (active > 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000);
            }
            onLoop(() -> {
                for (TargetConnection c : List.copyOf(byId.values())) {
                    c.disconnected("target stopped");
                }
                for (var q : slabPool.values()) {
                    q.forEach(MemoryRegion::close);
                }
                slabPool.clear();
            });
            running = false;
            LockSupport.unpark(loop);
            try {
                loop.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (region != null) {
            region.close();
        }
        if (pd != null) {
            pd.close();
        }
        device.close();
        LOG.info("target on {} stopped: {} accepted, {} rejected", config.address().getHostAddress(), accepted.get(),
                rejected.get());
    }

    /** Service IDs as a set, for tests. */
    public Set<Long> serviceIds() {
        return Set.copyOf(schemeBySid.keySet());
    }
}

package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An opened rdma-core device (one port, one GID). One platform thread per device ("rdmacore-events-NAME") waits in
 * poll(2) on the completion channel's and the context's async fds, reads CQ events ({@code ibv_get_cq_event},
 * acked at once) and async events ({@code ibv_get_async_event}, logged, counted and acked), and runs notification
 * handlers that have no executor; no virtual thread ever blocks in libibverbs.
 */
public final class RdmaCoreDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreDevice.class);
    private static final int POLLIN = 1;
    private static final int POLL_MS = 100;
    /** enum ibv_device_cap_flags (verbs.h). */
    private static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    /** enum ibv_event_type names, by value (verbs.h). */
    private static final String[] EVENT_NAMES = {"CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST",
        "SQ_DRAINED", "PATH_MIG", "PATH_MIG_ERR", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "LID_CHANGE",
        "PKEY_CHANGE", "SM_CHANGE", "SRQ_ERR", "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER",
        "GID_CHANGE", "WQ_FATAL"};

    private final DeviceConfig config;
    final DeviceFinder.Opened opened;
    final MemorySegment context;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment modifyCq;
    final MemorySegment channel;
    private final int channelFd;
    private final int asyncFd;
    private final Set<Capability> capabilities;
    private final String memlock;
    private final String fork;
    private final String libraryVersion;
    private final Thread events;
    private volatile boolean closed;
    private volatile String fatal;
    private RdmaCoreConnectionManager cm;
    private final AtomicLong asyncEvents = new AtomicLong();
    /** CQs by the index we give them as cq_context: the event thread finds one without boxing. */
    private volatile RdmaCoreCompletionQueue[] cqs = new RdmaCoreCompletionQueue[0];
    private final Map<Long, RdmaCoreQueuePair> qps = new ConcurrentHashMap<>();
    private final Set<AutoCloseable> owned = Collections.newSetFromMap(new ConcurrentHashMap<>());

    RdmaCoreDevice(DeviceConfig config) {
        this.config = config;
        this.opened = DeviceFinder.open(config);
        this.context = opened.context();
        boolean ok = false;
        try {
            pollCq = context.get(ADDRESS, IbvLayouts.CTX_POLL_CQ);
            reqNotifyCq = context.get(ADDRESS, IbvLayouts.CTX_REQ_NOTIFY_CQ);
            postSend = context.get(ADDRESS, IbvLayouts.CTX_POST_SEND);
            postRecv = context.get(ADDRESS, IbvLayouts.CTX_POST_RECV);
            modifyCq = RdmaCoreCheck.modifyCq(context);
            asyncFd = context.get(JAVA_INT, IbvLayouts.CTX_ASYNC_FD);
            channel = createChannel(context, opened.name());
            RdmaCoreCheck.pointsTo("ibv_comp_channel.context", channel, 0, context);
            channelFd = channel.get(JAVA_INT, IbvLayouts.off(IbvLayouts.COMP_CHANNEL, "fd"));
            if (RdmaCoreCheck.fdTarget(channelFd).isEmpty()) {
                throw RdmaCoreCheck.mismatch("ibv_comp_channel.fd reads " + channelFd);
            }
            EnumSet<Capability> caps = EnumSet.noneOf(Capability.class);
            if (opened.transport() == DeviceFinder.TRANSPORT_IB) {
                caps.add(Capability.OUT_OF_BAND_CONNECT);    // iWARP QPs connect only through the iWARP CM
                // rdma_cm hands both sides the private data whole, within its capacity (56 REQ bytes behind the CMA
                // header, 196 REP): RdmaCoreConnectionManager copies it from every event before the ack
                caps.add(Capability.CM_PRIVATE_DATA);
            }
            if (moderates(context, modifyCq)) {
                caps.add(Capability.CQ_MODERATION);
            }
            if ((opened.deviceCapFlags() & IBV_DEVICE_MEM_MGT_EXTENSIONS) != 0) {
                // Linux ib_verbs.h: the "base memory management extension", "fast registrations (IB_WR_REG_MR,
                // IB_WR_LOCAL_INV and IB_WR_SEND_WITH_INV verbs)"
                caps.add(Capability.SEND_WITH_INVALIDATE);
            }
            capabilities = Collections.unmodifiableSet(caps);
            memlock = Limits.memlockLine();
            fork = Limits.forkStatus();
            libraryVersion = RdmaCoreCheck.libraryVersion().orElse(Ibv.LIBRARY);
            LOG.info("rdma-core device {} port {} gid[{}] {} ({}) for {}: {}, link {}, active MTU {}, {}; {}; {}",
                    opened.name(), opened.port(), opened.gidIndex(), gidString(opened.gid()),
                    opened.gidType().isEmpty() ? "type n/a" : opened.gidType(), config.address().getHostAddress(),
                    opened.transport() == DeviceFinder.TRANSPORT_IWARP ? "iWARP" : "IB transport",
                    opened.linkLayer() == DeviceFinder.LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
                    maxPathMtu(), libraryVersion, memlock, fork);
            if (Limits.memlockBytes() != Limits.UNLIMITED && Limits.memlockBytes() < Limits.MEMLOCK_WARN) {
                LOG.warn("{}", memlock);
            }
            events = new Thread(this::eventLoop, "rdmacore-events-" + opened.name());
            events.setDaemon(true);
            events.start();
            ok = true;
        } finally {
            if (!ok) {
                DeviceFinder.close(context);
            }
        }
    }

    private static MemorySegment createChannel(MemorySegment context, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment ch = (MemorySegment) Ibv.CREATE_COMP_CHANNEL.invokeExact(errno, context);
            if (ch.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_comp_channel(" + name + "): " + Ibv.strerror(Ibv.errno(errno)));
            }
            return ch.reinterpret(IbvLayouts.COMP_CHANNEL.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    /**
     * Whether {@code ibv_modify_cq} works here: libibverbs fills the ops a driver lacks with stubs that return
     * EOPNOTSUPP (rdma-core dummy_ops.c), so a non-NULL verbs_context.modify_cq proves nothing; ask it on a
     * one-entry CQ with the default moderation (1 completion, 0 us).
     */
    private static boolean moderates(MemorySegment context, MemorySegment modifyCq) {
        if (modifyCq.equals(MemorySegment.NULL)) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment cq = (MemorySegment) Ibv.CREATE_CQ.invokeExact(errno, context, 1, MemorySegment.NULL,
                    MemorySegment.NULL, 0);
            if (cq.equals(MemorySegment.NULL)) {
                return false;
            }
            MemorySegment attr = a.allocate(IbvLayouts.MODIFY_CQ_ATTR);
            attr.set(JAVA_INT, 0, 1);                          // IBV_CQ_ATTR_MODERATE
            attr.set(JAVA_SHORT, 4, (short) 1);
            int rc = (int) Ibv.FP_MODIFY_CQ.invokeExact(modifyCq, cq, attr);
            int ignored = (int) Ibv.DESTROY_CQ.invokeExact(cq);
            return rc == 0;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    static String gidString(byte[] g) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < g.length; i += 2) {
            if (i > 0) {
                b.append(':');
            }
            b.append(String.format("%02x%02x", g[i], g[i + 1]));
        }
        return b.toString();
    }

    int port() {
        return opened.port();
    }

    int gidIndex() {
        return opened.gidIndex();
    }

    boolean iwarp() {
        return opened.transport() == DeviceFinder.TRANSPORT_IWARP;
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException("rdma-core device " + opened.name() + " is closed");
        }
        if (fatal != null) {
            throw new VerbsException("rdma-core device " + opened.name() + " failed: " + fatal);
        }
    }

    // ---- the event thread ------------------------------------------------------------------------------

    private void eventLoop() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(16, 4);              // struct pollfd[2] {int fd; short events, revents}
            fds.set(JAVA_INT, 0, channelFd);
            fds.set(JAVA_SHORT, 4, (short) POLLIN);
            fds.set(JAVA_INT, 8, asyncFd);
            fds.set(JAVA_SHORT, 12, (short) POLLIN);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment cqOut = a.allocate(ADDRESS);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            MemorySegment event = a.allocate(IbvLayouts.ASYNC_EVENT);
            while (!closed) {
                fds.set(JAVA_SHORT, 6, (short) 0);
                fds.set(JAVA_SHORT, 14, (short) 0);
                int n = (int) Ibv.POLL.invokeExact(errno, fds, 2L, POLL_MS);
                if (n < 0) {
                    if (Ibv.errno(errno) == 4) {   // EINTR
                        continue;
                    }
                    LOG.error("rdma-core {}: poll failed: {}; no more CQ or async events", opened.name(),
                            Ibv.strerror(Ibv.errno(errno)));
                    return;
                }
                if (n == 0 || closed) {
                    continue;
                }
                short compRev = fds.get(JAVA_SHORT, 6);
                short asyncRev = fds.get(JAVA_SHORT, 14);
                if ((compRev & POLLIN) != 0) {
                    cqEvent(cqOut, ctxOut);
                }
                if ((asyncRev & POLLIN) != 0) {
                    asyncEvent(event);
                }
                if (((compRev | asyncRev) & ~POLLIN) != 0) {      // POLLERR/POLLHUP/POLLNVAL: device gone
                    failed("its event descriptors report an error (device removed?)", "event descriptors report an "
                            + "error (revents 0x" + Integer.toHexString(compRev) + "/0x" + Integer.toHexString(asyncRev)
                            + "): device removed? no more CQ or async events");
                    return;
                }
            }
        } catch (Throwable t) {
            LOG.error("rdma-core {}: event thread failed", opened.name(), t);
        }
    }

    private void cqEvent(MemorySegment cqOut, MemorySegment ctxOut) throws Throwable {
        if ((int) Ibv.GET_CQ_EVENT.invokeExact(channel, cqOut, ctxOut) != 0) {
            return;
        }
        MemorySegment cq = cqOut.get(ADDRESS, 0);
        Ibv.ACK_CQ_EVENTS.invokeExact(cq, 1);
        long index = ctxOut.get(JAVA_LONG, 0);
        RdmaCoreCompletionQueue[] table = cqs;
        if (index >= 0 && index < table.length && table[(int) index] != null) {
            table[(int) index].notified();
        }
    }

    private void asyncEvent(MemorySegment event) throws Throwable {
        if ((int) Ibv.GET_ASYNC_EVENT.invokeExact(context, event) != 0) {
            return;
        }
        try {
            asyncEvents.incrementAndGet();
            handleAsync(event.get(JAVA_INT, 8), event.get(ADDRESS, 0), event.get(JAVA_INT, 0));
        } finally {
            Ibv.ACK_ASYNC_EVENT.invokeExact(event);
        }
    }

    private void handleAsync(int type, MemorySegment element, int portNum) {
        String name = type >= 0 && type < EVENT_NAMES.length ? EVENT_NAMES[type] : "event " + type;
        switch (type) {
            case 1, 2, 3, 4, 5, 16 -> {              // QP events
                RdmaCoreQueuePair qp = qps.get(element.address());
                if (qp != null) {
                    qp.asyncEvent(name);
                }
                if (type == 4) {                       // COMM_EST: expected on a passive side
                    LOG.debug("rdma-core {}: {} on QP {}", opened.name(), name, qp == null ? "?" : qp.qpNum());
                } else {
                    LOG.warn("rdma-core {}: async event {} on QP {}", opened.name(), name, qp == null ? "?" : qp.qpNum());
                }
                if (qp != null && type >= 1 && type <= 3) {
                    raise(new AsyncEvent.QueuePairError(qp.qpNum(), switch (type) {
                        case 1 -> AsyncEvent.QpErrorCause.FATAL;
                        case 2 -> AsyncEvent.QpErrorCause.INVALID_REQUEST;
                        default -> AsyncEvent.QpErrorCause.ACCESS_VIOLATION;
                    }));
                }
            }
            case 8 -> failed("IBV_EVENT_DEVICE_FATAL", "async event DEVICE_FATAL: the device is unusable");
            case 9, 10 -> {
                LOG.warn("rdma-core {}: async event {} on port {}", opened.name(), name, portNum);
                raise(new AsyncEvent.PortStateChange(portNum, type == 9));
            }
            case 18 -> {
                LOG.info("rdma-core {}: async event {} on port {}", opened.name(), name, portNum);
                raise(new AsyncEvent.AddressChange(portNum));
            }
            default -> LOG.info("rdma-core {}: async event {}", opened.name(), name);
        }
    }

    /**
     * The device failed or is being removed: raised once as {@link AsyncEvent.DeviceFatal}. A removal reaches
     * us through rdma_cm (RDMA_CM_EVENT_DEVICE_REMOVAL on every id): a driver without disassociate_ucontext,
     * rxe or siw, raises no async event and the kernel waits for every process to close the device (Linux
     * uverbs_main.c ib_uverbs_remove_one), so the user of this device must close it.
     */
    synchronized void failed(String cause, String line) {
        if (fatal != null) {
            return;
        }
        fatal = cause;
        LOG.error("rdma-core {}: {}", opened.name(), line);
        raise(new AsyncEvent.DeviceFatal(cause + " on " + opened.name()));
    }

    /** The handler of {@link #onAsyncEvent}, with its executor; null: nobody listens. */
    private record AsyncSink(Consumer<AsyncEvent> handler, Executor executor) {
    }

    private volatile AsyncSink asyncSink;

    @Override
    public void onAsyncEvent(Consumer<AsyncEvent> handler, Executor executor) {
        asyncSink = handler == null ? null : new AsyncSink(handler, executor);
    }

    private void raise(AsyncEvent event) {
        AsyncSink sink = asyncSink;
        if (sink != null) {
            sink.executor().execute(() -> sink.handler().accept(event));
        }
    }

    // ---- registries ------------------------------------------------------------------------------------

    synchronized long register(RdmaCoreCompletionQueue cq) {
        RdmaCoreCompletionQueue[] t = cqs;
        for (int i = 0; i < t.length; i++) {
            if (t[i] == null) {
                RdmaCoreCompletionQueue[] c = t.clone();
                c[i] = cq;
                cqs = c;
                owned.add(cq);
                return i;
            }
        }
        RdmaCoreCompletionQueue[] c = Arrays.copyOf(t, t.length + 8);
        c[t.length] = cq;
        cqs = c;
        owned.add(cq);
        return t.length;
    }

    synchronized void unregister(RdmaCoreCompletionQueue cq, long index) {
        RdmaCoreCompletionQueue[] c = cqs.clone();
        if (index < c.length && c[(int) index] == cq) {
            c[(int) index] = null;
        }
        cqs = c;
        owned.remove(cq);
    }

    void register(RdmaCoreQueuePair qp, MemorySegment pointer) {
        qps.put(pointer.address(), qp);
        owned.add(qp);
    }

    void unregister(RdmaCoreQueuePair qp, MemorySegment pointer) {
        qps.remove(pointer.address(), qp);
        owned.remove(qp);
    }

    void own(AutoCloseable c) {
        owned.add(c);
    }

    void disown(AutoCloseable c) {
        owned.remove(c);
    }

    // ---- VerbsDevice -----------------------------------------------------------------------------------

    @Override
    public String providerName() {
        return RdmaCoreProvider.NAME;
    }

    @Override
    public String name() {
        return opened.name();
    }

    @Override
    public InetAddress address() {
        return config.address();
    }

    @Override
    public byte[] gid() {
        return opened.gid().clone();
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen();
        return new RdmaCoreProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        checkOpen();
        return new RdmaCoreCompletionQueue(this, capacity);
    }

    /** The CM over librdmacm, created on first use (UnsupportedOperationException when librdmacm is absent). */
    @Override
    public synchronized ConnectionManager connectionManager() {
        checkOpen();
        if (cm == null) {
            cm = new RdmaCoreConnectionManager(this);
        }
        return cm;
    }

    @Override
    public int maxPathMtu() {
        int m = DeviceFinder.mtuBytes(opened.activeMtu());
        return m == 0 ? 1024 : m;
    }

    @Override
    public DeviceCounters counters() {
        Path hw = Path.of("/sys/class/infiniband", opened.name(), "ports", Integer.toString(opened.port()),
                "hw_counters");
        return new DeviceCounters(sys(hw, "sent_pkts"), 0, sys(hw, "rcvd_pkts"), 0,
                sys(hw, "completer_retry_err"), 0, 0, 0, 0, 0, sys(hw, "send_rnr_err"),
                sys(hw, "rcvd_seq_err"), 0, 0, 0, sys(hw, "rcvd_rnr_err"), 0, 0, 0, 0,
                sys(hw, "duplicate_request"), sys(hw, "out_of_seq_request"), 0, 0, 0, 0);
    }

    private static long sys(Path dir, String name) {
        try {
            return Long.parseLong(Files.readString(dir.resolve(name)).strip());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public Map<String, String> properties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("device", opened.name());
        m.put("port", Integer.toString(opened.port()));
        m.put("gid_index", Integer.toString(opened.gidIndex()));
        m.put("gid", gidString(opened.gid()));
        m.put("gid_type", opened.gidType().isEmpty() ? "n/a" : opened.gidType());
        m.put("transport", iwarp() ? "iWARP" : "IB");
        m.put("link_layer", opened.linkLayer() == DeviceFinder.LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
        m.put("firmware", opened.firmware());
        m.put("max_qp_wr", Integer.toString(opened.maxQpWr()));
        m.put("max_cqe", Integer.toString(opened.maxCqe()));
        m.put("max_qp_rd_atom", Integer.toString(opened.maxQpRdAtom()));
        m.put("library", libraryVersion);
        m.put("memlock", Limits.memlockBytes() == Limits.UNLIMITED ? "unlimited" : Long.toString(Limits.memlockBytes()));
        m.put("fork", fork);
        m.put("async_events", Long.toString(asyncEvents.get()));
        return m;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (this) {
            if (cm != null) {
                cm.shutdown();
            }
        }
        try {
            events.join(5L * POLL_MS + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (AutoCloseable c : owned.toArray(AutoCloseable[]::new)) {   // QPs before CQs and PDs
            if (c instanceof RdmaCoreQueuePair) {
                closeQuietly(c);
            }
        }
        for (AutoCloseable c : owned.toArray(AutoCloseable[]::new)) {
            if (c instanceof RdmaCoreCompletionQueue) {
                closeQuietly(c);
            }
        }
        for (AutoCloseable c : owned.toArray(AutoCloseable[]::new)) {
            closeQuietly(c);
        }
        try {
            drainAsyncEvents();
            int rc = (int) Ibv.DESTROY_COMP_CHANNEL.invokeExact(channel);
            if (rc != 0) {
                LOG.warn("rdma-core {}: ibv_destroy_comp_channel: {}", opened.name(), Ibv.strerror(rc));
            }
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        DeviceFinder.close(context);
        if (fatal != null && Rdmacm.REASON == null) {
            Rdmacm.releaseRemovedDevices();           // after every id is gone: librdmacm's own context too
        }
    }

    /** Reads and acks every async event still queued: ibv_close_device wants none outstanding. */
    private void drainAsyncEvents() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fd = a.allocate(8, 4);
            fd.set(JAVA_INT, 0, asyncFd);
            fd.set(JAVA_SHORT, 4, (short) POLLIN);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment event = a.allocate(IbvLayouts.ASYNC_EVENT);
            for (int i = 0; i < 1024; i++) {
                fd.set(JAVA_SHORT, 6, (short) 0);
                if ((int) Ibv.POLL.invokeExact(errno, fd, 1L, 0) != 1 || (fd.get(JAVA_SHORT, 6) & POLLIN) == 0) {
                    return;
                }
                asyncEvent(event);
            }
        }
    }

    private void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception | Error e) {
            LOG.warn("rdma-core {}: closing {} failed: {}", opened.name(), c, e.toString());
        }
    }
}

package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.engine.EngineOptions;
import io.vibridge.vitcp.engine.Negotiated;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A VI NIC of the VI/TCP provider (VipOpenNic): owns memory registrations, protection tags, completion
 * queues and VIs, and, when configured to listen, the single passive TCP port (VITCP-PROFILE §1) that
 * demultiplexes Connect Requests by called discriminator, and optionally a second one that speaks
 * seed-004 RDMA/TCP framing (VITCP-PROFILE §8) to the same listeners.
 */
public final class ViNic implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ViNic.class);

    /** VIA minimums (6.1.1, 3.4, 8.1) and this provider's limits. */
    public static final int MAX_SEGMENTS = 256;
    public static final int MAX_CQ_ENTRIES = 1 << 20;
    public static final int MAX_VI = 1 << 16;
    public static final long MAX_TRANSFER = 16L << 20;

    /** Bytes of a pooled connection buffer: the initial read buffer and the header block of a write batch. */
    static final int SMALL_BUFFER = 4096;
    private static final int IDLE_SMALL_BUFFERS = 256;

    private final NicConfig config;
    private final SecureRandom random = new SecureRandom();
    /**
     * Initial message numbers (VITCP-PROFILE §3: SHOULD be random): a fast generator seeded once from
     * SecureRandom (a SecureRandom call per connection reads /dev/urandom under a lock). Guarded by itself.
     */
    private final RandomGenerator imnRandom =
            RandomGeneratorFactory.of("L64X128MixRandom").create(random.nextLong());
    /** Idle direct buffers of {@link #SMALL_BUFFER} bytes: connections come and go without allocating them. */
    private final ArrayBlockingQueue<ByteBuffer> smallBuffers =
            new ArrayBlockingQueue<>(IDLE_SMALL_BUFFERS);
    private final ServerSocketChannel server;
    private final ServerSocketChannel rdmaTcpServer;
    private final ScheduledExecutorService timer;
    private final ConnectSecurity security;
    private final ConcurrentHashMap<Discriminator, ConnectListener> listeners = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Discriminator, PeerWait> peerWaits = new ConcurrentHashMap<>();
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Set<Vi> vis = ConcurrentHashMap.newKeySet();
    private final Set<CompletionQueue> cqs = ConcurrentHashMap.newKeySet();
    private final Object memoryLock = new Object();
    private volatile MemoryRegion[] regions = new MemoryRegion[16];
    private final int handleSalt;
    private int nextPtag = 1;
    private volatile Consumer<ErrorDescriptor> errorHandler;
    private volatile boolean closed;

    private ViNic(NicConfig config) throws IOException {
        this.config = config;
        this.handleSalt = random.nextInt() & 0xFFF0_0000;
        this.security = config.securityKey() == null ? null : new HmacConnectSecurity(config.securityKey());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("vitcp-timer-" + config.name()).unstarted(r));
        server = config.listen() == null ? null : listen(config.listen(), Encapsulation.VITCP);
        try {
            rdmaTcpServer = config.rdmaTcpListen() == null ? null : listen(config.rdmaTcpListen(), Encapsulation.RDMATCP);
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private ServerSocketChannel listen(InetSocketAddress address, Encapsulation encapsulation) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(address, 1024);
        } catch (IOException e) {
            s.close();
            throw new IOException("cannot listen for " + encapsulation.label() + " on " + address + ": " + e.getMessage(), e);
        }
        Thread.ofPlatform().daemon().name("vitcp-accept-" + encapsulation.label() + "-" + config.name())
                .start(() -> acceptLoop(s, encapsulation));
        return s;
    }

    /** VipOpenNic. */
    public static ViNic open(NicConfig config) throws IOException {
        return new ViNic(config);
    }

    public NicConfig config() {
        return config;
    }

    /** The passive provider's TCP address (the port to connect to), or null. */
    public InetSocketAddress localAddress() {
        return boundAddress(server);
    }

    /** The seed-004 listener's address (VITCP-PROFILE §8), or null. */
    public InetSocketAddress rdmaTcpAddress() {
        return boundAddress(rdmaTcpServer);
    }

    private static InetSocketAddress boundAddress(ServerSocketChannel s) {
        try {
            return s == null ? null : (InetSocketAddress) s.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /** A VI network address on this NIC's listener. */
    public ViNetAddress address(Discriminator discriminator) {
        return new ViNetAddress(localAddress(), discriminator);
    }

    /** A VI network address on the listener of {@code encapsulation}. */
    public ViNetAddress address(Discriminator discriminator, Encapsulation encapsulation) {
        InetSocketAddress a = encapsulation == Encapsulation.RDMATCP ? rdmaTcpAddress() : localAddress();
        if (a == null) {
            throw new ViException(ViException.Code.INVALID_STATE, "this NIC does not listen for " + encapsulation.label());
        }
        return new ViNetAddress(a, discriminator, encapsulation);
    }

    /** A seed-004 Connection ID: random from a secure generator (seed 004 §3.4, against blind attacks). */
    long newConnectionId() {
        return random.nextLong();
    }

    /** VipQueryNic: static attributes, each at least the VIA minimum. */
    public NicAttributes query() {
        InetSocketAddress a = localAddress();
        byte[] addr = a == null ? new byte[0] : a.getAddress().getAddress();
        return new NicAttributes(config.name(), 1, 1, addr, true, Discriminator.MAX_LENGTH, Long.MAX_VALUE,
                Integer.MAX_VALUE, Integer.MAX_VALUE, MAX_VI, Integer.MAX_VALUE, MAX_SEGMENTS, Integer.MAX_VALUE,
                MAX_CQ_ENTRIES, MAX_TRANSFER, 65535 - 40, Integer.MAX_VALUE);
    }

    int maxSegments() {
        return MAX_SEGMENTS;
    }

    ConnectSecurity security() {
        return security;
    }

    int randomInt() {
        synchronized (imnRandom) {
            return imnRandom.nextInt();
        }
    }

    /** A cleared direct buffer of {@link #SMALL_BUFFER} bytes, pooled or new. */
    ByteBuffer takeSmallBuffer() {
        ByteBuffer b = smallBuffers.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(SMALL_BUFFER);
    }

    /** Gives back a buffer of {@link #takeSmallBuffer()} nobody uses any more (others are left to the GC). */
    void returnSmallBuffer(ByteBuffer b) {
        if (b != null && b.isDirect() && b.capacity() == SMALL_BUFFER && !closed) {
            smallBuffers.offer(b);
        }
    }

    // ------------------------------------------------------------------ protection tags and memory

    /** VipCreatePtag. */
    public synchronized ProtectionTag createPtag() {
        return new ProtectionTag(this, nextPtag++);
    }

    /** VipDestroyPtag: fails while a VI or region still uses it. */
    public void destroyPtag(ProtectionTag tag) {
        for (Vi vi : vis) {
            if (vi.attributes().ptag() == tag) {
                throw new ViException(ViException.Code.INVALID_STATE, "a VI still uses " + tag);
            }
        }
        for (MemoryRegion r : regions) {
            if (r != null && r.attributes().ptag() == tag) {
                throw new ViException(ViException.Code.INVALID_STATE, "a memory region still uses " + tag);
            }
        }
        tag.destroyed = true;
    }

    /**
     * VipRegisterMem: registers a direct buffer (its whole capacity); the region's address is the
     * buffer's native address, its handle a 32-bit value unique on this NIC.
     */
    public MemoryRegion registerMemory(ByteBuffer buffer, MemoryAttributes attributes) {
        if (!buffer.isDirect()) {
            throw new ViException(ViException.Code.INVALID_PARAMETER, "only direct buffers can be registered");
        }
        checkPtag(attributes.ptag());
        synchronized (memoryLock) {
            MemoryRegion[] rs = regions;
            int slot = -1;
            for (int i = 0; i < rs.length; i++) {
                if (rs[i] == null) {
                    slot = i;
                    break;
                }
            }
            if (slot < 0) {
                slot = rs.length;
                rs = Arrays.copyOf(rs, rs.length * 2);
            }
            MemoryRegion r = new MemoryRegion(this, (slot + 1) ^ handleSalt, buffer, attributes);
            rs[slot] = r;
            regions = rs;
            return r;
        }
    }

    /** VipDeregisterMem. */
    public void deregisterMemory(MemoryRegion region) {
        synchronized (memoryLock) {
            int slot = (region.handle() ^ handleSalt) - 1;
            MemoryRegion[] rs = regions;
            if (slot < 0 || slot >= rs.length || rs[slot] != region) {
                throw new ViException(ViException.Code.INVALID_PARAMETER, "not registered: " + region);
            }
            region.registered = false;
            rs[slot] = null;
            regions = rs;
        }
    }

    /** The registered region with this handle, or null. */
    public MemoryRegion region(int handle) {
        int slot = (handle ^ handleSalt) - 1;
        MemoryRegion[] rs = regions;
        if (slot < 0 || slot >= rs.length) {
            return null;
        }
        MemoryRegion r = rs[slot];
        return r != null && r.handle() == handle ? r : null;
    }

    private void checkPtag(ProtectionTag tag) {
        if (tag.nic() != this || tag.isDestroyed()) {
            throw new ViException(ViException.Code.INVALID_PTAG, "protection tag not valid on this NIC: " + tag);
        }
    }

    // ------------------------------------------------------------------ completion queues and VIs

    /** VipCreateCQ. */
    public CompletionQueue createCq(int entries) {
        if (entries < 1 || entries > MAX_CQ_ENTRIES) {
            throw new ViException(ViException.Code.INVALID_PARAMETER, "entries " + entries);
        }
        CompletionQueue cq = new CompletionQueue(this, entries);
        cqs.add(cq);
        return cq;
    }

    void cqDestroyed(CompletionQueue cq) {
        cqs.remove(cq);
    }

    /** VipCreateVi: a VI in the Idle state; either completion queue may be null (work queue model). */
    public Vi createVi(ViAttributes attributes, CompletionQueue sendCq, CompletionQueue recvCq) {
        checkViAttributes(attributes);
        if (vis.size() >= MAX_VI) {
            throw new ViException(ViException.Code.ERROR_RESOURCE, "too many VIs");
        }
        Vi vi = new Vi(this, attributes, sendCq, recvCq);
        if (sendCq != null) {
            sendCq.attach(1);
        }
        if (recvCq != null) {
            recvCq.attach(1);
        }
        vis.add(vi);
        return vi;
    }

    void checkViAttributes(ViAttributes a) {
        checkPtag(a.ptag());
        if (a.maxTransferSize() < ConnectionHeader.MIN_MTU || a.maxTransferSize() > MAX_TRANSFER) {
            throw new ViException(ViException.Code.INVALID_MTU, "MTU " + a.maxTransferSize() + " outside 32 KiB.."
                    + MAX_TRANSFER);
        }
        if (a.enableRdmaRead() && a.reliabilityLevel() == ReliabilityLevel.UNRELIABLE_DELIVERY) {
            throw new ViException(ViException.Code.INVALID_RDMAREAD, "no RDMA Read at Unreliable Delivery (VIA 2.5.1)");
        }
    }

    void viDestroyed(Vi vi) {
        vis.remove(vi);
        if (vi.sendCq() != null) {
            vi.sendCq().attach(-1);
        }
        if (vi.recvCq() != null) {
            vi.recvCq().attach(-1);
        }
    }

    /** Number of VIs on this NIC. */
    public int viCount() {
        return vis.size();
    }

    // ------------------------------------------------------------------ errors

    /** VipErrorCallback: {@code handler} receives asynchronous errors (VIA 7), on a provider thread. */
    public void errorCallback(Consumer<ErrorDescriptor> handler) {
        errorHandler = handler;
    }

    void reportError(ErrorDescriptor e) {
        Consumer<ErrorDescriptor> h = errorHandler;
        if (h != null) {
            try {
                h.accept(e);
            } catch (RuntimeException ex) {
                log.warn("error callback failed", ex);
            }
        } else {
            log.debug("asynchronous error {}", e);
        }
    }

    // ------------------------------------------------------------------ passive side

    /** Starts answering Connect Requests for {@code discriminator} (see {@link ConnectListener}). */
    public ConnectListener listen(Discriminator discriminator) {
        if (server == null && rdmaTcpServer == null) {
            throw new ViException(ViException.Code.INVALID_STATE, "this NIC does not listen");
        }
        ConnectListener l = new ConnectListener(this, discriminator, 64);
        if (listeners.putIfAbsent(discriminator, l) != null) {
            throw new ViException(ViException.Code.INVALID_PARAMETER, "already listening on " + discriminator);
        }
        return l;
    }

    /** VipConnectWait for one request (listens only for the duration of the call). */
    public IncomingConnection connectWait(Discriminator discriminator, Duration timeout) throws InterruptedException {
        try (ConnectListener l = listen(discriminator)) {
            return l.connectWait(timeout);
        }
    }

    void unlisten(ConnectListener l) {
        listeners.remove(l.discriminator(), l);
    }

    private void acceptLoop(ServerSocketChannel server, Encapsulation encapsulation) {
        EngineOptions options = EngineOptions.of(security).withEncapsulation(encapsulation);
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("accept failed", e);
                }
                return;
            }
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Link l = new Link(this, ch);
                l.lock.lock();
                try {
                    l.engine = ViConnection.incoming(l, options, System.nanoTime());
                } finally {
                    l.lock.unlock();
                }
                linkOpened(l);
                l.start();
                // draft 4.3 Incoming: no Connect Request within 10 s closes TCP (VITCP-PROFILE §7)
                timer.schedule(() -> l.tick(System.nanoTime()), ViConnection.INCOMING_TIMEOUT_NANOS + 1_000_000,
                        TimeUnit.NANOSECONDS);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    log.warn("could not set up incoming connection", e);
                }
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing
                }
            }
        }
    }

    /** Under the link's lock: a valid Connect Request arrived; match its called discriminator. */
    void dispatchIncoming(Link l) {
        var req = l.engine.request().header();
        l.requestInfo = new ConnectRequestInfo(l.remoteAddress(), req.calling(), req.called(), req.attributes(),
                req.mtu(), req.rdmaReadWindow());
        if (req.attributes().peerToPeer()) {
            PeerWait pw = peerWaits.get(req.called());
            if (pw != null && pw.offerIncoming(l)) {
                return;
            }
        }
        ConnectListener listener = listeners.get(req.called());
        if (listener == null) {
            l.engine.noMatch(); // draft 4.3: No Matching Discriminator
            return;
        }
        l.listener = listener;
        if (!listener.offer(l)) {
            l.engine.reject(IsCode.RESOURCES_EXHAUSTED);
        }
    }

    // ------------------------------------------------------------------ peer-to-peer

    /**
     * VipConnectPeerRequest + VipConnectPeerWait: connects {@code vi} with the peer that issues the
     * matching peer request. Both sides send Connect Requests with the peer-to-peer bit; a collision
     * is settled by VITCP-PROFILE §7: the side whose (IP, discriminator, port) is higher stays active,
     * the lower answers as passive.
     */
    public Negotiated connectPeer(Vi vi, Discriminator local, ViNetAddress remote,
            Duration timeout) throws InterruptedException {
        PeerWait pw = new PeerWait(vi, local, remote);
        if (peerWaits.putIfAbsent(local, pw) != null) {
            throw new ViException(ViException.Code.INVALID_STATE, "a peer request already waits on " + local);
        }
        try {
            return pw.run(timeout);
        } finally {
            peerWaits.remove(local, pw);
        }
    }

    /**
     * VipConnectPeerRequest: starts {@link #connectPeer} on its own thread; the future's
     * {@code isDone()} is VipConnectPeerDone and {@code get()} VipConnectPeerWait.
     */
    public CompletableFuture<Negotiated> connectPeerRequest(Vi vi,
            Discriminator local, ViNetAddress remote, Duration timeout) {
        var f = new CompletableFuture<Negotiated>();
        Thread.ofVirtual().name("vitcp-peer-connect").start(() -> {
            try {
                f.complete(connectPeer(vi, local, remote, timeout));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** True when this side (local) is the higher one and so stays active (VITCP-PROFILE §7). */
    boolean isHigher(Discriminator local, ViNetAddress remote) {
        InetSocketAddress me = localAddress();
        int c = compareUnsigned(me.getAddress().getAddress(), remote.host().getAddress().getAddress());
        if (c == 0) {
            c = compareUnsigned(local.bytes(), remote.discriminator().bytes());
        }
        if (c == 0) {
            c = Integer.compare(me.getPort(), remote.host().getPort());
        }
        return c > 0;
    }

    private static int compareUnsigned(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** One pending peer-to-peer request. */
    final class PeerWait {
        final Vi vi;
        final Discriminator local;
        final ViNetAddress remote;
        private Link incoming;

        PeerWait(Vi vi, Discriminator local, ViNetAddress remote) {
            this.vi = vi;
            this.local = local;
            this.remote = remote;
        }

        /** Under the incoming link's lock: a peer-to-peer Connect Request for our discriminator. */
        boolean offerIncoming(Link l) {
            if (!l.requestInfo.remoteDiscriminator().equals(remote.discriminator())) {
                return false;
            }
            if (isHigher(local, remote)) {
                l.engine.noMatch(); // we stay active: our own request will be answered
                return true;
            }
            synchronized (this) {
                if (incoming != null) {
                    return false;
                }
                incoming = l;
                notifyAll();
            }
            return true;
        }

        Negotiated run(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            boolean higher = isHigher(local, remote);
            for (;;) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ViException(ViException.Code.TIMEOUT, "peer connection not established within " + timeout);
                }
                if (!higher) {
                    Link in = takeIncoming(0);
                    if (in != null) {
                        return acceptIncoming(in);
                    }
                }
                try {
                    return vi.connect(local, remote, Duration.ofNanos(Math.min(left, 2_000_000_000L)), true);
                } catch (ViException e) {
                    if (e.code() != ViException.Code.NO_MATCH && e.code() != ViException.Code.NOT_REACHABLE
                            && e.code() != ViException.Code.TIMEOUT && e.code() != ViException.Code.ERROR) {
                        throw e;
                    }
                }
                // draft 4: No Match during peer establishment: retry until the timeout; meanwhile the
                // lower side may have been asked by the higher one
                if (!higher) {
                    Link in = takeIncoming(Math.min(deadline - System.nanoTime(), 50_000_000L));
                    if (in != null) {
                        return acceptIncoming(in);
                    }
                } else {
                    Thread.sleep(20);
                }
            }
        }

        private synchronized Link takeIncoming(long waitNanos) throws InterruptedException {
            long deadline = System.nanoTime() + waitNanos;
            while (incoming == null && waitNanos > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            Link l = incoming;
            incoming = null;
            return l;
        }

        private Negotiated acceptIncoming(Link in) {
            vi.acceptOn(in, in.requestInfo);
            return vi.negotiated();
        }
    }

    // ------------------------------------------------------------------ bookkeeping

    void linkOpened(Link l) {
        links.add(l);
    }

    void linkClosed(Link l) {
        links.remove(l);
    }

    /** Open TCP connections (for diagnostics and tests). */
    public int connectionCount() {
        return links.size();
    }

    /** VipCloseNic: closes the listener and every connection (their VIs go to Error, descriptors flush). */
    @Override
    public void close() {
        closed = true;
        for (ServerSocketChannel s : new ServerSocketChannel[] {server, rdmaTcpServer}) {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
        List<Link> all = new ArrayList<>(links);
        for (Link l : all) {
            l.close();
        }
        timer.shutdownNow();
    }
}

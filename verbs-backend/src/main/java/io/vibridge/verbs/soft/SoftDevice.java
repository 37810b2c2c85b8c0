package io.vibridge.verbs.soft;

import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.cm.SoftConnectionManager;
import io.vibridge.verbs.soft.transport.RcQueuePair;
import io.vibridge.verbs.soft.udp.SegmentationRefusedException;
import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import io.vibridge.verbs.soft.wire.Mad;
import io.vibridge.verbs.soft.wire.Opcode;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RoCEv2 device: a UDP socket on {@code ip:4791} with DF set (so Linux sends IP ID 0 and the
 * ICRC we compute for ID 0 is right), one platform receive thread, one transmit thread (posted
 * multi-packet messages), one timer thread, one event thread for user callbacks. Every QP guards its
 * state with its own lock; the receive, transmit and posting threads take it; user callbacks never run
 * under it.
 *
 * <p>With UDP segmentation offload (option {@code udp-offload}, default {@code auto}), the packets a QP
 * sends in one locked section leave in groups of equal-size datagrams in one system call, and one
 * receive may return such a group. Where the kernel does split a group into datagrams (a device without
 * segmentation offload, or a receiving socket without UDP_GRO), it numbers their IP IDs on from the
 * group's, which is 0 for an unconnected DF socket (Linux inet_gso_segment, ip_select_ident_segs); the ICRC
 * covers the ID, so the k-th packet of a group is sealed for ID k. A received group's k-th packet is
 * checked for ID k, or 0 for datagrams sent one by one and coalesced on the way (RoceIcrc). On loopback,
 * with GRO on both ends, a group travels whole and nothing is split.
 */
public final class SoftDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(SoftDevice.class);
    /** Largest UDP payload: BTH + RETH + ImmDt + 4096 + ICRC, rounded up. */
    public static final int MAX_PACKET = 4096 + 128;
    static final int FIRST_QPN = 16;
    /** Requested SO_RCVBUF / SO_SNDBUF. */
    static final int SOCKET_BUFFER = 16 << 20;
    private static final int QP_SLOTS = 1 << 14;
    private static final int RECEIVE_BUFFER = 256 << 10;

    private final DeviceConfig config;
    private final InetAddress address;
    private final byte[] ip4;
    private final int ipv4;
    private final int port;
    private final UdpSocket socket;
    /**
     * Idle batches, lock-free and allocation-free (a queue's lock allocates when contended); more are made
     * when all are borrowed, at most one per thread sending at once.
     */
    private final AtomicReferenceArray<TxBatch> idleBatches = new AtomicReferenceArray<>(64);
    private final Thread receiver;
    /**
     * Sends what posters queued (doorbell): a multi-packet message is laid out, sealed and handed to the
     * socket here rather than on the posting thread (the gateway's event loop), as a NIC would.
     */
    private final Thread transmitter;
    /** QPs waiting for the transmitter: a Treiber stack linked through the QPs (no allocation per post). */
    private final AtomicReference<RcQueuePair> transmitQueue = new AtomicReference<>();
    private volatile boolean transmitterParked;
    private final ScheduledThreadPoolExecutor timers;
    private final ExecutorService events;
    private final SoftCounters counters = new SoftCounters();
    private final KeyTable keys = new KeyTable();
    private final AtomicReferenceArray<RcQueuePair> qps = new AtomicReferenceArray<>(QP_SLOTS);
    /**
     * Slots are handed out in turn from a random start, so QP numbers differ from one process to the next: Linux's
     * CM keeps (remote QPN, CA GUID) of a closed connection through its timewait and rejects a new REQ that
     * repeats them as stale (cm.c: cm_insert_remote_qpn, REJ 10), and our CA GUID is derived from the address.
     */
    private int nextQpSlot = java.util.concurrent.ThreadLocalRandom.current().nextInt(QP_SLOTS);
    private final SoftConnectionManager cm;
    private final RoceIcrc rxIcrc = new RoceIcrc();
    private final int interfaceMtu;
    private final int maxPathMtu;
    private volatile boolean closed;

    // fault injection (egress), guarded by txLock
    private final Object txLock = new Object();
    private volatile FaultConfig faults = FaultConfig.NONE;
    private Random faultRandom = new Random(0);
    private final ByteBuffer held = ByteBuffer.allocateDirect(MAX_PACKET);
    private int heldLength;
    private InetSocketAddress heldTo;
    private int heldToIp;
    private boolean holding;
    private UdpSocket.Sender faultSender;
    private boolean refusalLogged;

    SoftDevice(DeviceConfig config) {
        this.config = config;
        this.address = config.address();
        if (!(address instanceof Inet4Address)) {
            throw new VerbsException("the soft provider supports IPv4 addresses only: " + address);
        }
        this.ip4 = address.getAddress();
        this.ipv4 = Gid.ipv4(ip4);
        this.port = config.udpPort();
        interfaceMtu = interfaceMtu(address, config.options().get("netdev-mtu"));   // REF §1.4, as rxe
        maxPathMtu = maxPathMtu(interfaceMtu, config.options().get("max-mtu"));
        UdpSocket.Offload offload;
        FaultConfig initialFaults;
        try {                                   // options first: nothing to undo when one is wrong
            offload = UdpSocket.Offload.parse(config.options().get("udp-offload"));
            String faultSpec = config.options().get("faults");
            initialFaults = faultSpec == null ? null : parseFaults(faultSpec);
        } catch (IllegalArgumentException e) {
            throw new VerbsException(e.getMessage());
        }
        try {
            // many QPs' windows may arrive at once: ask for a large buffer; Linux caps it at
            // net.core.rmem_max / wmem_max (4 MiB on this machine), the granted size is logged below
            socket = UdpSocket.open(address, port, SOCKET_BUFFER, offload);
        } catch (IOException e) {
            throw new VerbsException("cannot bind UDP " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
        }
        String tag = address.getHostAddress() + ":" + port;
        timers = new ScheduledThreadPoolExecutor(1, daemon("soft-timer-" + tag));
        timers.setRemoveOnCancelPolicy(true);
        events = Executors.newSingleThreadExecutor(daemon("soft-events-" + tag));
        cm = new SoftConnectionManager(this);
        if (initialFaults != null) {
            setFaults(initialFaults);
        }
        transmitter = new Thread(this::transmitLoop, "soft-tx-" + tag);
        transmitter.setDaemon(true);
        transmitter.start();
        receiver = new Thread(this::receiveLoop, "soft-rx-" + tag);
        receiver.setDaemon(true);
        receiver.setPriority(Thread.MAX_PRIORITY);
        receiver.start();
        LOG.info("soft RoCEv2 device up on {}: interface MTU {}, port max path MTU {}, socket buffers rcv {} snd {} (asked {}), UDP segmentation offload {}",
                tag, interfaceMtu, maxPathMtu, socket.receiveBufferSize(), socket.sendBufferSize(), SOCKET_BUFFER,
                socket.segmentationOffload() ? "on" : "off");
    }

    /** True while sends hand groups of datagrams to the kernel at once (UDP_SEGMENT). */
    public boolean segmentationOffload() {
        return socket.segmentationOffload();
    }

    /**
     * The MTU of the network interface holding {@code a} (option {@code netdev-mtu} overrides): the
     * interface with that exact address, else {@code lo} for a 127/8 address, else the interface whose
     * subnet contains it; 1500 (Ethernet) when none is found.
     */
    static int interfaceMtu(InetAddress a, String override) {
        if (override != null) {
            int v = parseOption("netdev-mtu", override);
            if (v < 68) {
                throw new VerbsException("netdev-mtu must be at least 68, got " + v);
            }
            return v;
        }
        try {
            java.net.NetworkInterface ni = java.net.NetworkInterface.getByInetAddress(a);
            if (ni == null) {
                for (var e = java.net.NetworkInterface.getNetworkInterfaces(); ni == null && e.hasMoreElements(); ) {
                    java.net.NetworkInterface c = e.nextElement();
                    if (a.isLoopbackAddress() ? c.isLoopback() : contains(c, a)) {
                        ni = c;
                    }
                }
            }
            if (ni != null && ni.getMTU() > 0) {
                return ni.getMTU();
            }
        } catch (java.net.SocketException e) {
            LOG.warn("cannot read the interface MTU of {}: {}", a, e.toString());
        }
        LOG.warn("no network interface found for {}: assuming an Ethernet MTU of 1500", a);
        return 1500;
    }

    private static boolean contains(java.net.NetworkInterface ni, InetAddress a) {
        byte[] x = a.getAddress();
        for (java.net.InterfaceAddress ia : ni.getInterfaceAddresses()) {
            byte[] y = ia.getAddress().getAddress();
            int bits = ia.getNetworkPrefixLength();
            if (y.length != x.length || bits <= 0) {
                continue;
            }
            int mask = bits >= 32 ? -1 : -1 << (32 - bits);
            if ((Gid.ipv4(x) & mask) == (Gid.ipv4(y) & mask)) {
                return true;
            }
        }
        return false;
    }

    /** The port's largest IB MTU for an interface MTU (REF §1.4), capped by option {@code max-mtu}. */
    static int maxPathMtu(int netdevMtu, String cap) {
        int m = io.vibridge.verbs.soft.wire.PathMtu.portMaxBytes(netdevMtu);
        if (cap != null) {
            int c = parseOption("max-mtu", cap);
            if (Integer.bitCount(c) != 1 || c < 256 || c > 4096) {
                throw new VerbsException("max-mtu must be 256, 512, 1024, 2048 or 4096, got " + cap);
            }
            m = Math.min(m, c);
        }
        return m;
    }

    private static int parseOption(String name, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new VerbsException("option " + name + " is not a number: " + v);
        }
    }

    /** The MTU of the network interface the device is bound to (or the {@code netdev-mtu} option). */
    public int interfaceMtu() {
        return interfaceMtu;
    }

    @Override
    public int maxPathMtu() {
        return maxPathMtu;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Parses "drop=0.05,dup=0.01,reorder=0.01,corrupt=0,seed=1". */
    public static FaultConfig parseFaults(String spec) {
        double drop = 0, dup = 0, reorder = 0, corrupt = 0;
        long seed = 0;
        for (String kv : spec.split(",")) {
            String[] p = kv.trim().split("=");
            if (p.length != 2) {
                throw new IllegalArgumentException("bad fault spec element: " + kv);
            }
            switch (p[0]) {
                case "drop" -> drop = Double.parseDouble(p[1]);
                case "dup", "duplicate" -> dup = Double.parseDouble(p[1]);
                case "reorder" -> reorder = Double.parseDouble(p[1]);
                case "corrupt" -> corrupt = Double.parseDouble(p[1]);
                case "seed" -> seed = Long.parseLong(p[1]);
                default -> throw new IllegalArgumentException("unknown fault " + p[0]);
            }
        }
        return new FaultConfig(drop, dup, reorder, corrupt, seed);
    }

    /** Sets egress fault injection (at any time). */
    public void setFaults(FaultConfig f) {
        synchronized (txLock) {
            faults = f;
            faultRandom = new Random(f.seed());
        }
    }

    public FaultConfig faults() {
        return faults;
    }

    // ---------------------------------------------------------------- SPI

    @Override
    public String providerName() {
        return SoftProvider.NAME;
    }

    @Override
    public String name() {
        return "soft-" + address.getHostAddress();
    }

    @Override
    public InetAddress address() {
        return address;
    }

    public int port() {
        return port;
    }

    public byte[] ip4() {
        return ip4;
    }

    @Override
    public byte[] gid() {
        return Gid.ofIpv4(ipv4).toBytes();
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.REMOTE_ACCESS_HANDLER, Capability.OUT_OF_BAND_CONNECT);
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        return new SoftProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        return new SoftCompletionQueue(this, capacity);
    }

    @Override
    public ConnectionManager connectionManager() {
        return cm;
    }

    @Override
    public DeviceCounters counters() {
        return counters.snapshot();
    }

    public SoftCounters rawCounters() {
        return counters;
    }

    KeyTable keys() {
        return keys;
    }

    public ScheduledThreadPoolExecutor timers() {
        return timers;
    }

    public ExecutorService eventExecutor() {
        return events;
    }

    public DeviceConfig config() {
        return config;
    }

    synchronized RcQueuePair createQp(SoftProtectionDomain pd, SoftCompletionQueue scq, SoftCompletionQueue rcq,
                                      int maxSend, int maxRecv) {
        if (closed) {
            throw new VerbsException("device closed");
        }
        for (int n = 0; n < QP_SLOTS; n++) {
            int slot = nextQpSlot;
            nextQpSlot = (nextQpSlot + 1) % QP_SLOTS;
            if (qps.get(slot) == null) {
                RcQueuePair qp = new RcQueuePair(this, pd, scq, rcq, FIRST_QPN + slot, maxSend, maxRecv);
                qps.set(slot, qp);
                return qp;
            }
        }
        throw new VerbsException("out of QPs");
    }

    public void removeQp(RcQueuePair qp) {
        int slot = qp.qpNum() - FIRST_QPN;
        qps.compareAndSet(slot, qp, null);
    }

    public RcQueuePair qp(int qpn) {
        int slot = qpn - FIRST_QPN;
        return slot >= 0 && slot < QP_SLOTS ? qps.get(slot) : null;
    }

    // ---------------------------------------------------------------- transmit

    /** Borrows a batch for packets to {@code to} ({@code toIp} its IPv4 address); give it back with {@link #closeBatch}. */
    public TxBatch openBatch(InetSocketAddress to, int toIp) {
        TxBatch b = null;
        for (int i = 0; b == null && i < idleBatches.length(); i++) {
            if (idleBatches.getPlain(i) != null) {
                b = idleBatches.getAndSet(i, null);
            }
        }
        if (b == null) {
            b = new TxBatch(this, socket.newSender());
        }
        b.to = to;
        b.toIp = toIp;
        return b;
    }

    /** Sends what {@code b} still holds and takes it back; a null {@code b} is ignored. */
    public void closeBatch(TxBatch b) {
        if (b == null) {
            return;
        }
        try {
            b.flush();
        } finally {
            b.to = null;
            for (int i = 0; i < idleBatches.length() && !idleBatches.compareAndSet(i, null, b); i++) {
                // the next slot; a batch finding none free is dropped
            }
        }
    }

    /** Seals and sends one packet, {@code pkt[0, total)} with its ICRC placeholder, to {@code to}. Any thread. */
    public void transmit(ByteBuffer pkt, int total, InetSocketAddress to, int toIp) {
        TxBatch b = openBatch(to, toIp);
        try {
            b.buf.put(b.reserve(total), pkt, 0, total);
        } finally {
            closeBatch(b);
        }
    }

    /**
     * Seals and sends a group of {@code count} packets, {@code b.buf[0, length)}, each {@code segmentSize}
     * bytes but the last: in one segmented send (the k-th sealed for IP ID k), else one by one (each for ID
     * 0) through egress fault injection.
     */
    void sendGroup(TxBatch b, int length, int segmentSize, int count) {
        boolean segmented = count > 1 && socket.segmentationOffload() && !faults.active();
        sealGroup(b, length, segmentSize, segmented);
        if (segmented) {
            try {
                b.sender.send(b.buf, 0, length, segmentSize, b.to, b.toIp);
                counters.packetsOut.add(count);
                counters.bytesOut.add(length);
                return;
            } catch (SegmentationRefusedException e) {
                synchronized (txLock) {
                    if (!refusalLogged) {
                        refusalLogged = true;
                        LOG.warn("{}: {}; sending datagrams one by one from now on", name(), e.getMessage());
                    }
                }
                sealGroup(b, length, segmentSize, false);
            } catch (ClosedChannelException e) {
                return;                                    // device closing: drop
            } catch (IOException e) {
                LOG.warn("{}: UDP send to {} failed: {}", name(), b.to, e.getMessage());
                return;
            }
        }
        for (int off = 0; off < length; off += segmentSize) {
            sendOne(b.sender, b.buf, off, Math.min(segmentSize, length - off), b.to, b.toIp);
        }
    }

    private void sealGroup(TxBatch b, int length, int segmentSize, boolean segmented) {
        for (int off = 0, k = 0; off < length; off += segmentSize, k++) {
            b.icrc.sealIpv4(ipv4, b.toIp, segmented ? k : 0, port, b.to.getPort(), b.buf, off,
                    Math.min(segmentSize, length - off));
        }
    }

    /** One sealed datagram, through egress fault injection when it is on. */
    private void sendOne(UdpSocket.Sender sender, ByteBuffer pkt, int off, int total, InetSocketAddress to, int toIp) {
        FaultConfig f = faults;
        if (!f.active()) {
            rawSend(sender, pkt, off, total, to, toIp);
            return;
        }
        synchronized (txLock) {
            Random r = faultRandom;
            if (r.nextDouble() < f.drop()) {
                counters.faultDrops.increment();
                flushHeld();
                return;
            }
            if (r.nextDouble() < f.corrupt()) {
                counters.faultCorruptions.increment();
                int i = off + 12 + r.nextInt(Math.max(1, total - 12));
                pkt.put(i, (byte) (pkt.get(i) ^ (1 << r.nextInt(8))));
                rawSend(sender, pkt, off, total, to, toIp); // packets are rebuilt for every (re)transmission
                return;
            }
            if (!holding && r.nextDouble() < f.reorder()) {
                counters.faultReorders.increment();
                held.put(0, pkt, off, total);
                heldLength = total;
                heldTo = to;
                heldToIp = toIp;
                holding = true;
                timers.schedule(this::flushHeldLocked, 2, TimeUnit.MILLISECONDS);
                return;
            }
            rawSend(sender, pkt, off, total, to, toIp);
            if (r.nextDouble() < f.duplicate()) {
                counters.faultDuplicates.increment();
                rawSend(sender, pkt, off, total, to, toIp);
            }
            flushHeld();
        }
    }

    private void flushHeldLocked() {
        synchronized (txLock) {
            flushHeld();
        }
    }

    /** Under txLock. */
    private void flushHeld() {
        if (holding) {
            holding = false;
            if (faultSender == null) {
                faultSender = socket.newSender();
            }
            rawSend(faultSender, held, 0, heldLength, heldTo, heldToIp);
        }
    }

    private void rawSend(UdpSocket.Sender sender, ByteBuffer pkt, int off, int total, InetSocketAddress to, int toIp) {
        try {
            sender.send(pkt, off, total, total, to, toIp);
            counters.packetsOut.increment();
            counters.bytesOut.add(total);
        } catch (ClosedChannelException e) {
            // device closing: drop
        } catch (IOException e) {
            LOG.warn("{}: UDP send to {} failed: {}", name(), to, e.getMessage());
        }
    }

    /** Queues {@code qp} for the transmit thread; a QP is queued at most once (RcQueuePair.scheduleTransmit). */
    public void scheduleTransmit(RcQueuePair qp) {
        RcQueuePair head;
        do {
            head = transmitQueue.get();
            qp.txNext(head);
        } while (!transmitQueue.compareAndSet(head, qp));
        if (head == null && transmitterParked) {
            LockSupport.unpark(transmitter);
        }
    }

    private void transmitLoop() {
        while (!closed) {
            RcQueuePair stack = transmitQueue.getAndSet(null);
            if (stack == null) {
                transmitterParked = true;                    // then re-check: a post racing with this sees it set
                if (transmitQueue.get() == null && !closed) {
                    LockSupport.park(this);
                }
                transmitterParked = false;
                continue;
            }
            RcQueuePair fifo = null;                         // oldest first
            while (stack != null) {
                RcQueuePair next = stack.txNext();
                stack.txNext(fifo);
                fifo = stack;
                stack = next;
            }
            while (fifo != null) {
                RcQueuePair next = fifo.txNext();
                fifo.txNext(null);
                try {
                    fifo.transmit();
                } catch (RuntimeException e) {
                    LOG.error("{}: transmit of QP {} failed", name(), fifo.qpNum(), e);
                }
                fifo = next;
            }
        }
    }

    // ---------------------------------------------------------------- receive

    private void receiveLoop() {
        // a received group can exceed one UDP datagram's 64 KiB (GRO may merge more; MSG_TRUNC is an error)
        ByteBuffer buf = ByteBuffer.allocateDirect(RECEIVE_BUFFER);
        ReceivedGroup group = new ReceivedGroup(buf);
        while (!closed) {
            try {
                int total = socket.receive(buf);
                if (total < 0) {
                    break;
                }
                int srcIp = socket.sourceIp();
                int srcPort = socket.sourcePort();
                int size = socket.segmentSize();
                for (int off = 0, k = 0; off < total; off += size, k++) {
                    int len = Math.min(size, total - off);
                    onDatagram(group.datagram(k, size, len), len, k, srcIp, srcPort);
                }
            } catch (ClosedChannelException e) {
                break;
            } catch (Exception e) {
                if (!closed) {
                    LOG.error("{}: receive loop error (packet dropped)", name(), e);
                }
            }
        }
    }

    /** One received datagram, {@code pkt[0, len)}, the {@code index}-th of its group. */
    private void onDatagram(ByteBuffer pkt, int len, int index, int srcIp, int srcPort) {
        counters.packetsIn.increment();
        counters.bytesIn.add(len);
        if (len < Bth.LENGTH + Icrc.LENGTH) {
            counters.malformedDrops.increment();
            return;
        }
        IcrcCheck ok = rxIcrc.verify(srcIp, srcPort, ipv4, port, pkt, len, index);
        if (ok == IcrcCheck.INVALID) {
            counters.icrcDrops.increment();
            return;
        }
        if (ok == IcrcCheck.VALID_SOME_IP_ID) {
            counters.icrcAnyIdAccepts.increment();
        }
        dispatch(pkt, len - Icrc.LENGTH, srcIp);
    }

    /**
     * Views of the datagrams of a received group, each a buffer whose index 0 is the datagram's first
     * byte (the transport reads packets at absolute offsets from 0). Made once per datagram size and
     * position and kept for the last few sizes (a peer's full packets, a READ response stream's, a WRITE
     * FIRST's), so the receive path allocates nothing while the sizes recur.
     */
    private static final class ReceivedGroup {
        private static final int SIZES = 4;
        private final ByteBuffer buf;
        private final ByteBuffer whole;                 // the whole buffer, to slice from
        private final int[] sizes = new int[SIZES];
        private final ByteBuffer[][] views = new ByteBuffer[SIZES][128];
        private int next;                               // the entry replaced when a new size comes

        ReceivedGroup(ByteBuffer buf) {
            this.buf = buf;
            this.whole = buf.duplicate().clear();
        }

        ByteBuffer datagram(int index, int size, int len) {
            if (index == 0) {
                buf.limit(len).position(0);
                return buf;
            }
            ByteBuffer[] forSize = viewsFor(size);
            ByteBuffer v = index < forSize.length ? forSize[index] : null;
            if (v == null) {
                int at = index * size;
                v = whole.slice(at, Math.min(size, whole.capacity() - at));
                if (index < forSize.length) {
                    forSize[index] = v;
                }
            }
            v.limit(len).position(0);
            return v;
        }

        private ByteBuffer[] viewsFor(int size) {
            for (int i = 0; i < SIZES; i++) {
                if (sizes[i] == size) {
                    return views[i];
                }
            }
            int i = next;
            next = (next + 1) % SIZES;
            sizes[i] = size;
            java.util.Arrays.fill(views[i], null);
            return views[i];
        }
    }

    private void dispatch(ByteBuffer pkt, int len, int srcIp) {
        int opcode = Bth.opcode(pkt, 0);
        if (Bth.transportVersion(pkt, 0) != 0) {
            counters.malformedDrops.increment();
            return;
        }
        if ((Bth.pkey(pkt, 0) & 0x7FFF) != (Bth.DEFAULT_PKEY & 0x7FFF)) {
            // §1.6: the P_Key must match our only key, 0xFFFF (low 15 bits equal)
            counters.malformedDrops.increment();
            return;
        }
        int destQp = Bth.destQp(pkt, 0);
        if (opcode == Opcode.UD_SEND_ONLY.code()) {         // CM MADs to QP1 (§5.1)
            if (destQp == Mad.GSI_QP) {
                cm.onPacket(pkt, len, Gid.ofIpv4(srcIp).toInetAddress());
            } else {
                counters.malformedDrops.increment();
            }
            return;
        }
        if (opcode > 0x1F) {                                // not RC (opcode bits 7:5 != 0)
            counters.malformedDrops.increment();
            return;
        }
        RcQueuePair qp = qp(destQp);
        if (qp == null) {
            counters.malformedDrops.increment();
            return;
        }
        qp.onPacket(pkt, len, srcIp);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LockSupport.unpark(transmitter);
        cm.shutdown();
        for (int i = 0; i < QP_SLOTS; i++) {
            RcQueuePair qp = qps.get(i);
            if (qp != null) {
                qp.toError();
            }
        }
        try {
            socket.close();
        } catch (IOException e) {
            LOG.warn("{}: closing the UDP socket: {}", name(), e.getMessage());
        }
        timers.shutdownNow();
        events.shutdown();
        try {
            receiver.join(2000);
            transmitter.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("soft device {} closed", name());
    }

    public boolean isClosed() {
        return closed;
    }
}

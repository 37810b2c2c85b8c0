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
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RoCEv2 device: a UDP socket on {@code ip:4791} with DF set (so Linux sends IP ID 0 and the
 * ICRC we compute for ID 0 is right), one platform receive thread, one timer thread, one event thread
 * for user callbacks. Every QP guards its state with its own lock; the receive thread and posting
 * threads take it; user callbacks never run under it.
 */
public final class SoftDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(SoftDevice.class);
    /** Largest UDP payload: BTH + RETH + ImmDt + 4096 + ICRC, rounded up. */
    public static final int MAX_PACKET = 4096 + 128;
    static final int FIRST_QPN = 16;
    /** Requested SO_RCVBUF / SO_SNDBUF. */
    static final int SOCKET_BUFFER = 16 << 20;
    private static final int QP_SLOTS = 1 << 14;

    private final DeviceConfig config;
    private final InetAddress address;
    private final byte[] ip4;
    private final int ipv4;
    private final int port;
    private final DatagramChannel channel;
    private final Thread receiver;
    private final ScheduledThreadPoolExecutor timers;
    private final ExecutorService events;
    private final SoftCounters counters = new SoftCounters();
    private final KeyTable keys = new KeyTable();
    private final AtomicReferenceArray<RcQueuePair> qps = new AtomicReferenceArray<>(QP_SLOTS);
    private int nextQpSlot;
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
    private InetSocketAddress heldTo;
    private boolean holding;

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
        try {
            channel = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
            // many QPs' windows may arrive at once: ask for a large buffer; Linux caps it at
            // net.core.rmem_max / wmem_max (4 MiB on this machine), the granted size is logged below
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            // IP ID 0 + DF: see shared/notes/roce-on-udp-sockets.md
            channel.setOption(jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            channel.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            throw new VerbsException("cannot bind UDP " + address.getHostAddress() + ":" + port + ": " + e, e);
        }
        String tag = address.getHostAddress() + ":" + port;
        timers = new ScheduledThreadPoolExecutor(1, daemon("soft-timer-" + tag));
        timers.setRemoveOnCancelPolicy(true);
        events = Executors.newSingleThreadExecutor(daemon("soft-events-" + tag));
        cm = new SoftConnectionManager(this);
        String faultSpec = config.options().get("faults");
        if (faultSpec != null) {
            setFaults(parseFaults(faultSpec));
        }
        receiver = new Thread(this::receiveLoop, "soft-rx-" + tag);
        receiver.setDaemon(true);
        receiver.setPriority(Thread.MAX_PRIORITY);
        receiver.start();
        LOG.info("soft RoCEv2 device up on {}: interface MTU {}, port max path MTU {}, socket buffers rcv {} snd {} (asked {})",
                tag, interfaceMtu, maxPathMtu, socketOption(StandardSocketOptions.SO_RCVBUF),
                socketOption(StandardSocketOptions.SO_SNDBUF), SOCKET_BUFFER);
    }

    private int socketOption(java.net.SocketOption<Integer> o) {
        try {
            return channel.getOption(o);
        } catch (IOException e) {
            return -1;
        }
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
        return EnumSet.of(Capability.REMOTE_ACCESS_HANDLER);
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

    /**
     * Seals (ICRC for IP ID 0 + DF in the last 4 bytes) and sends {@code pkt[0, total)} to {@code to}
     * ({@code toIp} its IPv4 address), with egress fault injection. {@code icrc} belongs to the caller's
     * lock/thread.
     */
    public void transmit(ByteBuffer pkt, int total, InetSocketAddress to, int toIp, Icrc icrc) {
        icrc.sealIpv4(ipv4, toIp, port, to.getPort(), pkt, 0, total);
        FaultConfig f = faults;
        if (!f.active()) {
            rawSend(pkt, total, to);
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
                int i = 12 + r.nextInt(Math.max(1, total - 12));
                pkt.put(i, (byte) (pkt.get(i) ^ (1 << r.nextInt(8))));
                rawSend(pkt, total, to); // packets are rebuilt for every (re)transmission
                return;
            }
            if (!holding && r.nextDouble() < f.reorder()) {
                counters.faultReorders.increment();
                held.clear();
                held.put(0, pkt, 0, total);
                held.limit(total);
                heldTo = to;
                holding = true;
                timers.schedule(this::flushHeldLocked, 2, TimeUnit.MILLISECONDS);
                return;
            }
            rawSend(pkt, total, to);
            if (r.nextDouble() < f.duplicate()) {
                counters.faultDuplicates.increment();
                rawSend(pkt, total, to);
            }
            flushHeld();
        }
    }

    private void flushHeldLocked() {
        synchronized (txLock) {
            flushHeld();
        }
    }

    private void flushHeld() {
        if (holding) {
            holding = false;
            rawSend(held, held.limit(), heldTo);
        }
    }

    private void rawSend(ByteBuffer pkt, int total, InetSocketAddress to) {
        int savedPos = pkt.position();
        int savedLim = pkt.limit();
        try {
            pkt.limit(total).position(0);
            channel.send(pkt, to);
            counters.packetsOut.increment();
            counters.bytesOut.add(total);
        } catch (ClosedChannelException e) {
            // device closing: drop
        } catch (IOException e) {
            LOG.warn("{}: UDP send to {} failed: {}", name(), to, e.toString());
        } finally {
            pkt.limit(savedLim).position(savedPos);
        }
    }

    // ---------------------------------------------------------------- receive

    private void receiveLoop() {
        ByteBuffer buf = ByteBuffer.allocateDirect(65536);
        SocketAddress lastSrc = null;
        int srcIp = 0;
        int srcPort = 0;
        InetAddress srcAddr = null;
        while (!closed) {
            try {
                buf.clear();
                SocketAddress from = channel.receive(buf);
                if (from == null) {
                    continue;
                }
                int len = buf.position();
                buf.flip();
                if (from != lastSrc) {
                    InetSocketAddress isa = (InetSocketAddress) from;
                    srcAddr = isa.getAddress();
                    byte[] a = srcAddr.getAddress();
                    if (a.length != 4) {
                        counters.malformedDrops.increment();
                        continue;
                    }
                    srcIp = Gid.ipv4(a);
                    srcPort = isa.getPort();
                    lastSrc = from;
                }
                counters.packetsIn.increment();
                counters.bytesIn.add(len);
                if (len < Bth.LENGTH + Icrc.LENGTH) {
                    counters.malformedDrops.increment();
                    continue;
                }
                IcrcCheck ok = rxIcrc.verify(srcIp, srcPort, ipv4, port, buf, len);
                if (ok == IcrcCheck.INVALID) {
                    counters.icrcDrops.increment();
                    continue;
                }
                if (ok == IcrcCheck.VALID_SOME_IP_ID) {
                    counters.icrcAnyIdAccepts.increment();
                }
                dispatch(buf, len - Icrc.LENGTH, srcAddr, srcIp);
            } catch (ClosedChannelException e) {
                break;
            } catch (Exception e) {
                if (!closed) {
                    LOG.error("{}: receive loop error (packet dropped)", name(), e);
                }
            }
        }
    }

    private void dispatch(ByteBuffer pkt, int len, InetAddress src, int srcIp) {
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
                cm.onPacket(pkt, len, src);
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
        cm.shutdown();
        for (int i = 0; i < QP_SLOTS; i++) {
            RcQueuePair qp = qps.get(i);
            if (qp != null) {
                qp.toError();
            }
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing
        }
        timers.shutdownNow();
        events.shutdown();
        try {
            receiver.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("soft device {} closed", name());
    }

    public boolean isClosed() {
        return closed;
    }
}

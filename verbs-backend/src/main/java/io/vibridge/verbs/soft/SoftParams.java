package io.vibridge.verbs.soft;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.port.IdleStrategy;
import io.vibridge.verbs.soft.port.RocePort;
import io.vibridge.verbs.soft.transport.RnrBackoff;
import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.PathMtu;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every default of the soft engine in one place, as Linux rxe keeps its own in rxe_param.h, and the
 * device options of a {@link DeviceConfig} parsed into one value. The transport, the CM and the port are
 * handed these numbers when the device builds them; none keeps a default of its own.
 *
 * <p>Device options (all optional):
 * <ul>
 * <li>{@code netdev-mtu}: the interface MTU to assume (at least 68); default: read from the interface
 *     that holds the address (IB-WIRE-REFERENCE §1.4);
 * <li>{@code max-mtu}: caps the port's largest path MTU, one of 256, 512, 1024, 2048, 4096;
 * <li>{@code udp-offload}: {@code auto} (default), {@code on} or {@code off} (UDP_SEGMENT/UDP_GRO sockets);
 * <li>{@code faults}: egress fault injection, {@code drop=0.05,dup=0.01,reorder=0.01,corrupt=0,seed=1}
 *     (rates 0..1; {@code duplicate} is accepted for {@code dup});
 * <li>{@code idle}: what the receive thread does between packets, {@code block} (default), {@code spin} or
 *     {@code backoff} ({@link IdleStrategy}: the polling mode);
 * <li>{@code min-rnr-wait-us}, {@code max-rnr-wait-us}: the floor of every RNR wait and the cap of its backoff, in
 *     microseconds ({@link RnrBackoff}; default 1000 and 100000).
 * </ul>
 *
 * @param interfaceMtu the MTU of the interface the device sits on (or {@code netdev-mtu})
 * @param maxPathMtu   the port's largest IB path MTU: from the interface MTU, capped by {@code max-mtu}
 * @param udpOffload   option {@code udp-offload}
 * @param faults       option {@code faults}, {@link FaultConfig#NONE} when absent
 * @param idle         option {@code idle}, {@link IdleStrategy#BLOCK} when absent
 * @param rnrBackoff   options {@code min-rnr-wait-us} and {@code max-rnr-wait-us}, {@link RnrBackoff#DEFAULT} when absent
 */
public record SoftParams(int interfaceMtu, int maxPathMtu, UdpSocket.Offload udpOffload, FaultConfig faults,
                         IdleStrategy idle, RnrBackoff rnrBackoff) {
    private static final Logger LOG = LoggerFactory.getLogger(SoftParams.class);

    // ---------------------------------------------------------------- transport (rxe_param.h)

    /**
     * PSNs a requester may have unacknowledged: rxe RXE_MAX_UNACKED_PSNS (IB-WIRE-REFERENCE §4.10); 512 KiB
     * in flight at MTU 4096.
     */
    public static final int WINDOW = 128;
    /** A requester sets AckReq at least every this many packets: rxe RXE_MAX_PKT_PER_ACK (§2.4, §4.10). */
    public static final int MAX_PKT_PER_ACK = 64;
    /** Number of the first ordinary QP (0 and 1 are SMI and GSI): rxe RXE_MIN_QP_INDEX (§4.10). */
    public static final int FIRST_QPN = 16;
    /** QPs one device can hold: the gateway needs one per bridged connection. */
    public static final int QP_SLOTS = 1 << 14;

    // ---------------------------------------------------------------- CM (IB-WIRE-REFERENCE §5)

    /** Local CA ACK delay we announce in the REP: rxe RXE_LOCAL_CA_ACK_DELAY (§4.10), 4.096 µs × 2^15. */
    public static final int TARGET_ACK_DELAY = 15;
    /**
     * Packet lifetime exponent, added twice to the CM response timeout (§5.8): 4.096 µs × 2^10 = 4.2 ms;
     * loopback needs little.
     */
    public static final int PACKET_LIFETIME = 10;
    /**
     * TimeWait is a minimum (§5.10: the QP number and comm ID stay reserved at least that long): exits due
     * within this much of the first are served by one timer (one wake-up, one burst of TimewaitExit events).
     */
    public static final long TIMEWAIT_BATCH_NANOS = 5_000_000L;

    // ---------------------------------------------------------------- port

    /** Largest RoCEv2 UDP payload: BTH + RETH + ImmDt + 4096 + ICRC, rounded up. */
    public static final int MAX_PACKET = 4096 + 128;
    /**
     * SO_RCVBUF / SO_SNDBUF asked: many QPs' windows may arrive at once. Linux caps it at
     * net.core.rmem_max / wmem_max; the granted size is logged at open.
     */
    public static final int SOCKET_BUFFER = 16 << 20;
    /** The receive buffer: a GRO group can exceed one datagram's 64 KiB (MSG_TRUNC would be an error). */
    public static final int RECEIVE_BUFFER = 256 << 10;
    /** Idle transmit batches kept (one is borrowed per thread sending at once). */
    public static final int IDLE_BATCHES = 64;
    /**
     * A source sending this many packets valid for IP ID 0, and none needing the any-ID fallback,
     * gets the full ICRC check from then on (module README, "ICRC decision").
     */
    public static final int ICRC_STRICT_AFTER = 8;
    /** How long fault injection holds a packet back at most when nothing follows it (a reorder). */
    public static final long REORDER_HOLD_NANOS = 2_000_000L;
    /** An interface MTU, when none is found for the address: Ethernet's. */
    public static final int DEFAULT_INTERFACE_MTU = 1500;
    /** The smallest IPv4 MTU (RFC 791). */
    public static final int MIN_INTERFACE_MTU = 68;

    /** The device options this provider knows. */
    public static final Set<String> OPTIONS = Set.of("netdev-mtu", "max-mtu", "udp-offload", "faults", "idle",
            "min-rnr-wait-us", "max-rnr-wait-us");

    /** The port's sizes, for {@link RocePort}. */
    static final RocePort.Limits PORT_LIMITS = new RocePort.Limits(SOCKET_BUFFER, RECEIVE_BUFFER, IDLE_BATCHES,
            MAX_PACKET, ICRC_STRICT_AFTER, REORDER_HOLD_NANOS);

    /** Parses {@code config}'s options; a {@link VerbsException} names the option at fault and what it accepts. */
    public static SoftParams of(DeviceConfig config) {
        Map<String, String> o = config.options();
        for (String key : o.keySet()) {
            if (!OPTIONS.contains(key)) {
                throw new VerbsException("unknown soft device option " + key + " (known: "
                        + String.join(", ", new TreeSet<>(OPTIONS)) + ")");
            }
        }
        int interfaceMtu = o.containsKey("netdev-mtu") ? netdevMtu(o.get("netdev-mtu")) : interfaceMtu(config.address());
        String faults = o.get("faults");
        return new SoftParams(interfaceMtu, maxPathMtu(interfaceMtu, o.get("max-mtu")), udpOffload(o.get("udp-offload")),
                faults == null ? FaultConfig.NONE : faults(faults), idle(o.get("idle")),
                rnrBackoff(o.get("min-rnr-wait-us"), o.get("max-rnr-wait-us")));
    }

    /** Options {@code min-rnr-wait-us} and {@code max-rnr-wait-us} (null: the default), min <= max. */
    static RnrBackoff rnrBackoff(String min, String max) {
        long lo = min == null ? RnrBackoff.DEFAULT_MIN_NANOS : micros("min-rnr-wait-us", min) * 1000L;
        long hi = max == null ? RnrBackoff.DEFAULT_MAX_NANOS : micros("max-rnr-wait-us", max) * 1000L;
        if (hi < lo) {
            throw new VerbsException("option max-rnr-wait-us (" + hi / 1000 + ") must not be below min-rnr-wait-us ("
                    + lo / 1000 + ")");
        }
        return new RnrBackoff(lo, hi);
    }

    private static long micros(String option, String v) {
        String accepted = "microseconds within 0..60000000";
        int us = number(option, v, accepted);
        if (us < 0 || us > 60_000_000) {
            throw new VerbsException("option " + option + " must be " + accepted + ", got " + v);
        }
        return us;
    }

    /** Option {@code netdev-mtu}: an interface MTU, at least 68. */
    static int netdevMtu(String v) {
        int mtu = number("netdev-mtu", v, "an interface MTU of at least " + MIN_INTERFACE_MTU);
        if (mtu < MIN_INTERFACE_MTU) {
            throw new VerbsException("option netdev-mtu must be at least " + MIN_INTERFACE_MTU + ", got " + v);
        }
        return mtu;
    }

    /** The port's largest IB MTU for an interface MTU (REF §1.4), capped by option {@code max-mtu} (null: none). */
    static int maxPathMtu(int netdevMtu, String cap) {
        int m = PathMtu.portMaxBytes(netdevMtu);
        if (cap != null) {
            String accepted = "256, 512, 1024, 2048 or 4096";
            int c = number("max-mtu", cap, accepted);
            if (Integer.bitCount(c) != 1 || c < 256 || c > 4096) {
                throw new VerbsException("option max-mtu must be " + accepted + ", got " + cap);
            }
            m = Math.min(m, c);
        }
        return m;
    }

    /** Option {@code udp-offload}: auto (also when absent), on or off. */
    static UdpSocket.Offload udpOffload(String v) {
        try {
            return UdpSocket.Offload.parse(v);
        } catch (IllegalArgumentException e) {
            throw new VerbsException("option udp-offload must be auto, on or off, got " + v);
        }
    }

    /** Option {@code idle}: block (also when absent), spin or backoff. */
    static IdleStrategy idle(String v) {
        try {
            return IdleStrategy.parse(v);
        } catch (IllegalArgumentException e) {
            throw new VerbsException("option idle must be " + IdleStrategy.ACCEPTED + ", got " + v);
        }
    }

    /** Option {@code faults}: "drop=0.05,dup=0.01,reorder=0.01,corrupt=0,seed=1", any subset, rates 0..1. */
    static FaultConfig faults(String spec) {
        String accepted = "drop, dup, reorder, corrupt (rates 0..1) and seed (an integer), as drop=0.05,seed=1";
        double drop = 0, dup = 0, reorder = 0, corrupt = 0;
        long seed = 0;
        for (String kv : spec.split(",")) {
            String[] p = kv.trim().split("=");
            if (p.length != 2) {
                throw new VerbsException("option faults: bad element '" + kv.trim() + "'; accepted: " + accepted);
            }
            String key = p[0].trim().toLowerCase(Locale.ROOT);
            switch (key) {
                case "drop" -> drop = rate(key, p[1], accepted);
                case "dup", "duplicate" -> dup = rate(key, p[1], accepted);
                case "reorder" -> reorder = rate(key, p[1], accepted);
                case "corrupt" -> corrupt = rate(key, p[1], accepted);
                case "seed" -> seed = seed(p[1], accepted);
                default -> throw new VerbsException("option faults: unknown fault '" + p[0].trim() + "'; accepted: " + accepted);
            }
        }
        return new FaultConfig(drop, dup, reorder, corrupt, seed);
    }

    private static double rate(String key, String v, String accepted) {
        double r;
        try {
            r = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            r = Double.NaN;
        }
        if (!(r >= 0 && r <= 1)) {
            throw new VerbsException("option faults: " + key + " must be a rate within 0..1, got '" + v.trim() + "'; accepted: " + accepted);
        }
        return r;
    }

    private static long seed(String v, String accepted) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new VerbsException("option faults: seed must be an integer, got '" + v.trim() + "'; accepted: " + accepted);
        }
    }

    private static int number(String option, String v, String accepted) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new VerbsException("option " + option + " must be " + accepted + ", got " + v);
        }
    }

    /**
     * The MTU of the network interface holding {@code a}: the interface with that exact address, else
     * {@code lo} for a 127/8 address, else the interface whose subnet contains it; 1500 (Ethernet) when
     * none is found (IB-WIRE-REFERENCE §1.4, as rdma_cm/rxe read the netdev's MTU).
     */
    static int interfaceMtu(InetAddress a) {
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(a);
            if (ni == null) {
                for (var e = NetworkInterface.getNetworkInterfaces(); ni == null && e.hasMoreElements(); ) {
                    NetworkInterface c = e.nextElement();
                    if (a.isLoopbackAddress() ? c.isLoopback() : contains(c, a)) {
                        ni = c;
                    }
                }
            }
            if (ni != null && ni.getMTU() > 0) {
                return ni.getMTU();
            }
        } catch (SocketException e) {
            LOG.warn("cannot read the interface MTU of {}: {}", a, e.toString());
        }
        LOG.warn("no network interface found for {}: assuming an Ethernet MTU of {}", a, DEFAULT_INTERFACE_MTU);
        return DEFAULT_INTERFACE_MTU;
    }

    private static boolean contains(NetworkInterface ni, InetAddress a) {
        byte[] x = a.getAddress();
        for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
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
}

package io.vibridge.gateway.tools;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code vibridge perf}: perftest-style VI/TCP measurements against a vibridge target (through the
 * gateway) or a {@link VitcpPeer} (directly): Send round-trip latency, Send / RDMA Write / RDMA Read
 * bandwidth and the connection-setup rate. Uses the target's {@link Control} protocol to switch the
 * connection between echo and sink, learn the region, and check every bandwidth run (message counts
 * and checksums). Timed loops allocate nothing and read {@link System#nanoTime}.
 */
public final class Perf {
    private static final String LINE = "-".repeat(95);

    /** What one run measures. */
    public enum Test {
        SEND_LAT("Send Latency"), SEND_BW("Send BW"), WRITE_BW("RDMA Write BW"), READ_BW("RDMA Read BW"),
        RECV_BW("Send BW peer->client"), CONNECT("Connection Setup");

        final String title;

        Test(String title) {
            this.title = title;
        }
    }

    /**
     * @param tests          what to run, in enum order
     * @param latSize        Send latency message size
     * @param bwSize         bandwidth message size
     * @param latIterations  round trips measured (after a warm-up of up to 1000)
     * @param bwIterations   messages per bandwidth run (ignored with a duration)
     * @param duration       run each bandwidth test this long instead, or null
     * @param connects       connections set up in the connect test
     * @param connectThreads threads connecting concurrently in the connect test
     * @param connectWarmup  connections set up by the same threads before the connect test's clock starts
     *                       (JIT warm-up of a fresh process), not counted
     */
    public record Settings(Set<Test> tests, int latSize, int bwSize, int latIterations, int bwIterations,
                           Duration duration, int connects, int connectThreads, int connectWarmup) {
        public Settings {
            tests = tests.isEmpty() ? EnumSet.noneOf(Test.class) : EnumSet.copyOf(tests);
            if (latIterations < 1 || bwIterations < 1 || connects < 1 || connectThreads < 1) {
                throw new IllegalArgumentException("iterations, connects and threads must be >= 1");
            }
            if (connectWarmup < 0) {
                throw new IllegalArgumentException("connect warm-up must be >= 0");
            }
        }

        /** Without a connect warm-up. */
        public Settings(Set<Test> tests, int latSize, int bwSize, int latIterations, int bwIterations,
                        Duration duration, int connects, int connectThreads) {
            this(tests, latSize, bwSize, latIterations, bwIterations, duration, connects, connectThreads, 0);
        }
    }

    /**
     * One measured figure set. Latency and connect times are in microseconds; bandwidth in MiB/s;
     * rates per second. Fields that do not apply are 0.
     */
    public record Result(Test test, int bytes, long iterations, double mibPerSec, double messagesPerSec, double tMin,
                         double tTypical, double tAvg, double tP99, double tMax, int threads) {
        /** The headline number compared against the baseline. */
        public double headline() {
            return switch (test) {
                case SEND_LAT -> tTypical;
                case CONNECT -> messagesPerSec;
                default -> mibPerSec;
            };
        }
    }

    private Perf() {
    }

    /** Runs {@code settings} against the peer of {@code o}; prints perftest-style blocks to {@code out}. */
    public static List<Result> run(ViClientOptions o, Settings s, String label, PrintStream out) throws Exception {
        List<Result> results = new ArrayList<>();
        boolean dataTests = s.tests().stream().anyMatch(t -> t != Test.CONNECT);
        if (dataTests) {
            int size = Math.max(s.latSize(), s.bwSize());
            try (ViClient c = ViClient.open(o.withMessageSize(size))) {
                c.connect();
                if (size > c.negotiated().mtu()) {
                    throw new IllegalStateException("message size " + size + " exceeds the agreed MTU "
                            + c.negotiated().mtu() + " (use -s)");
                }
                for (Test t : s.tests()) {
                    Result r = switch (t) {
                        case SEND_LAT -> sendLatency(c, s);
                        case SEND_BW -> sendBandwidth(c, s);
                        case WRITE_BW -> rdmaBandwidth(c, s, false);
                        case READ_BW -> c.negotiated().peerReadWindow() == 0
                                || c.negotiated().reliability() == ReliabilityLevel.UNRELIABLE_DELIVERY ? null
                                : rdmaBandwidth(c, s, true);
                        case RECV_BW -> receiveBandwidth(c, s);
                        case CONNECT -> null;
                    };
                    if (r == null && t != Test.CONNECT) {
                        out.println(" " + t.title + ": skipped (no RDMA Read at this reliability level / read window)");
                    }
                    if (r != null) {
                        print(out, r, label, o, c, t == Test.SEND_LAT ? latencyWarmup(s) : (int) bandwidthWarmup(s));
                        results.add(r);
                    }
                }
            }
        }
        if (s.tests().contains(Test.CONNECT)) {
            Result r = connectRate(o, s);
            print(out, r, label, o, null, s.connectWarmup());
            results.add(r);
        }
        return results;
    }

    // ------------------------------------------------------------------ tests

    static Result sendLatency(ViClient c, Settings s) throws InterruptedException {
        c.setMode(TargetMode.ECHO);
        int size = s.latSize();
        Descriptor send = c.sends[0].clearData();
        if (size > 0) {
            send.data(c.sendMr, 0, size);
            Ping.fill(c.sendMr.buffer(), 0, size, 1);
        }
        int n = s.latIterations();
        int warm = latencyWarmup(s);
        long[] t = new long[n];
        Vi vi = c.vi;
        for (int i = -warm; i < n; i++) {
            long t0 = System.nanoTime();
            vi.postSend(send);
            Descriptor r = c.awaitReceive();
            long t1 = System.nanoTime();
            if (r.length() != size) {
                throw new IllegalStateException("echo of " + r.length() + " bytes, sent " + size);
            }
            c.repost(r);
            c.awaitSend();
            if (i >= 0) {
                t[i] = t1 - t0;
            }
        }
        Arrays.sort(t);
        double sum = 0;
        for (long v : t) {
            sum += v;
        }
        return new Result(Test.SEND_LAT, size, n, 0, 0, t[0] / 1e3, t[n / 2] / 1e3, sum / n / 1e3,
                t[Math.min(n - 1, (int) (n * 0.99))] / 1e3, t[n - 1] / 1e3, 1);
    }

    /** Round trips before the latency test's clock starts. */
    static int latencyWarmup(Settings s) {
        return Math.min(1000, Math.max(1, s.latIterations() / 10));
    }

    /** Most operations a bandwidth test streams untimed before its clock starts. */
    static final long BW_WARMUP = 5000;

    /**
     * Operations a bandwidth test streams before its clock starts, as the latency and connect tests warm
     * up: a fresh JVM (the all-in-one gateway and target, or the client) otherwise spends the first
     * seconds compiling, and whichever side of a comparison runs first pays for it.
     */
    static long bandwidthWarmup(Settings s) {
        return s.duration() == null ? Math.min(BW_WARMUP, s.bwIterations()) : BW_WARMUP;
    }

    static Result sendBandwidth(ViClient c, Settings s) throws InterruptedException {
        c.setMode(TargetMode.SINK);
        int size = s.bwSize();
        int w = c.sends.length;
        for (int i = 0; i < w; i++) {
            Ping.fill(c.sendMr.buffer(), i * c.slot, size, 2);
            c.sends[i].clearData();
            if (size > 0) {
                c.sends[i].data(c.sendMr, i * c.slot, size);
            }
        }
        long before = c.controlOk(Control.STATS, null).getLong(Control.HEADER);
        long[] done = new long[2];
        long ns = stream(c, c.sends, s, done);
        long after = c.controlOk(Control.STATS, null).getLong(Control.HEADER);
        c.setMode(TargetMode.ECHO);
        if (after - before != done[0] + done[1]) {
            throw new IllegalStateException("the sink counted " + (after - before) + " Sends, " + (done[0] + done[1])
                    + " were sent");
        }
        return bw(Test.SEND_BW, size, done[0], ns);
    }

    /**
     * The peer sends: SET_MODE source with the size, then {@code n} Sends are received (each receive
     * reposted at once; the clock runs from the first arrival), then SET_MODE sink stops the source.
     */
    static Result receiveBandwidth(ViClient c, Settings s) throws InterruptedException {
        int size = s.bwSize();
        c.controlOk(Control.SET_MODE, ByteBuffer.allocate(5).put(0, (byte) TargetMode.SOURCE.code()).putInt(1, size));
        long n = s.duration() == null ? s.bwIterations() : Long.MAX_VALUE;
        long end = Long.MAX_VALUE;
        for (long i = bandwidthWarmup(s); i > 0; i--) {
            Descriptor d = c.awaitReceive();
            if (d.length() != size) {
                throw new IllegalStateException("a received message was " + d.length() + " bytes long, not " + size);
            }
            c.repost(d);
        }
        Descriptor first = c.awaitReceive();
        long t0 = System.nanoTime();
        if (s.duration() != null) {
            end = t0 + s.duration().toNanos();
        }
        long bad = first.length() == size ? 0 : 1;
        c.repost(first);
        long got = 0;
        while (got < n - 1 && System.nanoTime() < end) {
            Descriptor d = c.awaitReceive();
            if (d.length() != size) {
                bad++;
            }
            c.repost(d);
            got++;
        }
        long ns = System.nanoTime() - t0;
        c.controlSkippingData(Control.SET_MODE, ByteBuffer.allocate(1).put(0, (byte) TargetMode.SINK.code()));
        c.setMode(TargetMode.ECHO);
        if (bad > 0) {
            throw new IllegalStateException(bad + " received messages were not " + size + " bytes long");
        }
        Result r = bw(Test.RECV_BW, size, got, ns);      // rate over the intervals after the first arrival
        return new Result(r.test(), size, got + 1, r.mibPerSec(), r.messagesPerSec(), 0, 0, 0, 0, 0, 1);
    }

    static Result rdmaBandwidth(ViClient c, Settings s, boolean read) throws InterruptedException {
        int size = s.bwSize();
        ByteBuffer q = c.controlOk(Control.QUERY_REGION, null);
        long va = q.getLong(Control.HEADER);
        int handle = q.getInt(Control.HEADER + 8);
        long regionLength = Integer.toUnsignedLong(q.getInt(Control.HEADER + 12));
        // One below the peer's RDMA Read Window: the vitcp provider (HEAD) counts a request at the responder
        // until its writer thread marks the last response written, which can be after the requester has seen
        // that response and sent the next request; at the full window that race ends in IS 7.
        int window = read ? Math.min(c.sends.length, Math.max(1, c.negotiated().peerReadWindow() - 1)) : c.sends.length;
        int slots = (int) Math.min(window, regionLength / Math.max(1, size));
        if (slots < 1) {
            throw new IllegalStateException("the peer's region (" + regionLength + " B) is smaller than " + size + " B");
        }
        Descriptor[] ops = new Descriptor[window];
        for (int i = 0; i < window; i++) {
            long remote = va + (long) (i % slots) * size;
            ops[i] = (read ? Descriptor.rdmaRead(remote, handle) : Descriptor.rdmaWrite(remote, handle));
            if (size > 0) {
                ops[i].data(c.sendMr, i * c.slot, size);
            }
            if (!read) {
                Control.fillPattern(c.sendMr.buffer(), i * c.slot, size, 5);
            }
        }
        if (read) {
            ByteBuffer fill = ByteBuffer.allocate(12).putInt(0, 0).putInt(4, slots * size).putInt(8, 6);
            c.controlOk(Control.FILL_REGION, fill);
        }
        long[] done = new long[2];
        long ns = stream(c, ops, s, done);
        // check: region slot 0 and local slot 0 hold the same bytes (written, or read from the filled region)
        int local = Control.crc32c(c.sendMr.buffer(), 0, size);
        ByteBuffer ck = c.controlOk(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 0).putInt(4, size));
        if (ck.getInt(Control.HEADER) != local) {
            throw new IllegalStateException((read ? "RDMA Read" : "RDMA Write") + " check failed: region CRC32C 0x"
                    + Integer.toHexString(ck.getInt(Control.HEADER)) + ", local 0x" + Integer.toHexString(local));
        }
        return bw(read ? Test.READ_BW : Test.WRITE_BW, size, done[0], ns);
    }

    /**
     * Streams the warm-up untimed (then a STATS round trip, ordered after every operation, empties the
     * pipeline), then keeps {@code ops.length} operations outstanding until the count or duration is
     * reached and waits for a STATS round trip again so the time covers delivery. {@code doneOut}: timed
     * operations, warm-up operations.
     */
    private static long stream(ViClient c, Descriptor[] ops, Settings s, long[] doneOut) throws InterruptedException {
        long warm = bandwidthWarmup(s);
        if (warm > 0) {
            streamFor(c, ops, warm, Long.MAX_VALUE);
            c.controlOk(Control.STATS, null);
        }
        long t0 = System.nanoTime();
        long limit = s.duration() == null ? s.bwIterations() : Long.MAX_VALUE;
        long end = s.duration() == null ? Long.MAX_VALUE : t0 + s.duration().toNanos();
        long done = streamFor(c, ops, limit, end);
        c.controlOk(Control.STATS, null);
        long ns = System.nanoTime() - t0;
        doneOut[0] = done;
        doneOut[1] = warm;
        return ns;
    }

    /** Keeps {@code ops.length} operations outstanding until {@code limit} were posted or {@code end}; returns how many completed. */
    private static long streamFor(ViClient c, Descriptor[] ops, long limit, long end) throws InterruptedException {
        int w = ops.length;
        Vi vi = c.vi;
        long posted = 0;
        long done = 0;
        while (posted < limit && posted < w) {
            vi.postSend(ops[(int) posted]);
            posted++;
        }
        while (done < posted) {
            c.awaitSend();
            done++;
            if (posted < limit && (end == Long.MAX_VALUE || System.nanoTime() < end)) {
                vi.postSend(ops[(int) (posted % w)]);
                posted++;
            }
        }
        return done;
    }

    private static Result bw(Test t, int size, long n, long ns) {
        double secs = ns / 1e9;
        return new Result(t, size, n, (double) n * size / (1 << 20) / secs, n / secs, 0, 0, 0, 0, 0, 1);
    }

    static Result connectRate(ViClientOptions o, Settings s) throws Exception {
        int threads = s.connectThreads();
        int per = Math.max(1, s.connects() / threads);
        int warm = (s.connectWarmup() + threads - 1) / threads;
        long[][] samples = new long[threads][per];
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (ViNic nic = ViNic.open(NicConfig.loopback().withListen(null).withName("vibridge-perf-connect")
                .withKey(o.key()))) {
            var tag = nic.createPtag();
            ViNetAddress remote = o.address();
            Thread[] ts = new Thread[threads];
            // the same loop warms up, then every thread starts the timed part together
            CountDownLatch warmedUp = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            for (int k = 0; k < threads; k++) {
                long[] mine = samples[k];
                ts[k] = Thread.ofPlatform().name("perf-connect-" + k).start(() -> {
                    try {
                        Vi vi = nic.createVi(ViAttributes.of(o.reliability(), tag), null, null);
                        try {
                            for (int i = 0; i < warm; i++) {
                                vi.connectRequest(Discriminator.EMPTY, remote, o.timeout());
                                vi.disconnect();
                            }
                        } finally {
                            warmedUp.countDown();
                        }
                        go.await();
                        for (int i = 0; i < per && failure.get() == null; i++) {
                            long a = System.nanoTime();
                            vi.connectRequest(Discriminator.EMPTY, remote, o.timeout());
                            mine[i] = System.nanoTime() - a;
                            vi.disconnect();
                        }
                    } catch (Exception e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            warmedUp.await();
            long t0 = System.nanoTime();
            go.countDown();
            for (Thread t : ts) {
                t.join();
            }
            long wall = System.nanoTime() - t0;
            if (failure.get() != null) {
                throw failure.get();
            }
            int n = per * threads;
            long[] all = new long[n];
            for (int k = 0; k < threads; k++) {
                System.arraycopy(samples[k], 0, all, k * per, per);
            }
            Arrays.sort(all);
            double sum = 0;
            for (long v : all) {
                sum += v;
            }
            return new Result(Test.CONNECT, 0, n, 0, n / (wall / 1e9), all[0] / 1e3, all[n / 2] / 1e3, sum / n / 1e3,
                    all[Math.min(n - 1, (int) (n * 0.99))] / 1e3, all[n - 1] / 1e3, threads);
        }
    }

    // ------------------------------------------------------------------ output

    static void print(PrintStream out, Result r, String label, ViClientOptions o, ViClient c, int warmup) {
        out.println(LINE);
        out.printf(Locale.ROOT, "                    %s Test (VI/TCP, %s)%n", r.test().title, label);
        out.printf(Locale.ROOT, " Peer           : %s:%d discriminator \"%s\" framing %s%n", o.remote().getHostString(),
                o.remote().getPort(), o.discriminator(), o.framing().label());
        out.printf(Locale.ROOT, " Reliability    : %s    Descriptor flow control: %s%n",
                ViClientOptions.shortName(o.reliability()),
                c == null ? (o.flowControl() ? "asked" : "off") : (c.negotiated().flowControl() ? "on" : "off"));
        if (c != null) {
            out.printf(Locale.ROOT, " Agreed MTU     : %d    Outstanding: %d    Connect time: %.3f ms%n",
                    c.negotiated().mtu(), r.test() == Test.SEND_LAT ? 1 : c.sends.length, c.connectNanos / 1e6);
        }
        out.printf(Locale.ROOT, " Warm-up        : %d %s before the clock starts (not counted)%n", warmup,
                switch (r.test()) {
                    case CONNECT -> "connects";
                    case SEND_LAT -> "round trips";
                    case RECV_BW -> "messages received";
                    default -> "operations";
                });
        out.println(LINE);
        switch (r.test()) {
            case SEND_LAT -> {
                out.println(" #bytes #iterations    t_min[usec]    t_typical[usec]    t_avg[usec]    t_99%[usec]    t_max[usec]");
                out.printf(Locale.ROOT, " %-6d %-11d    %-11.2f    %-15.2f    %-11.2f    %-11.2f    %.2f%n", r.bytes(),
                        r.iterations(), r.tMin(), r.tTypical(), r.tAvg(), r.tP99(), r.tMax());
            }
            case CONNECT -> {
                out.println(" #connects #threads    rate[conn/sec]    t_min[usec]    t_typical[usec]    t_99%[usec]    t_max[usec]");
                out.printf(Locale.ROOT, " %-9d %-8d    %-14.1f    %-11.2f    %-15.2f    %-11.2f    %.2f%n",
                        r.iterations(), r.threads(), r.messagesPerSec(), r.tMin(), r.tTypical(), r.tP99(), r.tMax());
            }
            default -> {
                out.println(" #bytes     #iterations    BW average[MiB/sec]    MsgRate[Mpps]");
                out.printf(Locale.ROOT, " %-10d %-14d %-22.2f %.6f%n", r.bytes(), r.iterations(), r.mibPerSec(),
                        r.messagesPerSec() / 1e6);
            }
        }
        out.println(LINE);
    }

    /** Prints each gateway figure beside the baseline's, with the ratio and the acceptance targets. */
    public static boolean printComparison(PrintStream out, List<Result> gateway, List<Result> baseline) {
        out.println("=".repeat(95));
        out.println(" Through the gateway vs direct VI/TCP (baseline, no gateway)");
        out.printf(Locale.ROOT, " %-28s %-20s %-20s %s%n", "test", "gateway", "baseline", "ratio gateway/baseline");
        boolean pass = true;
        for (Result g : gateway) {
            Result b = baseline.stream().filter(x -> x.test() == g.test()).findFirst().orElse(null);
            String unit = switch (g.test()) {
                case SEND_LAT -> "usec";
                case CONNECT -> "conn/s";
                default -> "MiB/s";
            };
            String name = g.test().title + (g.test() == Test.CONNECT ? "" : " " + g.bytes() + " B")
                    + (g.test() == Test.SEND_LAT ? " (typ)" : "");
            double ratio = b == null || b.headline() == 0 ? Double.NaN : g.headline() / b.headline();
            String verdict = "";
            if (g.test() == Test.SEND_BW || g.test() == Test.WRITE_BW) {
                boolean ok = ratio >= 0.5;
                pass &= ok;
                verdict = ok ? "  (target >= 0.50: met)" : "  (target >= 0.50: NOT met)";
            } else if (g.test() == Test.CONNECT) {
                boolean ok = g.messagesPerSec() >= 2000;
                pass &= ok;
                verdict = ok ? "  (target >= 2000/s: met)" : "  (target >= 2000/s: NOT met)";
            }
            out.printf(Locale.ROOT, " %-28s %-20s %-20s %.2f%s%n", name,
                    String.format(Locale.ROOT, "%.2f %s", g.headline(), unit),
                    b == null ? "-" : String.format(Locale.ROOT, "%.2f %s", b.headline(), unit), ratio, verdict);
        }
        out.println("=".repeat(95));
        return pass;
    }
}

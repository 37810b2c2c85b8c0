package io.vibridge.gateway.tools;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code vibridge perf}: perftest-style VI/TCP measurements against a vibridge target (through the
 * gateway) or a {@link VitcpPeer} (directly): Send latency, Send / RDMA Write / RDMA Read bandwidth and
 * the connection-setup rate, printed in perftest's columns ({@code ib_send_lat}: one-way latency, half the
 * round trip; {@code ib_*_bw}: MB/sec = 2^20 bytes per second, or Gb/sec = 10^9 bits per second). Uses the
 * target's {@link Control} protocol to switch the connection between echo and sink, learn the region, and
 * check every bandwidth run (message counts and checksums). Timed loops allocate nothing and read
 * {@link System#nanoTime}.
 */
public final class Perf {
    private static final String LINE = "-".repeat(95);
    /** perftest's {@code -a}: every power of two from 2 B to 8 MiB. */
    public static final int SWEEP_MAX = 1 << 23;

    /** What one run measures. */
    public enum Test {
        SEND_LAT("Send Latency"), SEND_BW("Send BW"), WRITE_BW("RDMA Write BW"), READ_BW("RDMA Read BW"),
        RECV_BW("Send BW peer->client"), CONNECT("Connection Setup");

        final String title;

        Test(String title) {
            this.title = title;
        }

        boolean bandwidth() {
            return this != SEND_LAT && this != CONNECT;
        }

        String key() {
            return name().toLowerCase(Locale.ROOT);
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
     * @param sweep          sizes to run every data test at ({@code -a}), empty for latSize/bwSize
     * @param queuePairs     connections streaming at once in the bandwidth tests ({@code -q})
     * @param gbits          bandwidth in Gb/sec instead of MB/sec ({@code --report_gbits})
     * @param progress       where progress lines of long runs go (stderr), or null
     */
    public record Settings(Set<Test> tests, int latSize, int bwSize, int latIterations, int bwIterations,
                           Duration duration, int connects, int connectThreads, int connectWarmup,
                           List<Integer> sweep, int queuePairs, boolean gbits, PrintStream progress) {
        public Settings {
            tests = tests.isEmpty() ? EnumSet.noneOf(Test.class) : EnumSet.copyOf(tests);
            sweep = sweep == null ? List.of() : List.copyOf(sweep);
            if (latIterations < 1 || bwIterations < 1 || connects < 1 || connectThreads < 1 || queuePairs < 1) {
                throw new IllegalArgumentException("iterations, connects, threads and queue pairs must be >= 1");
            }
            if (connectWarmup < 0) {
                throw new IllegalArgumentException("connect warm-up must be >= 0");
            }
        }

        /** One size per test, one connection, MB/sec, no progress lines. */
        public Settings(Set<Test> tests, int latSize, int bwSize, int latIterations, int bwIterations,
                        Duration duration, int connects, int connectThreads, int connectWarmup) {
            this(tests, latSize, bwSize, latIterations, bwIterations, duration, connects, connectThreads,
                    connectWarmup, List.of(), 1, false, null);
        }

        /** Without a connect warm-up. */
        public Settings(Set<Test> tests, int latSize, int bwSize, int latIterations, int bwIterations,
                        Duration duration, int connects, int connectThreads) {
            this(tests, latSize, bwSize, latIterations, bwIterations, duration, connects, connectThreads, 0);
        }

        /** These settings with every message {@code size} bytes. */
        Settings at(int size) {
            return new Settings(tests, size, size, latIterations, bwIterations, duration, connects, connectThreads,
                    connectWarmup, sweep, queuePairs, gbits, progress);
        }

        /** The sweep without the sizes above {@code max} (a baseline peer's receive buffers). */
        public Settings sweepUpTo(int max) {
            return new Settings(tests, latSize, bwSize, latIterations, bwIterations, duration, connects, connectThreads,
                    connectWarmup, sweep.stream().filter(x -> x <= max).toList(), queuePairs, gbits, progress);
        }

        int size(Test t) {
            return t == Test.SEND_LAT ? latSize : bwSize;
        }
    }

    /** perftest's {@code -a} sizes, 2 B .. {@code max} (at most {@link #SWEEP_MAX}). */
    public static List<Integer> sweepSizes(int max) {
        List<Integer> l = new ArrayList<>();
        for (int s = 2; s <= Math.min(max, SWEEP_MAX); s <<= 1) {
            l.add(s);
        }
        return l;
    }

    /**
     * One measured figure set. Bandwidth in MiB/s (perftest's MB/sec), rates per second; latency and connect
     * times in {@link #latency} (null for bandwidth). Fields that do not apply are 0.
     *
     * @param threads connections (bandwidth with {@code -q}) or connecting threads (connect test)
     */
    public record Result(Test test, int bytes, long iterations, double mibPerSec, double peakMibPerSec,
                         double messagesPerSec, Latency latency, int threads) {
        /** The figure compared against the baseline: the typical round trip, the rate, the average bandwidth. */
        public double headline() {
            return switch (test) {
                case SEND_LAT -> latency.typicalRoundTrip();
                case CONNECT -> messagesPerSec;
                default -> mibPerSec;
            };
        }

        /** Every figure, named after perftest's columns (bandwidth in the unit printed). */
        public JsonObject toJson(boolean gbits) {
            JsonObject j = new JsonObject().put("test", test.key()).put("title", test.title);
            if (test.bandwidth()) {
                j.put("bytes", bytes).put("iterations", iterations).put("queue_pairs", threads)
                        .put("bw_unit", gbits ? "Gb/sec" : "MB/sec")
                        .put("bw_peak", bandwidth(peakMibPerSec, gbits)).put("bw_average", bandwidth(mibPerSec, gbits))
                        .put("msg_rate_mpps", messagesPerSec / 1e6);
                return j;
            }
            if (test == Test.CONNECT) {
                j.put("connects", iterations).put("threads", threads).put("rate_per_sec", messagesPerSec);
            } else {
                j.put("bytes", bytes).put("iterations", iterations).put("one_way", latency.rttFactor() == 2)
                        .put("t_typical_round_trip_usec", latency.typicalRoundTrip());
            }
            return j.put("t_min_usec", latency.min()).put("t_max_usec", latency.max())
                    .put("t_typical_usec", latency.typical()).put("t_avg_usec", latency.avg())
                    .put("t_stdev_usec", latency.stdev()).put("p99_usec", latency.p99()).put("p99_9_usec", latency.p999());
        }
    }

    /** MiB/s in the printed unit: perftest's MB/sec (2^20 B/s) or Gb/sec (10^9 bit/s). */
    static double bandwidth(double mibPerSec, boolean gbits) {
        return gbits ? mibPerSec * (1 << 20) * 8 / 1e9 : mibPerSec;
    }

    private Perf() {
    }

    /** Runs {@code settings} against the peer of {@code o}; prints perftest-style blocks to {@code out}. */
    public static List<Result> run(ViClientOptions o, Settings s, String label, PrintStream out) throws Exception {
        List<Result> results = new ArrayList<>();
        List<Test> data = s.tests().stream().filter(t -> t != Test.CONNECT).toList();
        if (!data.isEmpty() && !s.sweep().isEmpty()) {
            for (Test t : data) {
                results.addAll(sweep(o, s, t, label, out));
            }
        } else if (!data.isEmpty()) {
            int size = Math.max(s.latSize(), s.bwSize());
            try (ViClient c = ViClient.open(o.withMessageSize(size))) {
                c.connect();
                if (size > c.negotiated().mtu()) {
                    throw new IllegalStateException("message size " + size + " exceeds the agreed MTU "
                            + c.negotiated().mtu() + " (use -s)");
                }
                for (Test t : data) {
                    Result r = measure(t, o, c, s);
                    if (r == null) {
                        out.println(" " + t.title + ": skipped (no RDMA Read at this reliability level / read window)");
                        continue;
                    }
                    printHeader(out, t, label, o, c, s);
                    printRow(out, r, s.gbits());
                    out.println(LINE);
                    results.add(r);
                }
            }
        }
        if (s.tests().contains(Test.CONNECT)) {
            Result r = connectRate(o, s);
            printHeader(out, Test.CONNECT, label, o, null, s);
            printRow(out, r, s.gbits());
            out.println(LINE);
            results.add(r);
        }
        return results;
    }

    /**
     * {@code -a}: test {@code t} at every sweep size, a connection each (its buffers sized for it), up to the
     * largest size the connection's agreed MTU allows (the route's limit through the gateway).
     */
    private static List<Result> sweep(ViClientOptions o, Settings s, Test t, String label, PrintStream out)
            throws Exception {
        List<Result> rs = new ArrayList<>();
        for (int size : s.sweep()) {
            try (ViClient c = ViClient.open(o.withMessageSize(size))) {
                c.connect();
                if (size > c.negotiated().mtu()) {
                    out.printf(Locale.ROOT, " %s: sizes above %d B skipped (the agreed MTU)%n", t.title,
                            c.negotiated().mtu());
                    break;
                }
                Settings at = s.at(size);
                Result r = measure(t, o, c, at);
                if (r == null) {
                    out.println(" " + t.title + ": skipped (no RDMA Read at this reliability level / read window)");
                    break;
                }
                if (rs.isEmpty()) {
                    printHeader(out, t, label, o, c, at);
                }
                printRow(out, r, s.gbits());
                rs.add(r);
            }
        }
        if (!rs.isEmpty()) {
            out.println(LINE);
        }
        return rs;
    }

    /** One data test at the settings' size on {@code c} (and {@code -q} - 1 more connections); null: not possible. */
    private static Result measure(Test t, ViClientOptions o, ViClient c, Settings s) throws Exception {
        if (t == Test.READ_BW && (c.negotiated().peerReadWindow() == 0
                || c.negotiated().reliability() == ReliabilityLevel.UNRELIABLE_DELIVERY)) {
            return null;
        }
        if (t == Test.SEND_LAT) {
            return sendLatency(c, s, progress(s, t, s.latIterations()));
        }
        if (s.queuePairs() == 1) {
            return bandwidth(t, c, s, () -> { }, progress(s, t, s.bwIterations()));
        }
        return parallel(t, o, c, s);
    }

    private static Progress progress(Settings s, Test t, long total) {
        return new Progress(s.progress(), t.title + " " + s.size(t) + " B", total,
                t.bandwidth() && s.duration() != null ? s.duration().toNanos() : 0);
    }

    private static Result bandwidth(Test t, ViClient c, Settings s, Runnable gate, Progress p)
            throws InterruptedException {
        return switch (t) {
            case SEND_BW -> sendBandwidth(c, s, gate, p);
            case WRITE_BW -> rdmaBandwidth(c, s, false, gate, p);
            case READ_BW -> rdmaBandwidth(c, s, true, gate, p);
            case RECV_BW -> receiveBandwidth(c, s, gate, p);
            case SEND_LAT, CONNECT -> throw new IllegalArgumentException(t + " is not a bandwidth test");
        };
    }

    /**
     * {@code -q}: {@code c} and {@code -q} - 1 more connections run bandwidth test {@code t} at once, each on its
     * own thread; every connection warms up, then all start their clocks together. Bandwidth, peak and message
     * rate are the sums of the connections'; iterations their total.
     */
    private static Result parallel(Test t, ViClientOptions o, ViClient c, Settings s) throws Exception {
        int q = s.queuePairs();
        List<ViClient> clients = new ArrayList<>(List.of(c));
        try {
            for (int i = 1; i < q; i++) {
                ViClient more = ViClient.open(o.withMessageSize(s.bwSize()));
                clients.add(more);
                more.connect();
            }
            CyclicBarrier clock = new CyclicBarrier(q);
            Runnable gate = () -> {
                try {
                    clock.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                } catch (BrokenBarrierException e) {
                    throw new IllegalStateException("another connection of -q failed", e);
                }
            };
            Result[] rs = new Result[q];
            AtomicReference<Exception> failure = new AtomicReference<>();
            Thread[] threads = new Thread[q];
            for (int i = 0; i < q; i++) {
                int k = i;
                threads[i] = Thread.ofPlatform().name("perf-qp-" + i).start(() -> {
                    try {
                        rs[k] = bandwidth(t, clients.get(k), s, gate, k == 0 ? progress(s, t, s.bwIterations())
                                : Progress.none());
                    } catch (Exception e) {
                        failure.compareAndSet(null, e);
                        clock.reset();              // the others' gate breaks instead of waiting for ever
                    }
                });
            }
            for (Thread th : threads) {
                th.join();
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            long n = 0;
            double mib = 0;
            double peak = 0;
            double rate = 0;
            for (Result r : rs) {
                n += r.iterations();
                mib += r.mibPerSec();
                peak += r.peakMibPerSec();
                rate += r.messagesPerSec();
            }
            return new Result(t, s.bwSize(), n, mib, peak, rate, null, q);
        } finally {
            for (ViClient more : clients.subList(1, clients.size())) {
                more.close();
            }
        }
    }

    // ------------------------------------------------------------------ tests

    static Result sendLatency(ViClient c, Settings s, Progress p) throws InterruptedException {
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
            if (i == 0) {
                p.start(t0);                                  // the warm-up is not part of the count
            }
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
                p.tick(i + 1, t1);
            }
        }
        return new Result(Test.SEND_LAT, size, n, 0, 0, 0, Latency.oneWay(t), 1);
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

    static Result sendBandwidth(ViClient c, Settings s, Runnable gate, Progress p) throws InterruptedException {
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
        PeakRate peak = new PeakRate();
        long ns = stream(c, c.sends, s, done, gate, peak, p);
        long after = c.controlOk(Control.STATS, null).getLong(Control.HEADER);
        c.setMode(TargetMode.ECHO);
        if (after - before != done[0] + done[1]) {
            throw new IllegalStateException("the sink counted " + (after - before) + " Sends, " + (done[0] + done[1])
                    + " were sent");
        }
        return bw(Test.SEND_BW, size, done[0], ns, peak);
    }

    /**
     * The peer sends: SET_MODE source with the size, then {@code n} Sends are received (each receive
     * reposted at once; the clock runs from the first arrival), then SET_MODE sink stops the source.
     */
    static Result receiveBandwidth(ViClient c, Settings s, Runnable gate, Progress p) throws InterruptedException {
        int size = s.bwSize();
        gate.run();
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
        PeakRate peak = new PeakRate();
        Descriptor first = c.awaitReceive();
        long t0 = System.nanoTime();
        p.start(t0);
        if (s.duration() != null) {
            end = t0 + s.duration().toNanos();
        }
        long bad = first.length() == size ? 0 : 1;
        c.repost(first);
        long got = 0;
        long now = t0;
        while (got < n - 1 && now < end) {
            Descriptor d = c.awaitReceive();
            if (d.length() != size) {
                bad++;
            }
            c.repost(d);
            got++;
            now = System.nanoTime();
            peak.completed(now);
            p.tick(got, now);
        }
        long ns = System.nanoTime() - t0;
        c.controlSkippingData(Control.SET_MODE, ByteBuffer.allocate(1).put(0, (byte) TargetMode.SINK.code()));
        c.setMode(TargetMode.ECHO);
        if (bad > 0) {
            throw new IllegalStateException(bad + " received messages were not " + size + " bytes long");
        }
        Result r = bw(Test.RECV_BW, size, got, ns, peak);      // rate over the intervals after the first arrival
        return new Result(r.test(), size, got + 1, r.mibPerSec(), r.peakMibPerSec(), r.messagesPerSec(), null, 1);
    }

    static Result rdmaBandwidth(ViClient c, Settings s, boolean read, Runnable gate, Progress p)
            throws InterruptedException {
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
        PeakRate peak = new PeakRate();
        long ns = stream(c, ops, s, done, gate, peak, p);
        // check: region slot 0 and local slot 0 hold the same bytes (written, or read from the filled region)
        int local = Control.crc32c(c.sendMr.buffer(), 0, size);
        ByteBuffer ck = c.controlOk(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 0).putInt(4, size));
        if (ck.getInt(Control.HEADER) != local) {
            throw new IllegalStateException((read ? "RDMA Read" : "RDMA Write") + " check failed: region CRC32C 0x"
                    + Integer.toHexString(ck.getInt(Control.HEADER)) + ", local 0x" + Integer.toHexString(local));
        }
        return bw(read ? Test.READ_BW : Test.WRITE_BW, size, done[0], ns, peak);
    }

    /**
     * Streams the warm-up untimed (then a STATS round trip, ordered after every operation, empties the
     * pipeline), passes {@code gate} (-q: every connection starts its clock together), then keeps
     * {@code ops.length} operations outstanding until the count or duration is reached and waits for a
     * STATS round trip again so the time covers delivery. {@code doneOut}: timed operations, warm-up
     * operations.
     */
    private static long stream(ViClient c, Descriptor[] ops, Settings s, long[] doneOut, Runnable gate, PeakRate peak,
                               Progress p) throws InterruptedException {
        long warm = bandwidthWarmup(s);
        if (warm > 0) {
            streamFor(c, ops, warm, Long.MAX_VALUE, null, Progress.none());
            c.controlOk(Control.STATS, null);
        }
        gate.run();
        long t0 = System.nanoTime();
        p.start(t0);
        long limit = s.duration() == null ? s.bwIterations() : Long.MAX_VALUE;
        long end = s.duration() == null ? Long.MAX_VALUE : t0 + s.duration().toNanos();
        long done = streamFor(c, ops, limit, end, peak, p);
        c.controlOk(Control.STATS, null);
        long ns = System.nanoTime() - t0;
        doneOut[0] = done;
        doneOut[1] = warm;
        return ns;
    }

    /**
     * Keeps {@code ops.length} operations outstanding until {@code limit} were posted or {@code end}; returns how
     * many completed. {@code peak}: told of every completion (null: the clock is not read per completion).
     */
    private static long streamFor(ViClient c, Descriptor[] ops, long limit, long end, PeakRate peak, Progress p)
            throws InterruptedException {
        int w = ops.length;
        Vi vi = c.vi;
        long posted = 0;
        long done = 0;
        boolean clocked = peak != null || end != Long.MAX_VALUE;
        while (posted < limit && posted < w) {
            vi.postSend(ops[(int) posted]);
            posted++;
        }
        while (done < posted) {
            c.awaitSend();
            done++;
            long now = clocked ? System.nanoTime() : 0;
            if (peak != null) {
                peak.completed(now);
                p.tick(done, now);
            }
            if (posted < limit && (end == Long.MAX_VALUE || now < end)) {
                vi.postSend(ops[(int) (posted % w)]);
                posted++;
            }
        }
        return done;
    }

    private static Result bw(Test t, int size, long n, long ns, PeakRate peak) {
        double secs = ns / 1e9;
        double mib = (double) n * size / (1 << 20) / secs;
        return new Result(t, size, n, mib, Math.max(mib, peak.perSecond() * size / (1 << 20)), n / secs, null, 1);
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
            Progress p = new Progress(s.progress(), Test.CONNECT.title + " (thread 1 of " + threads + ")", per, 0);
            for (int k = 0; k < threads; k++) {
                long[] mine = samples[k];
                Progress mp = k == 0 ? p : Progress.none();
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
                            long b = System.nanoTime();
                            mine[i] = b - a;
                            mp.tick(i + 1, b);
                            vi.disconnect();
                        }
                    } catch (Exception e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            warmedUp.await();
            long t0 = System.nanoTime();
            p.start(t0);
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
            return new Result(Test.CONNECT, 0, n, 0, 0, n / (wall / 1e9), Latency.whole(all), threads);
        }
    }

    // ------------------------------------------------------------------ output

    private static void printHeader(PrintStream out, Test t, String label, ViClientOptions o, ViClient c, Settings s) {
        out.println(LINE);
        out.printf(Locale.ROOT, "                    %s Test (VI/TCP, %s)%n", t.title, label);
        out.printf(Locale.ROOT, " Peer           : %s:%d discriminator \"%s\" framing %s%n", o.remote().getHostString(),
                o.remote().getPort(), o.discriminator(), o.framing().label());
        out.printf(Locale.ROOT, " Reliability    : %s    Descriptor flow control: %s%n",
                ViClientOptions.shortName(o.reliability()),
                c == null ? (o.flowControl() ? "asked" : "off") : (c.negotiated().flowControl() ? "on" : "off"));
        if (c != null) {
            out.printf(Locale.ROOT, " Agreed MTU     : %d    Outstanding: %d    Connect time: %.3f ms%n",
                    c.negotiated().mtu(), t == Test.SEND_LAT ? 1 : c.sends.length, c.connectNanos / 1e6);
        }
        if (t.bandwidth() && s.queuePairs() > 1) {
            out.printf(Locale.ROOT, " Connections    : %d (-q), clocks started together, figures summed%n",
                    s.queuePairs());
        }
        out.printf(Locale.ROOT, " Warm-up        : %d %s before the clock starts (not counted)%n",
                switch (t) {
                    case CONNECT -> s.connectWarmup();
                    case SEND_LAT -> latencyWarmup(s);
                    default -> (int) bandwidthWarmup(s);
                },
                switch (t) {
                    case CONNECT -> "connects";
                    case SEND_LAT -> "round trips";
                    case RECV_BW -> "messages received";
                    default -> "operations";
                });
        switch (t) {
            case SEND_LAT -> out.println(" Latency        : ONE-WAY, half of each Send/Receive round trip, as ib_send_lat "
                    + "reports it (round trip = 2 x these)");
            case CONNECT -> out.println(" Setup time     : the whole connect (Connect Request to Accept), a round trip");
            default -> out.println(" BW             : " + (s.gbits() ? "Gb/sec = 10^9 bits" : "MB/sec = 2^20 bytes")
                    + " per second, as perftest; peak = the best 100 ms interval");
        }
        out.println(LINE);
        printColumns(out, t, s.gbits());
    }

    /** perftest's column line of test {@code t}. */
    static void printColumns(PrintStream out, Test t, boolean gbits) {
        switch (t) {
            case SEND_LAT -> out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                    + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ");
            case CONNECT -> out.println(" #connects #threads    rate[conn/sec]    t_min[usec]    t_max[usec]  "
                    + "t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ");
            default -> out.println(gbits
                    ? " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
                    : " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
        }
    }

    static void printRow(PrintStream out, Result r, boolean gbits) {
        Latency l = r.latency();
        switch (r.test()) {
            case SEND_LAT -> out.printf(Locale.ROOT,
                    " %-6d %-11d    %-11.2f    %-11.2f  %-15.2f    %-11.2f    %-13.2f   %-20.2f   %.2f%n",
                    r.bytes(), r.iterations(), l.min(), l.max(), l.typical(), l.avg(), l.stdev(), l.p99(), l.p999());
            case CONNECT -> out.printf(Locale.ROOT,
                    " %-9d %-8d    %-14.1f    %-11.2f    %-11.2f  %-15.2f    %-11.2f    %-13.2f   %-20.2f   %.2f%n",
                    r.iterations(), r.threads(), r.messagesPerSec(), l.min(), l.max(), l.typical(), l.avg(), l.stdev(),
                    l.p99(), l.p999());
            default -> {
                double avg = bandwidth(r.mibPerSec(), gbits);
                // as perftest: below 0.1 Gb/sec the figures get six decimals, not two
                String bw = gbits && avg < 0.1 ? " %-10d %-14d %-18.6f %-20.6f %.6f%n" : " %-10d %-14d %-18.2f %-20.2f %.6f%n";
                out.printf(Locale.ROOT, bw, r.bytes(), r.iterations(), bandwidth(r.peakMibPerSec(), gbits), avg,
                        r.messagesPerSec() / 1e6);
            }
        }
    }

    /** The baseline's result of the same test and size, or null. */
    private static Result counterpart(Result g, List<Result> baseline) {
        return baseline.stream().filter(x -> x.test() == g.test() && x.bytes() == g.bytes()).findFirst().orElse(null);
    }

    /** {@link #printComparison}'s rows for {@code --json}: the headline figures (Send: the round trip) and ratios. */
    public static JsonArray comparisonJson(List<Result> gateway, List<Result> baseline) {
        JsonArray a = new JsonArray();
        for (Result g : gateway) {
            Result b = counterpart(g, baseline);
            a.add(new JsonObject().put("test", g.test().key()).put("bytes", g.bytes())
                    .put("figure", switch (g.test()) {
                        case SEND_LAT -> "t_typical_round_trip_usec";
                        case CONNECT -> "rate_per_sec";
                        default -> "bw_average_mib_per_sec";
                    })
                    .put("gateway", g.headline()).put("baseline", b == null ? null : b.headline())
                    .put("ratio", b == null || b.headline() == 0 ? null : g.headline() / b.headline()));
        }
        return a;
    }

    /** Prints each gateway figure beside the baseline's, with the ratio and the acceptance targets. */
    public static boolean printComparison(PrintStream out, List<Result> gateway, List<Result> baseline) {
        out.println("=".repeat(95));
        out.println(" Through the gateway vs direct VI/TCP (baseline, no gateway); Send: the typical ROUND TRIP");
        out.printf(Locale.ROOT, " %-28s %-20s %-20s %s%n", "test", "gateway", "baseline", "ratio gateway/baseline");
        boolean pass = true;
        for (Result g : gateway) {
            Result b = counterpart(g, baseline);
            String unit = switch (g.test()) {
                case SEND_LAT -> "usec";
                case CONNECT -> "conn/s";
                default -> "MiB/s";
            };
            String name = switch (g.test()) {
                case SEND_LAT -> "Send round trip " + g.bytes() + " B (typ)";
                case CONNECT -> g.test().title;
                default -> g.test().title + " " + g.bytes() + " B";
            };
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

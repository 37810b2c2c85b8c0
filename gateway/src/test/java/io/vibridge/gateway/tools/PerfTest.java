package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.gateway.cli.PerfCommand;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** perf with tiny iteration counts against an in-process vitcp peer: well-formed output, checked transfers. */
class PerfTest {
    static VitcpPeer peer;

    @BeforeAll
    static void start() throws Exception {
        peer = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), "demo", TargetMode.ECHO, 16, 65536, 1 << 20, null);
    }

    @AfterAll
    static void stop() {
        peer.close();
    }

    @Test
    void everyTest_runsAndPrintsPerftestColumns() throws Exception {
        ViClientOptions o = new ViClientOptions(peer.address(), "demo", ReliabilityLevel.RELIABLE_RECEPTION, true, null,
                65536, 8, 4, Duration.ofSeconds(30));
        Perf.Settings s = new Perf.Settings(EnumSet.allOf(Perf.Test.class), 8, 65536, 50, 40, null, 20, 2);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<Perf.Result> rs = Perf.run(o, s, "test", new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rs).extracting(Perf.Result::test).containsExactly(Perf.Test.values());
        for (Perf.Result r : rs) {
            assertThat(r.headline()).as(r.toString()).isPositive();
        }
        assertThat(rs.get(0).iterations()).isEqualTo(50);
        Latency lat = rs.get(0).latency();
        assertThat(lat.rttFactor()).isEqualTo(2);                       // one-way, as ib_send_lat
        assertThat(lat.min()).isLessThanOrEqualTo(lat.typical());
        assertThat(lat.typical()).isLessThanOrEqualTo(lat.p99());
        assertThat(lat.p99()).isLessThanOrEqualTo(lat.p999()).isLessThanOrEqualTo(lat.max());
        assertThat(rs.get(0).headline()).isEqualTo(2 * lat.typical());  // the comparison's round trip
        assertThat(rs.get(1).peakMibPerSec()).isGreaterThanOrEqualTo(rs.get(1).mibPerSec());
        assertThat(rs.get(1).iterations()).isEqualTo(40);
        assertThat(rs.get(4).iterations()).isEqualTo(40);
        assertThat(rs.get(5).iterations()).isEqualTo(20);
        assertThat(out).contains("Send Latency Test", "Send BW Test", "RDMA Write BW Test", "RDMA Read BW Test", "Send BW peer->client Test",
                "Connection Setup Test", " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                        + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ",
                " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]", "rate[conn/sec]",
                " Latency        : ONE-WAY, half of each Send/Receive round trip");
        assertThat(out.lines().filter(l -> l.startsWith(" 65536      40 "))).hasSize(4);
        // every bandwidth test first streams as many operations untimed (the Send test's sink count covers both)
        assertThat(out.lines().filter(l -> l.equals(" Warm-up        : 40 operations before the clock starts (not counted)")))
                .hasSize(3);
        assertThat(out).contains(" Warm-up        : 40 messages received before the clock starts (not counted)",
                " Warm-up        : 5 round trips before the clock starts (not counted)");

        ByteArrayOutputStream cmp = new ByteArrayOutputStream();
        Perf.printComparison(new PrintStream(cmp, true, StandardCharsets.UTF_8), rs, rs);
        assertThat(cmp.toString(StandardCharsets.UTF_8)).contains("Send BW 65536 B").contains("1.00  (target >= 0.50: met)")
                .contains(" Send round trip 8 B (typ)");
    }

    @Test
    void connectWarmup_connectsFirstAndCountsOnlyTheTimedPart() throws Exception {
        ViClientOptions o = new ViClientOptions(peer.address(), "demo", ReliabilityLevel.RELIABLE_DELIVERY, true, null,
                65536, 8, 4, Duration.ofSeconds(30));
        Perf.Settings s = new Perf.Settings(EnumSet.of(Perf.Test.CONNECT), 8, 65536, 1, 1, null, 12, 3, 7);
        long before = peer.acceptedConnections();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<Perf.Result> rs = Perf.run(o, s, "test", new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rs).singleElement().satisfies(r -> {
            assertThat(r.iterations()).isEqualTo(12);
            assertThat(r.headline()).isPositive();
        });
        // 7 warm-up connects over 3 threads: 3 each (rounded up), then 4 timed each; the peer counts an accept
        // just after answering it, so allow it a moment
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (peer.acceptedConnections() - before < 9 + 12 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(peer.acceptedConnections() - before).isEqualTo(9 + 12);
        assertThat(out).contains(" Warm-up        : 7 connects before the clock starts (not counted)");
        assertThatThrownBy(() -> new Perf.Settings(EnumSet.of(Perf.Test.CONNECT), 8, 8, 1, 1, null, 1, 1, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durationMode_andCommandLineBaselineOnly() {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            code = new CommandLine(new PerfCommand()).execute("--baseline-only", "--test", "bw", "--op", "write",
                    "-D", "0.2", "-s", "4096");
        } finally {
            System.setOut(saved);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isZero();
        assertThat(out).contains("RDMA Write BW Test (VI/TCP, baseline: direct to a vitcp peer)")
                .containsPattern("\n 4096 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n");
    }

    /** Runs {@code vibridge perf args}; returns stdout, and the exit code in {@code code[0]}. */
    private static String perf(int[] code, String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            code[0] = new CommandLine(new PerfCommand()).execute(args);
        } finally {
            System.setOut(saved);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void json_oneDocumentWithPerftestsColumns_gbitsWhenAsked() {
        int[] code = new int[1];
        String out = perf(code, "--baseline-only", "--json", "--report_gbits", "-n", "30", "--connect-threads", "2",
                "--connect-warmup", "2");
        assertThat(code[0]).as(out).isZero();
        JsonObject doc = new JsonObject(out);                  // stdout holds the document alone
        JsonArray results = doc.getJsonArray("runs").getJsonObject(0).getJsonArray("results");
        assertThat(results.stream().map(r -> ((JsonObject) r).getString("test")))
                .containsExactly("send_lat", "send_bw", "write_bw", "read_bw", "recv_bw", "connect");
        JsonObject lat = results.getJsonObject(0);
        assertThat(lat.fieldNames()).contains("bytes", "iterations", "t_min_usec", "t_max_usec", "t_typical_usec",
                "t_avg_usec", "t_stdev_usec", "p99_usec", "p99_9_usec", "t_typical_round_trip_usec");
        assertThat(lat.getBoolean("one_way")).isTrue();
        assertThat(lat.getDouble("t_typical_round_trip_usec")).isEqualTo(2 * lat.getDouble("t_typical_usec"));
        JsonObject bw = results.getJsonObject(1);
        assertThat(bw.getString("bw_unit")).isEqualTo("Gb/sec");
        assertThat(bw.getDouble("bw_average")).isPositive();
        assertThat(bw.getDouble("bw_peak")).isGreaterThanOrEqualTo(bw.getDouble("bw_average"));
        assertThat(bw.getDouble("msg_rate_mpps")).isPositive();
        assertThat(results.getJsonObject(5).getDouble("rate_per_sec")).isPositive();
    }

    @Test
    void sweep_everyPowerOfTwoUpToTheAgreedMtu_andQueuePairsSum() {
        assertThat(Perf.sweepSizes(Perf.SWEEP_MAX)).hasSize(23).startsWith(2, 4, 8).endsWith(1 << 23);
        int[] code = new int[1];
        String out = perf(code, "--baseline-only", "--json", "-a", "--test", "bw", "--op", "send", "-n", "20",
                "-q", "2");
        assertThat(code[0]).as(out).isZero();
        JsonArray results = new JsonObject(out).getJsonArray("runs").getJsonObject(0).getJsonArray("results");
        // the baseline peer's receive buffers (64 KiB without a gateway run) cap the sweep
        assertThat(results.stream().map(r -> ((JsonObject) r).getInteger("bytes")))
                .containsExactlyElementsOf(Perf.sweepSizes(65536));
        for (int i = 0; i < results.size(); i++) {
            assertThat(results.getJsonObject(i).getInteger("queue_pairs")).isEqualTo(2);
            assertThat(results.getJsonObject(i).getLong("iterations")).isEqualTo(40);   // 20 on each connection
        }
        assertThat(perf(code, "-a", "-s", "8")).isEmpty();
        assertThat(code[0]).isEqualTo(2);
    }

    @Test
    void latencyIsOneWay_perftestsStatistics() {
        Latency l = Latency.oneWay(new long[] {4000, 2000, 10_000, 6000});   // round trips in ns
        assertThat(l.min()).isEqualTo(1.0);
        assertThat(l.max()).isEqualTo(5.0);
        assertThat(l.typical()).isEqualTo(2.5);                           // median of an even count: the middle two
        assertThat(l.avg()).isEqualTo(2.75);
        assertThat(l.stdev()).isCloseTo(Math.sqrt((1.75 * 1.75 + 0.75 * 0.75 + 0.25 * 0.25 + 2.25 * 2.25) / 4),
                Offset.offset(1e-9));
        assertThat(l.p99()).isEqualTo(5.0);
        assertThat(Latency.whole(new long[] {3000}).typicalRoundTrip()).isEqualTo(3.0);
    }

    @Test
    void allInOne_targetAndGatewayInProcess_withBaseline() {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            code = new CommandLine(new PerfCommand()).execute("--all-in-one", "--target-address", "127.0.0.49",
                    "--gateway-ib-address", "127.0.0.50", "--baseline", "-n", "10", "--connect-threads", "2",
                    "--connect-warmup", "4");
        } finally {
            System.setOut(saved);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isZero();
        assertThat(out).contains("all-in-one: target on 127.0.0.49 port 5000, gateway on 127.0.0.50")
                .contains("Send Latency Test (VI/TCP, through the gateway)")
                .contains("Connection Setup Test (VI/TCP, baseline: direct to a vitcp peer)")
                .contains("ratio gateway/baseline").containsPattern("Send BW 65536 B +[0-9.]+ MiB/s +[0-9.]+ MiB/s +[0-9.]+");
    }

    @Test
    void allInOne_overIwarp_everyTestThatApplies() {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            code = new CommandLine(new PerfCommand()).execute("--all-in-one", "--target-address", "127.0.0.51",
                    "--gateway-ib-address", "127.0.0.52", "--framing", "iwarp", "--crc", "-n", "20", "--flowc", "1");
        } finally {
            System.setOut(saved);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isZero();
        assertThat(out).contains("iWARP client (MPA rev 2, CRC on)")
                .contains(" Send Latency (ONE-WAY: half of each round trip, as ib_send_lat)")
                .containsPattern("\n 8 +20 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n")
                .contains(" Send BW\n", " RDMA Write BW\n", " RDMA Read BW\n")
                .containsPattern("(?s)BW average\\[MB/sec\\].*\n 65536 +20 +[0-9.]+ +[0-9.]+ +[0-9.]+\n");
    }

    @Test
    void badOptions_exitCode2() {
        PrintStream saved = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
            assertThat(new CommandLine(new PerfCommand()).execute("--test", "lat", "--op", "write")).isEqualTo(2);
            assertThat(new CommandLine(new PerfCommand()).execute("--test", "nope")).isEqualTo(2);
        } finally {
            System.setErr(saved);
        }
        assertThat(buf.toString(StandardCharsets.UTF_8)).contains("latency is measured for --op send only");
    }
}

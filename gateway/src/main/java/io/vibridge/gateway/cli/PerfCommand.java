package io.vibridge.gateway.cli;

import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.tools.IwarpPerf;
import io.vibridge.gateway.tools.Perf;
import io.vibridge.gateway.tools.ViClientOptions;
import io.vibridge.gateway.tools.VitcpPeer;
import io.vibridge.vitcp.cli.OptionConverter;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vibridge perf}: perftest-style VI/TCP benchmark through the gateway, optionally beside a direct baseline:
 * perftest's columns (one-way Send latency, BW peak/average, MsgRate), {@code -a} size sweeps, {@code -q}
 * connections in parallel, {@code --report_gbits}, {@code --json} for scripts and progress lines on stderr.
 */
@Command(name = "perf", mixinStandardHelpOptions = true,
        description = "VI/TCP benchmark through the gateway: Send latency, Send/RDMA Write/RDMA Read bandwidth, "
                + "connection setup rate; --baseline runs the same against an in-process vitcp peer and prints ratios.")
public final class PerfCommand implements Callable<Integer> {

    @Option(names = "--gateway", paramLabel = "<host:port>", converter = HostPortConverter.class,
            description = "Gateway host:port (default: 127.0.0.1:7470, 127.0.0.1:7471 with --framing rdmatcp, "
                    + "127.0.0.1:7472 with --framing iwarp).")
    InetSocketAddress gateway;

    @Option(names = "--framing", defaultValue = "vitcp", paramLabel = "<framing>",
            converter = FramingConverter.class,
            description = "vitcp (native VI/TCP segments), rdmatcp (seed-004 RDMA/TCP frames with CRC-32, "
                    + "VITCP-PROFILE §8), for every connection made, the baseline's included, or iwarp (an iWARP client "
                    + "of the gateway's iWARP listener: Send lat, Send/Write/Read bw) (default: ${DEFAULT-VALUE}).")
    Framing framing;

    @Option(names = "--crc", description = "--framing iwarp: ask for MPA CRC32C.")
    boolean crc;

    @Option(names = "--discriminator", defaultValue = "demo", paramLabel = "<route>",
            description = "Route to a vibridge target (default: ${DEFAULT-VALUE}).")
    String discriminator;

    @Option(names = "--op", defaultValue = "send", paramLabel = "<op>", converter = OpConverter.class,
            description = "send, write, read or recv (the target sends, source mode), for --test lat|bw (default: ${DEFAULT-VALUE}).")
    Op op;

    @Option(names = "--test", defaultValue = "all", paramLabel = "<test>", converter = TestsConverter.class,
            description = "lat, bw, connect or all (all: Send lat, Send/Write/Read/recv BW, connect) (default: ${DEFAULT-VALUE}).")
    Tests test;

    @Option(names = {"-s", "--size"}, paramLabel = "<size>", converter = SizeConverter.class,
            description = "Message size (default: 8 B for latency, 64 KiB for bandwidth).")
    Integer size;

    @Option(names = {"-a", "--all"},
            description = "Run every size from 2 B to 8 MiB in powers of two (perftest -a), up to the largest the "
                    + "connection's agreed MTU allows (through the gateway: the route's, 64 KiB by default).")
    boolean allSizes;

    @Option(names = {"-q", "--qp"}, defaultValue = "1", paramLabel = "<n>",
            description = "Connections streaming at once in the bandwidth tests, clocks started together, figures "
                    + "summed (perftest -q) (default: ${DEFAULT-VALUE}).")
    int queuePairs;

    @Option(names = {"--report_gbits", "--report-gbits"},
            description = "Bandwidth in Gb/sec (10^9 bits per second) instead of MB/sec (2^20 bytes per second).")
    boolean reportGbits;

    @Option(names = "--json",
            description = "Print one JSON document with every result (and the comparison) instead of the tables.")
    boolean json;

    @Option(names = {"-n", "--iters"}, paramLabel = "<n>",
            description = "Iterations (default: 10000 round trips, 5000 bandwidth messages, 1000 connects).")
    Integer iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "<seconds>",
            description = "Run each bandwidth test this many seconds instead of -n.")
    Double duration;

    @Option(names = {"-t", "--tx-depth"}, defaultValue = "16", paramLabel = "<n>",
            description = "Operations outstanding in bandwidth tests (default: ${DEFAULT-VALUE}).")
    int txDepth;

    // 16: the setup rate through the gateway stops rising well below 16 threads (README-tools, "perf"), so 16
    // measures throughput, not one connect's latency
    @Option(names = "--connect-threads", defaultValue = "16", paramLabel = "<n>",
            description = "Concurrent connecting threads in the connect test (default: ${DEFAULT-VALUE}).")
    int connectThreads;

    // a fresh process spends its first seconds compiling the setup path (C1/C2): the connect test first runs
    // this many connects untimed, like the latency test's warm-up
    @Option(names = "--connect-warmup", defaultValue = "1000", paramLabel = "<n>",
            description = "Connects made (by the same threads) before the connect test's clock starts; 0 for a cold "
                    + "start (default: ${DEFAULT-VALUE}).")
    int connectWarmup;

    @Mixin
    ViConnectOptions connect;

    @Option(names = "--flow-control", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Ask for descriptor flow control (default: on).")
    boolean flowControl;

    @Option(names = "--baseline", description = "Also run everything against an in-process vitcp peer (no gateway) and print ratios.")
    boolean baseline;

    @Option(names = "--baseline-only", description = "Run only against the in-process vitcp peer (no gateway needed).")
    boolean baselineOnly;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "<seconds>",
            description = "Connect/operation timeout in seconds (default: ${DEFAULT-VALUE}).")
    double timeout;

    @Option(names = "--all-in-one",
            description = "Start a demo target and a gateway in this process (soft provider) and measure through them; "
                    + "--gateway is then ignored.")
    boolean allInOne;

    @Option(names = "--target-address", defaultValue = "127.0.0.3", paramLabel = "<ip>",
            description = "--all-in-one: the target's soft device address (default: ${DEFAULT-VALUE}).")
    String targetAddress;

    @Option(names = "--gateway-ib-address", defaultValue = "127.0.0.2", paramLabel = "<ip>",
            description = "--all-in-one: the gateway's soft device address (default: ${DEFAULT-VALUE}).")
    String gatewayIbAddress;

    @Option(names = "--flowc", defaultValue = "0", paramLabel = "<0|1>",
            description = "--all-in-one: FlowC of the gateway's route to the target, 0 or 1 (default: ${DEFAULT-VALUE}).")
    int flowc;

    @Option(names = "--verbose",
            description = "--all-in-one: keep the target's and gateway's per-connection log lines.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    PrintStream out = System.out;
    PrintStream err = System.err;

    @Override
    public Integer call() throws Exception {
        if (framing == Framing.IWARP) {
            return iwarp();
        }
        Perf.Settings settings;
        ViClientOptions o;
        Encapsulation encapsulation = framing.encapsulation;
        try {
            settings = settings();
            int max = Math.max(settings.latSize(), settings.bwSize());
            InetSocketAddress remote = gateway != null ? gateway
                    : new InetSocketAddress("127.0.0.1", encapsulation.defaultPort());
            o = new ViClientOptions(remote, discriminator, connect.reliability, flowControl, connect.key(), max, 8,
                    txDepth, Duration.ofMillis((long) (timeout * 1000)), encapsulation);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        // --json: the tables go nowhere, the document to stdout at the end
        PrintStream tables = json ? new PrintStream(OutputStream.nullOutputStream()) : out;
        JsonArray runs = new JsonArray();
        List<Perf.Result> viaGateway = null;
        if (!baselineOnly) {
            AllInOne local = null;
            try {
                if (allInOne) {
                    local = AllInOne.start(targetAddress, gatewayIbAddress, flowc, discriminator, verbose);
                    int port = encapsulation == Encapsulation.RDMATCP ? local.gateway().rdmaTcpPort() : local.gateway().port();
                    o = o.withRemote(new InetSocketAddress("127.0.0.1", port));
                    tables.printf(Locale.ROOT, "all-in-one: target on %s port 5000, gateway on %s (%s 127.0.0.1:%d), "
                            + "route \"%s\" FlowC %d%n", targetAddress, gatewayIbAddress, encapsulation.label(), port,
                            discriminator, flowc);
                }
                viaGateway = Perf.run(o, settings, "through the gateway", tables);
                runs.add(runJson("through the gateway", o, viaGateway));
            } catch (ViException e) {
                err.println("perf: through the gateway " + o.remote() + ": " + e.code() + " " + e.getMessage());
                return 1;
            } catch (IllegalStateException e) {
                err.println("perf: through the gateway " + o.remote() + ": " + e.getMessage());
                return 1;
            } finally {
                if (local != null) {
                    local.close();
                }
            }
        }
        JsonObject document = new JsonObject().put("command", "vibridge perf").put("runs", runs);
        if (baseline || baselineOnly) {
            int max = Math.max(settings.latSize(), settings.bwSize());
            Perf.Settings direct = settings;
            if (allSizes) {
                // the peer's receive buffers hold the largest size measured through the gateway, or the gateway's
                // default MTU (vi.max-mtu, 64 KiB) when there was none
                max = viaGateway == null || viaGateway.isEmpty() ? BASELINE_SWEEP_MAX
                        : viaGateway.stream().mapToInt(Perf.Result::bytes).max().orElse(BASELINE_SWEEP_MAX);
                direct = settings.sweepUpTo(max);
            }
            try (VitcpPeer peer = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), encapsulation, discriminator,
                    TargetMode.ECHO, 64, Math.max(max, 256), 16 << 20, o.key())) {
                ViClientOptions p = o.withRemote(peer.address());
                List<Perf.Result> results = Perf.run(p, direct, "baseline: direct to a vitcp peer", tables);
                runs.add(runJson("baseline: direct to a vitcp peer", p, results));
                if (viaGateway != null) {
                    Perf.printComparison(tables, viaGateway, results);
                    document.put("comparison", Perf.comparisonJson(viaGateway, results));
                }
            } catch (ViException | IllegalStateException e) {
                err.println("perf: baseline: " + e.getMessage());
                return 1;
            }
        }
        if (json) {
            out.println(document.encodePrettily());
        }
        return 0;
    }

    /** The sweep's largest size against the baseline peer when no gateway run set one: the gateway's vi.max-mtu. */
    private static final int BASELINE_SWEEP_MAX = 64 * 1024;

    /** The gateway's iWARP listener port when {@code --gateway} is not given. */
    private static final int IWARP_PORT = 7472;

    private JsonObject runJson(String label, ViClientOptions o, List<Perf.Result> results) {
        JsonArray rs = new JsonArray();
        results.forEach(r -> rs.add(r.toJson(reportGbits)));
        return new JsonObject().put("label", label).put("peer", o.remote().getHostString() + ":" + o.remote().getPort())
                .put("discriminator", o.discriminator()).put("framing", o.framing().label())
                .put("reliability", ViClientOptions.shortName(o.reliability())).put("results", rs);
    }

    /** {@code --framing iwarp}: through the gateway's iWARP listener (no baseline: no direct iWARP peer here). */
    private int iwarp() {
        Perf.Settings settings;
        InetSocketAddress remote;
        try {
            settings = settings();
            remote = gateway != null ? gateway : new InetSocketAddress("127.0.0.1", IWARP_PORT);
            if (baseline || baselineOnly) {
                throw new IllegalArgumentException("--baseline is not available with --framing iwarp");
            }
            if (json || allSizes || queuePairs > 1) {
                throw new IllegalArgumentException("--json, -a and -q are not available with --framing iwarp");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        AllInOne local = null;
        try {
            if (allInOne) {
                local = AllInOne.start(targetAddress, gatewayIbAddress, flowc, discriminator, verbose);
                remote = new InetSocketAddress("127.0.0.1", local.gateway().iwarpPorts().get(0));
                out.printf(Locale.ROOT, "all-in-one: target on %s port 5000, gateway on %s (iwarp %s), route \"%s\" "
                        + "FlowC %d%n", targetAddress, gatewayIbAddress, remote, discriminator, flowc);
            }
            IwarpPerf.run(remote, crc, settings, Duration.ofMillis((long) (timeout * 1000)), out);
            return 0;
        } catch (IOException | IllegalStateException e) {
            err.println("perf: through the gateway's iWARP listener " + remote + ": " + e.getMessage());
            return 1;
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    Perf.Settings settings() {
        EnumSet<Perf.Test> tests = switch (test) {
            case ALL -> EnumSet.allOf(Perf.Test.class);
            case CONNECT -> EnumSet.of(Perf.Test.CONNECT);
            case LAT -> {
                if (op != Op.SEND) {
                    throw new IllegalArgumentException("latency is measured for --op send only");
                }
                yield EnumSet.of(Perf.Test.SEND_LAT);
            }
            case BW -> EnumSet.of(op.bandwidth);
        };
        if (allSizes && size != null) {
            throw new IllegalArgumentException("-a runs every size: give -a or -s, not both");
        }
        int s = size == null ? -1 : size;
        return new Perf.Settings(tests, s < 0 ? 8 : s, s < 0 ? 64 * 1024 : s, iters == null ? 10_000 : iters,
                iters == null ? 5_000 : iters, duration == null ? null : Duration.ofMillis((long) (duration * 1000)),
                iters == null ? 1_000 : iters, connectThreads, connectWarmup,
                allSizes ? Perf.sweepSizes(Perf.SWEEP_MAX) : List.of(), queuePairs, reportGbits, err);
    }

    /** {@code --framing}: one of the two VI/TCP encapsulations, or an iWARP client of the gateway's iWARP listener. */
    enum Framing {
        VITCP(Encapsulation.VITCP),
        RDMATCP(Encapsulation.RDMATCP),
        IWARP(null);

        /** The VI/TCP encapsulation, null for iWARP. */
        final Encapsulation encapsulation;

        Framing(Encapsulation encapsulation) {
            this.encapsulation = encapsulation;
        }
    }

    /** {@code --op}: what the latency and bandwidth tests post. */
    enum Op {
        SEND(Perf.Test.SEND_BW),
        WRITE(Perf.Test.WRITE_BW),
        READ(Perf.Test.READ_BW),
        RECV(Perf.Test.RECV_BW);

        /** The bandwidth test of this operation. */
        final Perf.Test bandwidth;

        Op(Perf.Test bandwidth) {
            this.bandwidth = bandwidth;
        }
    }

    /** {@code --test}: which tests run. */
    enum Tests {
        LAT, BW, CONNECT, ALL
    }

    static final class FramingConverter extends OptionConverter<Framing> {
        FramingConverter() {
            super(text -> OptionConverter.byCliName(Framing.class, text));
        }
    }

    static final class OpConverter extends OptionConverter<Op> {
        OpConverter() {
            super(text -> OptionConverter.byCliName(Op.class, text));
        }
    }

    static final class TestsConverter extends OptionConverter<Tests> {
        TestsConverter() {
            super(text -> OptionConverter.byCliName(Tests.class, text));
        }
    }
}

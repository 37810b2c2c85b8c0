package io.vibridge.bench.vitcp;

import io.vibridge.vitcp.cli.EncapsulationConverter;
import io.vibridge.vitcp.provider.ConnectListener;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.IdleStrategy;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmark command (not a test): VI/TCP over loopback between two NICs in this process, against
 * {@link TcpBaseline} (blocking sockets): 8-byte Send/Receive round trips (p50, p99), 64 KiB Send and
 * RDMA Write streaming bandwidth; optionally the heap cost of idle connected VIs.
 */
@Command(name = "vitcp-bench", mixinStandardHelpOptions = true, description = "VI/TCP loopback benchmark vs plain TCP.")
public final class ViBench implements Callable<Integer> {
    static final Duration T = Duration.ofSeconds(60);
    static final int MSG = 64 * 1024;

    @Option(names = "--warmup", defaultValue = "5000", description = "Untimed round trips (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--samples", defaultValue = "20000", description = "Timed round trips (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--stream-mib", defaultValue = "1024", description = "MiB per streaming run (default ${DEFAULT-VALUE}).")
    int streamMib;

    @Option(names = "--depth", defaultValue = "16", description = "Outstanding 64 KiB messages (default ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--reliability", defaultValue = "RELIABLE_DELIVERY", description = "Reliability level (default ${DEFAULT-VALUE}).")
    ReliabilityLevel level;

    @Option(names = "--virtual-threads", description = "Read connections with virtual threads (default: platform threads).")
    boolean virtualThreads;

    @Option(names = "--idle-vis", defaultValue = "0", description = "Also connect this many idle VI pairs and report heap per VI.")
    int idleVis;

    @Option(names = "--poll", description = "Round trips: poll VipRecvDone instead of blocking in VipRecvWait.")
    boolean poll;

    @Option(names = "--idle", defaultValue = "block", description = "Both NICs' idle strategy: block, spin or backoff "
            + "(polling mode: readers poll their sockets and VipRecvWait polls its descriptor; default ${DEFAULT-VALUE}).")
    String idle;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds; medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--skip-baseline", description = "Do not run the TCP baseline.")
    boolean skipBaseline;

    @Option(names = "--framing", defaultValue = "vitcp", converter = EncapsulationConverter.class,
            description = "vitcp (native segments) or rdmatcp (seed-004 frames with CRC-32, VITCP-PROFILE §8); "
                    + "default ${DEFAULT-VALUE}.")
    Encapsulation framing;

    private ViNic server;
    private ViNic client;
    private ProtectionTag serverTag;
    private ProtectionTag clientTag;
    private int pairs;

    @Override
    public Integer call() throws Exception {
        NicConfig base = NicConfig.loopback().withPlatformThreads(!virtualThreads).withReadBufferSize(256 * 1024)
                .withIdle(IdleStrategy.parse(idle));
        server = ViNic.open(withFraming(base.withName("bench-server")));
        client = ViNic.open(base.withName("bench-client").withListen(null));
        serverTag = server.createPtag();
        clientTag = client.createPtag();
        try {
            System.out.printf("VI/TCP benchmark over loopback: %s, %s framing, %s reader threads, idle=%s, %d CPUs%n", level,
                    framing.label(), virtualThreads ? "virtual" : "platform", idle, Runtime.getRuntime().availableProcessors());
            TcpBaseline baseline = new TcpBaseline();
            long bytes = (long) streamMib << 20;
            // rounds alternate baseline and VI runs; medians damp the noise of a shared machine
            double[] bP50 = new double[rounds];
            double[] bP99 = new double[rounds];
            double[] vP50 = new double[rounds];
            double[] vP99 = new double[rounds];
            double[] bBw = new double[rounds];
            double[] vSend = new double[rounds];
            double[] vWrite = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                if (!skipBaseline) {
                    TcpBaseline.Latency l = baseline.pingPong(warmup, samples);
                    bP50[r] = l.p50Micros();
                    bP99[r] = l.p99Micros();
                }
                double[] lat = roundTrips();
                vP50[r] = lat[0];
                vP99[r] = lat[1];
                if (!skipBaseline) {
                    bBw[r] = baseline.streamBytes(bytes).mibPerSecond();
                }
                vSend[r] = stream(false, bytes);
                vWrite[r] = stream(true, bytes);
                System.out.printf("  round %d: RTT p50 %.1f/%.1f us (VI/TCP), Send %.0f, RDMA Write %.0f, TCP %.0f MiB/s%n",
                        r + 1, vP50[r], bP50[r], vSend[r], vWrite[r], bBw[r]);
            }
            System.out.printf("8-byte Send/Receive round trip (median of %d): p50 %.1f us, p99 %.1f us", rounds,
                    median(vP50), median(vP99));
            if (!skipBaseline) {
                System.out.printf(" | TCP baseline p50 %.1f us, p99 %.1f us | ratio p50 %.2f, p99 %.2f (target p50 <= 1.5)%n",
                        median(bP50), median(bP99), median(vP50) / median(bP50), median(vP99) / median(bP99));
            } else {
                System.out.println();
            }
            report("64 KiB Send streaming", median(vSend), skipBaseline ? 0 : median(bBw));
            report("64 KiB RDMA Write streaming", median(vWrite), skipBaseline ? 0 : median(bBw));
            if (idleVis > 0) {
                idle(idleVis);
            }
        } finally {
            client.close();
            server.close();
        }
        return 0;
    }

    private void report(String what, double mibs, double base) {
        System.out.printf("%s (median of %d): %.0f MiB/s", what, rounds, mibs);
        if (base > 0) {
            System.out.printf(" | TCP baseline %.0f MiB/s | ratio %.2f (target >= 0.8)%n", base, mibs / base);
        } else {
            System.out.println();
        }
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    /** Connects one VI pair; the server VI gets {@code serverRecvs} receives of {@code recvSize} first. */
    private Vi[] pair(ViAttributes serverAttrs, ViAttributes clientAttrs, List<Descriptor> serverRecvs,
            List<Descriptor> clientRecvs) throws Exception {
        Discriminator d = Discriminator.ofUtf8("bench-" + pairs++);
        Vi sv = server.createVi(serverAttrs, null, null);
        Vi cv = client.createVi(clientAttrs, null, null);
        for (Descriptor r : serverRecvs) {
            sv.postRecv(r);
        }
        for (Descriptor r : clientRecvs) {
            cv.postRecv(r);
        }
        try (ConnectListener l = server.listen(d)) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    l.connectWait(T).accept(sv);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            cv.connectRequest(Discriminator.ofUtf8("c"), server.address(d, framing), T);
            acceptor.join();
        }
        return new Vi[] {sv, cv};
    }

    /** The server NIC also listens for seed-004 framing when the benchmark runs in it. */
    private NicConfig withFraming(NicConfig c) {
        return framing == Encapsulation.RDMATCP
                ? c.withRdmaTcpListen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)) : c;
    }

    private MemoryRegion region(ViNic nic, ProtectionTag tag, int size) {
        return nic.registerMemory(ByteBuffer.allocateDirect(size), new MemoryAttributes(tag, true, true));
    }

    /** 8-byte ping-pong; returns {p50, p99} in microseconds. */
    private double[] roundTrips() throws Exception {
        MemoryRegion sm = region(server, serverTag, 64);
        MemoryRegion cm = region(client, clientTag, 64);
        Descriptor sr = Descriptor.receive().data(sm, 0, 8);
        Descriptor cr = Descriptor.receive().data(cm, 8, 8);
        Vi[] p = pair(ViAttributes.of(level, serverTag), ViAttributes.of(level, clientTag), List.of(sr), List.of(cr));
        Vi sv = p[0];
        Vi cv = p[1];
        int total = warmup + samples;
        // the echo runs in VipRecvNotify handlers, on the provider's reader thread
        Descriptor reply = Descriptor.send().data(sm, 0, 8);
        CountDownLatch echoed = new CountDownLatch(total);
        Runnable[] arm = new Runnable[1];
        arm[0] = () -> sv.recvNotify(r -> {
            if (r.isError() || echoed.getCount() == 0) {
                return;
            }
            sv.sendDone(); // dequeue the previous reply (complete: it went out before this request arrived)
            sv.postRecv(r);
            sv.postSend(reply);
            echoed.countDown();
            if (echoed.getCount() > 0) {
                arm[0].run();
            }
        });
        arm[0].run();
        Descriptor ping = Descriptor.send().data(cm, 0, 8);
        long[] rtt = new long[samples];
        for (int i = 0; i < total; i++) {
            long t0 = System.nanoTime();
            cv.postSend(ping);
            Descriptor r;
            if (poll) {
                // VIA 6.4.2 "poll a work queue": the consumer spins on VipRecvDone
                while ((r = cv.recvDone()) == null) {
                    Thread.onSpinWait();
                }
            } else {
                r = cv.recvWait(T);
            }
            long dt = System.nanoTime() - t0;
            cv.sendWait(T);
            cv.postRecv(r);
            if (i >= warmup) {
                rtt[i - warmup] = dt;
            }
        }
        echoed.await();
        cv.disconnect();
        sv.disconnect();
        Arrays.sort(rtt);
        return new double[] {rtt[(int) (samples * 0.50)] / 1000.0, rtt[Math.min(samples - 1, (int) (samples * 0.99))] / 1000.0};
    }

    /** Streams {@code bytes} in 64 KiB Sends or RDMA Writes; returns MiB/s measured at the receiver. */
    private double stream(boolean rdma, long bytes) throws Exception {
        MemoryRegion src = region(client, clientTag, MSG * depth);
        MemoryRegion dst = region(server, serverTag, MSG * depth);
        List<Descriptor> recvs = new ArrayList<>();
        for (int i = 0; i < (rdma ? 1 : 2 * depth); i++) {
            recvs.add(Descriptor.receive().data(dst, rdma ? 0 : (i % depth) * MSG, rdma ? 0 : MSG));
        }
        // Sends use descriptor flow control so the sender never outruns the receives
        Vi[] p = pair(ViAttributes.of(level, serverTag).withFlowControl(!rdma),
                ViAttributes.of(level, clientTag).withFlowControl(!rdma), recvs, List.of());
        Vi sv = p[0];
        Vi cv = p[1];
        long messages = bytes / MSG;
        long[] done = new long[1];
        Thread receiver = Thread.ofPlatform().daemon().name("bench-sink").start(() -> {
            try {
                long n = rdma ? 1 : messages;
                for (long i = 0; i < n; i++) {
                    Descriptor r = sv.recvWait(T);
                    if (r.isError()) {
                        throw new IllegalStateException("receive failed: " + r.status());
                    }
                    sv.postRecv(r);
                }
                done[0] = System.nanoTime();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Descriptor[] ring = new Descriptor[depth];
        for (int i = 0; i < depth; i++) {
            ring[i] = rdma ? Descriptor.rdmaWrite(dst.address(i * MSG), dst.handle()).data(src, i * MSG, MSG)
                    : Descriptor.send().data(src, i * MSG, MSG);
        }
        long t0 = System.nanoTime();
        for (long i = 0; i < messages; i++) {
            int slot = (int) (i % depth);
            if (i >= depth) {
                Descriptor c = cv.sendWait(T);
                if (c.isError()) {
                    throw new IllegalStateException("send failed: " + c.status());
                }
            }
            Descriptor d = ring[slot];
            if (rdma && i == messages - 1) {
                d.immediate(1); // the last write tells the receiver it is complete
            }
            cv.postSend(d);
        }
        receiver.join();
        for (long i = Math.max(0, messages - depth); i < messages; i++) {
            cv.sendWait(T);
        }
        double secs = (done[0] - t0) / 1e9;
        cv.disconnect();
        sv.disconnect();
        return (messages * (double) MSG / (1 << 20)) / secs;
    }

    /** Connects {@code n} idle VI pairs on fresh NICs with the default (virtual) threads; reports heap per VI. */
    private void idle(int n) throws Exception {
        ViNic keepServer = server;
        ViNic keepClient = client;
        ProtectionTag keepServerTag = serverTag;
        ProtectionTag keepClientTag = clientTag;
        server = ViNic.open(withFraming(NicConfig.loopback().withName("idle-server")));
        client = ViNic.open(NicConfig.loopback().withName("idle-client").withListen(null));
        serverTag = server.createPtag();
        clientTag = client.createPtag();
        try {
            long before = usedHeapAfterGc();
            List<Vi[]> keep = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                keep.add(pair(ViAttributes.of(level, serverTag), ViAttributes.of(level, clientTag), List.of(), List.of()));
            }
            long after = usedHeapAfterGc();
            double perPairKiB = (after - before) / 1024.0 / n;
            System.out.printf("%d idle connected VI pairs (%d connected VIs on one NIC, virtual reader threads, both ends "
                    + "in this JVM): heap +%.1f MiB = %.1f KiB per pair, %.1f KiB per VI (target <= 64 KiB)%n", n,
                    server.viCount(), (after - before) / 1048576.0, perPairKiB, perPairKiB / 2);
            for (Vi[] p : keep) {
                p[1].disconnect();
                p[0].disconnect();
            }
        } finally {
            client.close();
            server.close();
            server = keepServer;
            client = keepClient;
            serverTag = keepServerTag;
            clientTag = keepClientTag;
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ViBench()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }
}

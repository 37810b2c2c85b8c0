package io.vibridge.vitcp.bench;

import io.vibridge.vitcp.provider.ConnectListener;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
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

    @Option(names = "--skip-baseline", description = "Do not run the TCP baseline.")
    boolean skipBaseline;

    private ViNic server;
    private ViNic client;
    private ProtectionTag serverTag;
    private ProtectionTag clientTag;
    private int pairs;

    @Override
    public Integer call() throws Exception {
        NicConfig base = NicConfig.loopback().withPlatformThreads(!virtualThreads);
        server = ViNic.open(base.withName("bench-server"));
        client = ViNic.open(base.withName("bench-client").withListen(null));
        serverTag = server.createPtag();
        clientTag = client.createPtag();
        try {
            System.out.printf("VI/TCP benchmark over loopback: %s, %s reader threads, %d CPUs%n", level,
                    virtualThreads ? "virtual" : "platform", Runtime.getRuntime().availableProcessors());
            TcpBaseline.Latency baseLat = null;
            TcpBaseline.Bandwidth baseBw = null;
            TcpBaseline baseline = new TcpBaseline();
            if (!skipBaseline) {
                baseLat = baseline.pingPong(warmup, samples);
            }
            double[] lat = roundTrips();
            System.out.printf("8-byte Send/Receive round trip: p50 %.1f us, p99 %.1f us", lat[0], lat[1]);
            if (baseLat != null) {
                System.out.printf(" | TCP baseline p50 %.1f us, p99 %.1f us | ratio p50 %.2f, p99 %.2f (target p50 <= 1.5)%n",
                        baseLat.p50Micros(), baseLat.p99Micros(), lat[0] / baseLat.p50Micros(),
                        lat[1] / baseLat.p99Micros());
            } else {
                System.out.println();
            }
            long bytes = (long) streamMib << 20;
            if (!skipBaseline) {
                baseBw = baseline.streamBytes(bytes);
            }
            double send = stream(false, bytes);
            report("64 KiB Send streaming", send, baseBw);
            double write = stream(true, bytes);
            report("64 KiB RDMA Write streaming", write, baseBw);
            if (idleVis > 0) {
                idle(idleVis);
            }
        } finally {
            client.close();
            server.close();
        }
        return 0;
    }

    private static void report(String what, double mibs, TcpBaseline.Bandwidth base) {
        System.out.printf("%s: %.0f MiB/s", what, mibs);
        if (base != null) {
            System.out.printf(" | TCP baseline %.0f MiB/s | ratio %.2f (target >= 0.8)%n", base.mibPerSecond(),
                    mibs / base.mibPerSecond());
        } else {
            System.out.println();
        }
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
            cv.connectRequest(Discriminator.ofUtf8("c"), server.address(d), T);
            acceptor.join();
        }
        return new Vi[] {sv, cv};
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
        Thread echo = Thread.ofPlatform().daemon().name("bench-echo").start(() -> {
            try {
                Descriptor reply = Descriptor.send().data(sm, 0, 8);
                for (int i = 0; i < total; i++) {
                    Descriptor r = sv.recvWait(T);
                    sv.postRecv(r);
                    sv.postSend(reply);
                    sv.sendWait(T);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Descriptor ping = Descriptor.send().data(cm, 0, 8);
        long[] rtt = new long[samples];
        for (int i = 0; i < total; i++) {
            long t0 = System.nanoTime();
            cv.postSend(ping);
            Descriptor r = cv.recvWait(T);
            long dt = System.nanoTime() - t0;
            cv.sendWait(T);
            cv.postRecv(r);
            if (i >= warmup) {
                rtt[i - warmup] = dt;
            }
        }
        echo.join();
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
        for (int i = 0; i < (rdma ? 1 : depth); i++) {
            recvs.add(Descriptor.receive().data(dst, rdma ? 0 : i * MSG, rdma ? 0 : MSG));
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

    /** Connects {@code n} idle VI pairs and reports heap used per VI. */
    private void idle(int n) throws Exception {
        long before = usedHeapAfterGc();
        List<Vi[]> keep = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keep.add(pair(ViAttributes.of(level, serverTag), ViAttributes.of(level, clientTag), List.of(), List.of()));
        }
        long after = usedHeapAfterGc();
        double perPairKiB = (after - before) / 1024.0 / n;
        System.out.printf("%d idle connected VI pairs (%d VIs on the server NIC, both ends in this JVM): heap +%.1f MiB, "
                + "%.1f KiB per pair, %.1f KiB per VI (target <= 64 KiB)%n", n, server.viCount(),
                (after - before) / 1048576.0, perPairKiB, perPairKiB / 2);
        for (Vi[] p : keep) {
            p[1].disconnect();
            p[0].disconnect();
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

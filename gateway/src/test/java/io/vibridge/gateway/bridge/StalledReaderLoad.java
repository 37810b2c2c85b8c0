package io.vibridge.gateway.bridge;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.DeviceCounters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The stalled-reader load through the gateway, in one JVM: a target that floods every connection with
 * 64 KiB SENDs (FlowC 1), the gateway, and {@code n} VI/TCP clients that connect and never read. Once the flood
 * has stopped, prints the process's CPU (gateway, target and idle clients; {@code /proc/self/stat}) and the RNR
 * NAKs a second over 10 s (verbs-backend README, "RNR waits"). {@code 0ms 0ms} gives the coded time alone (no
 * floor, no backoff) on both the gateway and the target:
 *
 * <pre>java -cp gateway/target/test-classes:$(cat gateway/target/runtime-classpath.txt) \
 *     io.vibridge.gateway.bridge.StalledReaderLoad 50 1ms 100ms</pre>
 */
public final class StalledReaderLoad {
    private StalledReaderLoad() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        String min = args[1];
        String max = args[2];
        String minDev = Long.toString(Long.parseLong(min.replace("ms", "")) * 1000);
        String maxDev = Long.toString(Long.parseLong(max.replace("ms", "")) * 1000);
        List<ViTcpDriver.Raw> clients = new ArrayList<>();
        try (EchoTarget target = new EchoTarget("127.0.0.141", 5000, 4, 65536,
                d -> d.withOption("min-rnr-wait-us", minDev).withOption("max-rnr-wait-us", maxDev));
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.142",
                        TestSupport.route("flood", "127.0.0.141", 5000, 1, 4),
                        "infiniband { min-rnr-wait = " + min + ", max-rnr-wait = " + max + " }"))) {
            target.flood = true;
            for (int i = 0; i < n; i++) {
                ViTcpDriver.Raw r = new ViTcpDriver.Raw(g.port());
                r.called = "flood";
                r.connect(30000);
                clients.add(r);
            }
            long last = -1;
            int stable = 0;
            while (stable < 10) {                    // the flood stopped moving: every connection is stalled
                Thread.sleep(200);
                long now = target.flooded.get();
                stable = now == last ? stable + 1 : 0;
                last = now;
            }
            Thread.sleep(2_000);
            long cpu0 = cpuTicks();
            DeviceCounters g0 = g.device().counters();
            long t0 = System.nanoTime();
            Thread.sleep(10_000);
            long cpu1 = cpuTicks();
            DeviceCounters g1 = g.device().counters();
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%d stalled readers, RNR wait %s..%s: CPU %.3f cores, RNR NAKs sent by the gateway %.0f/s,"
                    + " packets in %.0f/s over %.1f s%n", n, min, max, (cpu1 - cpu0) / 100.0 / s,
                    (g1.rnrNaksSent() - g0.rnrNaksSent()) / s, (g1.packetsIn() - g0.packetsIn()) / s, s);
            for (ViTcpDriver.Raw r : clients) {
                r.close();
            }
        }
        System.exit(0);
    }

    /** utime + stime of this process, in clock ticks (USER_HZ = 100). */
    private static long cpuTicks() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}

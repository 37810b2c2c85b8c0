package io.vibridge.verbs.soft;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.UnaryOperator;

/**
 * The RNR side of a stalled-reader load (the gateway's test {@code hostile/StalledReaders}), at the verbs level:
 * {@code n} RC connections between two soft devices in this JVM, each with one SEND posted to a receiver that
 * never posts a receive (a consumer that stopped taking messages, as the gateway stops reposting while its client
 * does not read). The receiver NAKs with RNR timer code 12 (0.64 ms), what the gateway and the demo target send. Prints the process's CPU and the
 * RNR NAKs a second over a 10 s window after a warm-up:
 *
 * <pre>java -cp verbs-backend/target/test-classes:verbs-backend/target/classes:... \
 *     io.vibridge.verbs.soft.StalledReceivers 50 1000 100000</pre>
 *
 * Arguments: connections, min-rnr-wait-us, max-rnr-wait-us (0 0 = the coded time alone, without floor or
 * backoff).
 */
public final class StalledReceivers {
    private StalledReceivers() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        String min = args[1];
        String max = args[2];
        UnaryOperator<DeviceConfig> opts = d -> d.withProvider("soft").withOption("min-rnr-wait-us", min)
                .withOption("max-rnr-wait-us", max);
        VerbsDevice devA = TestDevices.open(opts);
        VerbsDevice devB = TestDevices.open(opts);
        BlockingQueue<CmEvent> eventsA = new LinkedBlockingQueue<>();
        BlockingQueue<CmEvent> eventsB = new LinkedBlockingQueue<>();
        List<Endpoint> ends = new ArrayList<>();
        try (var listener = devB.connectionManager().listen(Connected.SID, eventsB::add, null)) {
            for (int i = 0; i < n; i++) {
                Endpoint a = new Endpoint(devA, 1 << 16, 8);
                Endpoint b = new Endpoint(devB, 1 << 16, 8);
                ends.add(a);
                ends.add(b);
                devA.connectionManager().connect(Connected.params(devB, new byte[0]), a.qp, eventsA::add, null);
                CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) Connected.take(eventsB);
                req.id().accept(b.qp, AcceptParams.defaults(new byte[0]).withRnr(7, 12));   // 0.64 ms, as the gateway
                Connected.take(eventsA);
                Connected.take(eventsB);
            }
            for (int i = 0; i < ends.size(); i += 2) {
                Endpoint a = ends.get(i);
                a.post(new SendWorkRequest().set(1, WrOpcode.SEND, a.mr, 0, 1024));
            }
            Thread.sleep(3_000);
            long cpu0 = cpuTicks();
            DeviceCounters a0 = devA.counters();
            DeviceCounters b0 = devB.counters();
            long t0 = System.nanoTime();
            Thread.sleep(10_000);
            long cpu1 = cpuTicks();
            DeviceCounters a1 = devA.counters();
            DeviceCounters b1 = devB.counters();
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%d stalled connections, min-rnr-wait-us %s, max-rnr-wait-us %s: CPU %.3f cores, "
                    + "RNR NAKs %.0f/s, RNR waiting %.1f QP-seconds/s over %.1f s%n", n, min, max,
                    (cpu1 - cpu0) / 100.0 / s, (b1.rnrNaksSent() - b0.rnrNaksSent()) / s,
                    (a1.rnrWaitNanos() - a0.rnrWaitNanos()) / 1e9 / s, s);
        } finally {
            for (Endpoint e : ends) {
                e.close();
            }
            devA.close();
            devB.close();
        }
    }

    /** utime + stime of this process, in clock ticks (USER_HZ = 100). */
    private static long cpuTicks() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}

package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.VerbsDevice;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The mixed workload between two JVM processes, faults on in both directions from connection setup on. */
class TwoProcessTest {
    @Test
    void mixedWorkloadAcrossProcessesWithFaults() throws Exception {
        long seed = 77;
        int count = 3000;
        String faults = "drop=0.05,dup=0.01,reorder=0.01,corrupt=0.005,seed=5";
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process peer = new ProcessBuilder(java.toString(), "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ChaosPeerMain.class.getName(), Long.toString(seed), Integer.toString(count), faults)
                .redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(1);
        String[] peerIp = new String[1];
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (output) {
                        output.add(line);
                    }
                    if (line.startsWith("READY ")) {
                        peerIp[0] = line.substring(6);
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // process ended
            }
        });
        try (VerbsDevice dev = TestDevices.open(c -> c.withProvider("soft").withOption("faults",
                "drop=0.05,dup=0.01,reorder=0.01,corrupt=0.005,seed=6"))) {
            assertThat(ready.await(60, TimeUnit.SECONDS)).as("peer ready; output %s", output).isTrue();
            String result = ChaosWorkload.run(dev, InetAddress.getByName(peerIp[0]), seed, count, () -> { });
            assertThat(result).isNull();
            assertThat(peer.waitFor(120, TimeUnit.SECONDS)).isTrue();
            reader.get(30, TimeUnit.SECONDS);
            System.out.println("two-process client " + dev.counters());
            synchronized (output) {
                assertThat(output).as("peer output").contains("RESULT OK");
            }
            assertThat(peer.exitValue()).isZero();
            assertThat(dev.counters().faultDrops()).isPositive();
        } finally {
            peer.destroyForcibly();
        }
    }
}

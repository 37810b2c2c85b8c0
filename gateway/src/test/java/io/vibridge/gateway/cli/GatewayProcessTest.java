package io.vibridge.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vibridge gateway} in a JVM of its own: SIGTERM closes it in order (the signal logged, the device
 * closed, "gateway stopped") and the JVM exits with 0 by itself; a staging pool the JVM's memory cannot hold
 * stops the start with one line.
 */
class GatewayProcessTest {

    /**
     * A real JVM with -XX:MaxDirectMemorySize=32m: a staging pool of 64 MiB cannot fit, so the start stops at
     * once with exit 2 and one line naming the key and the sizes (instead of the JVM's or the kernel's refusal
     * under load).
     */
    @Test
    void stagingThatCannotFitTheJvmsDirectMemoryStopsTheStart(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("big.conf");
        Files.writeString(conf, "vibridge.gateway.staging.max-slots = 1024\n");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxDirectMemorySize=32m", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "gateway", "--config", conf.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(err).isEqualTo(2);
        assertThat(err.lines().toList()).singleElement().asString()
                .startsWith("vibridge gateway: configuration key vibridge.gateway.staging.max-slots: "
                        + "1024 slots of 65552 B (staging.slot-size) = 64 MiB do not fit in 24 MiB")
                .contains("JVM direct memory limit 32 MiB", "heap limit 256 MiB");
    }

    @Test
    void sigtermStopsTheGatewayInOrderWithExitCodeZero(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("gateway.conf");
        Files.writeString(conf, """
                vibridge.gateway {
                  listen { host = "127.0.0.1", port = 0, rdmatcp-port = off }
                  admin { host = "127.0.0.1", port = 0 }
                  infiniband { provider = soft, address = "127.0.0.126" }
                  shutdown-grace = 1s
                }
                """);
        Process gateway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                Main.class.getName(), "gateway", "--config", conf.toString()).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                    StandardCharsets.UTF_8))) {
                r.lines().forEach(lines::add);
            } catch (Exception ignored) {
                // the process ended
            }
        });
        try {
            String line;
            do {
                line = lines.poll(60, TimeUnit.SECONDS);
                assertThat(line).as("the gateway's start line").isNotNull();
            } while (!line.startsWith("vibridge gateway: VI/TCP on 127.0.0.1:"));
            // SIGTERM; Process.destroy() would also close the pipe this test reads the shutdown lines from
            assertThat(gateway.toHandle().destroy()).isTrue();
            assertThat(gateway.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
            assertThat(gateway.exitValue()).isZero();
            reader.join();
            List<String> after = List.copyOf(lines);
            assertThat(after).anyMatch(l -> l.contains("SIGTERM received: stopping"))
                    .anyMatch(l -> l.contains("soft device soft-127.0.0.126 closed"))
                    .anyMatch(l -> l.endsWith("gateway stopped"));
        } finally {
            gateway.destroyForcibly();
        }
    }
}

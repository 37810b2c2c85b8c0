package io.vibridge.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vibridge gateway} refuses to start on a bad configuration, naming the key (exit 2). */
class GatewayCommandTest {

    @Test
    void badConfigurationStopsTheStartNamingTheKey(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "vibridge.gateway.limits.max-connections = -5\n");
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.execute("gateway", "--config", conf.toString());
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("vibridge.gateway.limits.max-connections");
    }

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
                .startsWith("vibridge gateway: bad configuration: configuration key vibridge.gateway.staging.max-slots: "
                        + "1024 slots of 65552 B (staging.slot-size) = 64 MiB do not fit in 24 MiB")
                .contains("JVM direct memory limit 32 MiB", "heap limit 256 MiB");
    }

    @Test
    void missingConfigurationFileIsReported(@TempDir Path dir) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.execute("gateway", "--config", dir.resolve("nope.conf").toString());
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("nope.conf");
    }
}

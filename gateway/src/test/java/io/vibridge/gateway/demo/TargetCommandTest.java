package io.vibridge.gateway.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.cli.TargetCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code vibridge target} refuses bad options with one clear line and exit code 2 (no device opened). */
class TargetCommandTest {

    private static String run(int expectedCode, String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
            assertThat(new CommandLine(new TargetCommand()).execute(args)).isEqualTo(expectedCode);
        } finally {
            System.setErr(saved);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void badOptions_exitCode2_withTheReason() {
        assertThat(run(2, "--address", "127.0.0.59", "--mode", "bogus")).contains("'--mode': must be echo, sink, source or echo-ack-writes, got 'bogus'");
        assertThat(run(2, "--address", "127.0.0.59", "--receive-buffers", "2")).contains("receive-buffers must be 3..65535");
        assertThat(run(2, "--address", "127.0.0.59", "--service-id", "foo")).contains("unknown service-id scheme \"foo\"");
        assertThat(run(2, "--address", "127.0.0.59", "--region-size", "12x")).contains("not a size: '12x'");
        assertThat(run(2, "--address", "not-an-ip")).contains("--address must be an IP literal");
        assertThat(run(2, "--address", "127.0.0.59", "--port", "70000")).contains("port must be 0..65535");
    }
}

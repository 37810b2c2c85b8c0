package io.vibridge.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.soft.TestDevices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The SPI conformance scenarios the VM runs on rdma-core (rxe0, siw0) pass on the soft provider too: they test the
 * SPI's contract, not one provider's habits.
 */
class SoftConformanceTest {
    @Test
    void everyScenarioPassesOnTheSoftProvider() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        VerbsConformance.Result r;
        try (VerbsDevice d = TestDevices.open(c -> c.withProvider("soft").withOption("udp-offload", "off"));
             PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            r = new VerbsConformance(d, out, 10_000).run(n -> true, false);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(r.failures()).as(text).isEmpty();
        assertThat(r.skipped()).as(text).isZero();
        assertThat(r.passed()).isEqualTo(16);
        assertThat(text).contains("PASS send-recv-checksums", "PASS rnr-no-receive", "PASS bad-rkey",
                "16 passed, 0 failed, 0 skipped");
    }

    /** The pairs connected through the CM (as on iWARP, which has no out-of-band connect) pass the same scenarios. */
    @Test
    void everyScenarioPassesWithPairsConnectedThroughTheCm() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        VerbsConformance.Result r;
        try (VerbsDevice d = TestDevices.open(c -> c.withProvider("soft").withOption("udp-offload", "off"));
             PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            r = new VerbsConformance(d, out, 10_000).withCmPairs().run(n -> true, false);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(r.failures()).as(text).isEmpty();
        assertThat(text).contains("RTS through the CM", "16 passed, 0 failed, 0 skipped");
    }
}

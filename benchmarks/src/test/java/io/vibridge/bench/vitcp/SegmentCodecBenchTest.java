package io.vibridge.bench.vitcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.bench.Blackholes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The benchmark measures the success path: its segments are valid, so no iteration throws. */
class SegmentCodecBenchTest {

    private final SegmentCodecBench bench = new SegmentCodecBench();

    @BeforeEach
    void setUp() {
        bench.setup();
    }

    @Test
    void validatesBothDataSegments() {
        assertThat(bench.frameLength()).isEqualTo(SegmentCodecBench.SEND_LENGTH);
        assertThat(bench.validateSend()).isEqualTo(SegmentCodecBench.PAYLOAD);
        assertThat(bench.validateRdmaWrite()).isEqualTo(SegmentCodecBench.PAYLOAD);
    }

    @Test
    void writesAndReadsHeaders() {
        bench.headerWrite();
        bench.headerRead(Blackholes.create());
    }
}

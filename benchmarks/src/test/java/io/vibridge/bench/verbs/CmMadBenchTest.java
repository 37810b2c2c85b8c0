package io.vibridge.bench.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CmMadBenchTest {

    @Test
    void theReqSurvivesTheRoundTrip() {
        CmMadBench bench = new CmMadBench();
        assertThat(bench.encodeDecodeReq()).isEqualTo(CmMadBench.request());
    }
}

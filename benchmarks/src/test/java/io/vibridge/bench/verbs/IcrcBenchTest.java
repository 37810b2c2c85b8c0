package io.vibridge.bench.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.soft.wire.IcrcCheck;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each benchmark takes the path it is named for: ID 0 valid, the other ID found only by the solver. */
class IcrcBenchTest {

    private final IcrcBench bench = new IcrcBench();

    @BeforeEach
    void setUp() {
        bench.payload = 1024;
        bench.setup();
    }

    @Test
    void ourPacketIsValidWithIpId0() {
        bench.sealIpv4();
        assertThat(bench.verifyIpId0()).isEqualTo(IcrcCheck.VALID);
        assertThat(bench.ipv4IdExpected()).isZero();
    }

    @Test
    void theRxeLikePacketNeedsTheSolver() {
        assertThat(bench.verifyAnyIpIdCachedLength()).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);
        assertThat(bench.verifyAnyIpIdCachedLength()).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);
    }

    @Test
    void theBasisRebuildAlternatesBetweenTwoShortLengths() {
        for (int i = 0; i < 4; i++) {
            assertThat(bench.anyIpIdBasisRebuild()).isBetween(-1, 0xFFFF);
        }
    }
}

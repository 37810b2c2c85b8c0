package io.vibridge.bench.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.bench.Blackholes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every iteration is a valid FlowC 0 exchange: the header validates and the credits do not run out. */
class FlowControlBenchTest {

    private final FlowControlBench bench = new FlowControlBench();

    @BeforeEach
    void setUp() {
        bench.setup();
    }

    @Test
    void creditsStayWhereTheyStartedOverManyExchanges() {
        int first = bench.sendAndReceive();
        for (int i = 0; i < 100_000; i++) {
            assertThat(bench.sendAndReceive()).isEqualTo(first);
        }
        assertThat(first).isPositive();
    }

    @Test
    void writesAndReadsAValidHeader() {
        bench.headerWrite();
        bench.headerRead(Blackholes.create());
    }
}

package io.vibridge.bench.vitcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the baseline briefly over real loopback sockets; checks consistency, never speed. */
class TcpBaselineTest {

    private final TcpBaseline baseline = new TcpBaseline();

    @Test
    void pingPongReportsOrderedPercentiles() throws Exception {
        TcpBaseline.Latency l = baseline.pingPong(200, 2_000);
        assertThat(l.samples()).isEqualTo(2_000);
        assertThat(l.minMicros()).isPositive();
        assertThat(l.p50Micros()).isGreaterThanOrEqualTo(l.minMicros());
        assertThat(l.p99Micros()).isGreaterThanOrEqualTo(l.p50Micros());
        assertThat(l.maxMicros()).isGreaterThanOrEqualTo(l.p99Micros());
    }

    @Test
    void streamsExactlyTheRequestedBytes() throws Exception {
        long bytes = 8L * 1024 * 1024 + 123; // a partial last chunk
        TcpBaseline.Bandwidth b = baseline.streamBytes(bytes);
        assertThat(b.bytes()).isEqualTo(bytes);
        assertThat(b.nanos()).isPositive();
        assertThat(b.mibPerSecond()).isPositive();
    }

    @Test
    void streamsForADuration() throws Exception {
        TcpBaseline.Bandwidth b = baseline.streamFor(Duration.ofMillis(100));
        assertThat(b.bytes()).isPositive();
        assertThat(b.mibPerSecond()).isPositive();
    }

    @Test
    void runCombinesBoth() throws Exception {
        TcpBaseline.Result r = baseline.run(10, 100, 1 << 20);
        assertThat(r.latency().samples()).isEqualTo(100);
        assertThat(r.bandwidth().bytes()).isEqualTo(1 << 20);
    }

    @Test
    void percentileIsNearestRank() {
        long[] sorted = new long[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = i + 1;
        }
        assertThat(TcpBaseline.percentile(sorted, 0.50)).isEqualTo(50);
        assertThat(TcpBaseline.percentile(sorted, 0.99)).isEqualTo(99);
        assertThat(TcpBaseline.percentile(new long[] {7}, 0.99)).isEqualTo(7);
    }

    @Test
    void refusesBadArguments() throws Exception {
        assertThatThrownBy(() -> baseline.pingPong(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> baseline.streamBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> baseline.streamFor(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TcpBaseline(InetAddress.getByAddress(new byte[] {10, 0, 0, 1})))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

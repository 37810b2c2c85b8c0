package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.transport.RnrBackoff;
import io.vibridge.verbs.soft.wire.Aeth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The requester's RNR wait (IBA 9.7.5.2.8): at least the NAK's coded time, at least the device's floor,
 * backing off while the receiver stays without a receive WQE; the RNR retry count still ends the wait. The
 * assertions bound how many retries fit in a window that the test measures itself, so a slow host only makes
 * the counts smaller: none asserts on speed.
 */
class RnrWaitTest {
    private Connected c;

    @AfterEach
    void close() {
        if (c != null) {
            c.close();
        }
    }

    private Connected connect(int rnrRetry, int timerCode, long minUs, long maxUs) throws Exception {
        return new Connected(1 << 16, 32, null, AcceptParams.defaults(new byte[0]).withRnr(rnrRetry, timerCode),
                d -> d.withProvider("soft").withOption("min-rnr-wait-us", Long.toString(minUs))
                        .withOption("max-rnr-wait-us", Long.toString(maxUs)));
    }

    /** Sends one message to a QP with no receive posted and counts the RNR NAKs for {@code windowMillis}. */
    private long[] stall(long windowMillis) throws Exception {
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 100));
        long end = System.nanoTime() + 30_000_000_000L;
        while (c.devB.counters().rnrNaksSent() < 1 && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        long naks0 = c.devB.counters().rnrNaksSent();
        long t0 = System.nanoTime();
        Thread.sleep(windowMillis);
        long naks = c.devB.counters().rnrNaksSent() - naks0;
        long elapsed = System.nanoTime() - t0;
        return new long[] {naks, elapsed};
    }

    @Test
    void backoffTimes() {
        RnrBackoff b = new RnrBackoff(1_000_000, 100_000_000);
        long code12 = Aeth.rnrTimerMicros(12) * 1000L;                // 0.64 ms
        assertThat(b.waitNanos(code12, 0)).isEqualTo(1_000_000);       // the floor
        assertThat(b.waitNanos(code12, 1)).isEqualTo(2_000_000);       // doubled per NAK in a row
        assertThat(b.waitNanos(code12, 6)).isEqualTo(64_000_000);
        assertThat(b.waitNanos(code12, 7)).isEqualTo(100_000_000);     // capped
        assertThat(b.waitNanos(code12, 1_000)).isEqualTo(100_000_000);
        long code0 = Aeth.rnrTimerMicros(0) * 1000L;                  // 655.36 ms, above the cap
        assertThat(b.waitNanos(code0, 0)).isEqualTo(code0);
        assertThat(b.waitNanos(code0, 5)).isEqualTo(code0);
        RnrBackoff iba = new RnrBackoff(0, 0);                          // the coded time alone
        for (int code = 0; code < 32; code++) {
            assertThat(iba.waitNanos(Aeth.rnrTimerMicros(code) * 1000L, 3)).isEqualTo(Aeth.rnrTimerMicros(code) * 1000L);
        }
    }

    @Test
    void theCodedTimeIsWaitedBeforeEachRetry() throws Exception {
        c = connect(7, 20, 0, 0);                                      // 10.24 ms, no floor, no backoff
        long[] r = stall(500);
        long coded = Aeth.rnrTimerMicros(20) * 1000L;
        assertThat(r[0]).isGreaterThan(0).isLessThanOrEqualTo(r[1] / coded + 1);
    }

    @Test
    void aStalledReceiverCostsFewRetries() throws Exception {
        // code 1 (10 us) asks for a retry every 10 us: the floor (2 ms) and the backoff (to 20 ms) bound it
        c = connect(7, 1, 2_000, 20_000);
        DeviceCounters before = c.devA.counters();
        long[] r = stall(1_000);
        // waits 2, 4, 8, 16, then 20 ms: at most 4 + elapsed / 20 ms retries (the old code: one per 10 us)
        assertThat(r[0]).isGreaterThan(0).isLessThanOrEqualTo(4 + r[1] / 20_000_000L + 1);
        DeviceCounters after = c.devA.counters();
        long waits = after.rnrWaits() - before.rnrWaits();
        // every wait that ended lasted at least the floor: the counter of time spent waiting says so
        assertThat(after.rnrWaitNanos() - before.rnrWaitNanos()).isGreaterThanOrEqualTo((waits - 1) * 2_000_000L);
        assertThat(after.named()).containsKey("rnr_wait_nanos");
        // the receiver recovers: the message goes through after the next retry
        c.b.postRecv(7, 0, 100);
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.b.next().byteLength).isEqualTo(100);
    }

    @Test
    void theRnrRetryCountStillEndsTheWait() throws Exception {
        c = connect(3, 1, 1_000, 50_000);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 10));
        assertThat(c.a.next().status).isEqualTo(WcStatus.RNR_RETRY_EXCEEDED);
        // the first NAK and three retries, each NAKed: three waits, then the error
        assertThat(c.devA.counters().rnrNaksReceived()).isEqualTo(4);
        assertThat(c.devA.counters().rnrWaits()).isEqualTo(3);
        assertThat(c.devA.counters().rnrWaitNanos()).isGreaterThanOrEqualTo((1 + 2 + 4) * 1_000_000L);
    }
}

package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.DeviceCounters;
import org.junit.jupiter.api.Test;

/**
 * A stalled reader through the gateway: a client that stops reading while the target floods it (FlowC 1, the
 * route default) leaves the target's SENDs in RNR retry once the gateway's receive slots wait for the client.
 * With the coded time alone (code 12, 0.64 ms; IBA 9.7.5.2.8) a stalled connection could retry some 1,500 times
 * a second on each side; with the floor and the backoff (infiniband.min-rnr-wait, max-rnr-wait; the target's
 * soft device has the same defaults; verbs-backend README, "RNR waits") it retries about 10 times a second, one
 * per max-rnr-wait. The window is measured, so a slow host only lowers the count.
 */
class StalledReaderRnrTest {

    @Test
    void aStalledReaderCostsAFewRnrRetriesASecond() throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.141", 5000, 4, 65536);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.142",
                        TestSupport.route("flood", "127.0.0.141", 5000, 1, 4), ""))) {
            target.flood = true;
            try (ViTcpDriver.Raw r = new ViTcpDriver.Raw(g.port())) {
                r.called = "flood";
                r.connect(30000);                    // plenty of receives announced, but it never reads its socket
                long end = System.nanoTime() + TestSupport.T.toNanos();
                while (g.device().counters().rnrNaksSent() < 20 && System.nanoTime() < end) {
                    Thread.sleep(50);              // backpressure reached the target: the gateway NAKs its SENDs
                }
                assertThat(g.device().counters().rnrNaksSent()).isGreaterThanOrEqualTo(20);
                Thread.sleep(1_000);               // past the backoff's ramp (1, 2, 4 .. 64 ms)
                long naks0 = g.device().counters().rnrNaksSent();
                DeviceCounters t0 = target.device.counters();
                long start = System.nanoTime();
                Thread.sleep(2_000);
                long elapsed = System.nanoTime() - start;
                long naks = g.device().counters().rnrNaksSent() - naks0;
                DeviceCounters t1 = target.device.counters();
                // one RNR retry per 100 ms (max-rnr-wait) per stalled SEND stream, and a few for timing slack
                assertThat(naks).isLessThanOrEqualTo(elapsed / 100_000_000L + 5);
                // the target's QP spent the window waiting, and says so
                assertThat(t1.rnrWaitNanos() - t0.rnrWaitNanos()).isGreaterThanOrEqualTo(elapsed / 2);
                assertThat(g.registry().scrape()).contains("vibridge_ib_rnr_wait_seconds_total");
            }
        }
    }
}

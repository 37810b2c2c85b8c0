package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Devices whose receive threads poll (device option {@code idle}): every operation still completes, round trips
 * included, and a backoff thread that went back to blocking after a quiet spell still takes the next packet.
 */
class PollingModeTest {

    @ParameterizedTest
    @ValueSource(strings = {"spin", "backoff"})
    void everyOperationAndRoundTripsWhilePolling(String idle) throws Exception {
        try (Connected c = new Connected(1 << 20, 32, null, null, d -> d.withProvider("soft").withOption("idle", idle))) {
            for (int size : new int[] {8, 4096, 65_536, 300_000}) {
                for (int i = 0; i < size; i++) {
                    c.a.mr.buffer().put(i, (byte) (i * 7 + size));
                }
                c.b.postRecv(1, 0, 300_000);
                c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, size));
                c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, size)
                        .remote(c.b.mr.address() + 400_000, c.b.mr.rkey()));
                c.a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_READ, c.a.mr, 700_000, size)
                        .remote(c.b.mr.address() + 400_000, c.b.mr.rkey()));
                for (int k = 1; k <= 3; k++) {
                    WorkCompletion wc = c.a.next();
                    assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.wrId).isEqualTo(k);
                }
                assertThat(c.b.next().byteLength).isEqualTo(size);
                assertThat(c.b.mr.buffer().slice(0, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
                assertThat(c.b.mr.buffer().slice(400_000, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
                assertThat(c.a.mr.buffer().slice(700_000, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
            }
            for (int i = 0; i < 2000; i++) {                         // ping-pong: each side answers the other's SEND
                c.b.postRecv(10, 0, 64);
                c.a.postRecv(20, 0, 64);
                c.a.post(new SendWorkRequest().set(11, WrOpcode.SEND, c.a.mr, 0, 8).signaled(false));
                assertThat(c.b.next().wrId).isEqualTo(10);
                c.b.post(new SendWorkRequest().set(21, WrOpcode.SEND, c.b.mr, 0, 8).signaled(false));
                assertThat(c.a.next().wrId).isEqualTo(20);
            }
            Thread.sleep(50);                                      // backoff: past spin and yield, the thread blocks
            c.b.postRecv(30, 0, 64);
            c.a.post(new SendWorkRequest().set(31, WrOpcode.SEND, c.a.mr, 0, 8));
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(c.b.next().wrId).isEqualTo(30);
        }
    }
}

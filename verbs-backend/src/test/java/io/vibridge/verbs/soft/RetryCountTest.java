package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * A dead peer surfaces within (retry count + 1) ACK timeouts: the transport retry count is read as IBA reads
 * it, 7 included (Linux rxe alone reads 7 as unlimited, rxe_comp.c), so a QP never retransmits forever.
 */
class RetryCountTest {
    @Test
    void retryCountSevenIsSevenRetriesThenRetryExceeded() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); Endpoint e = new Endpoint(dev, 4096, 8)) {
            // nothing listens at the absent address: every packet is lost; ACK timeout 4.096 us x 2^12 = 16.8 ms
            e.qp.connect(QpConnection.of(InetAddress.getByName(TestDevices.ABSENT), 0x11, 100, 200, 1024)
                    .withRetries(7, 7, 12));
            e.post(new SendWorkRequest().set(1, WrOpcode.SEND, e.mr, 0, 64));
            e.post(new SendWorkRequest().set(2, WrOpcode.SEND, e.mr, 0, 64));
            WorkCompletion first = e.next();
            assertThat(first.wrId).isEqualTo(1);
            assertThat(first.status).isEqualTo(WcStatus.RETRY_EXCEEDED);
            assertThat(e.next().status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(e.qp.state()).isEqualTo(QpState.ERROR);
            assertThat(dev.counters().timeouts()).isEqualTo(8); // the first try, seven retries, then the error
        }
    }
}

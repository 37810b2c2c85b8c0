package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.VerbsDevice;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The soft provider declares every capability, and its CM takes any 64-bit Service ID. */
class SoftProviderTest {
    @Test
    void declaresEveryCapability() {
        try (VerbsDevice d = TestDevices.open()) {
            assertThat(d.capabilities()).containsExactlyInAnyOrder(Capability.REMOTE_ACCESS_HANDLER,
                    Capability.OUT_OF_BAND_CONNECT, Capability.CM_PRIVATE_DATA, Capability.ANY_SERVICE_ID,
                    Capability.CM_RETRY_CONTROL, Capability.CQ_MODERATION, Capability.SEND_WITH_INVALIDATE);
            assertThatThrownBy(() -> d.capabilities().clear()).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    /** ANY_SERVICE_ID: a Service ID outside rdma_cm's port spaces (0x0000000001PPxxxx) is listened on and reached. */
    @Test
    void anyServiceIdConnects() throws Exception {
        long sid = 0xFEDCBA9876543210L;
        try (VerbsDevice a = TestDevices.open(); VerbsDevice b = TestDevices.open();
             var _ = b.connectionManager().listen(sid, e -> {
                 if (e instanceof CmEvent.ConnectRequest r) {
                     r.id().reject(null);
                 }
             }, null)) {
            LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            var pd = a.allocateProtectionDomain();
            var cq = a.createCompletionQueue(4);
            var qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 4, 4));
            a.connectionManager().connect(ConnectParams.defaults(b.address(), sid, null), qp, events::add, null);
            CmEvent e = events.poll(30, TimeUnit.SECONDS);
            // the listener got the REQ and rejected it as the consumer (reason 28), not REJ 8 (unknown Service ID)
            assertThat(e).isInstanceOf(CmEvent.Rejected.class);
            assertThat(((CmEvent.Rejected) e).reason()).isEqualTo(CmEvent.REJ_CONSUMER);
        }
    }
}

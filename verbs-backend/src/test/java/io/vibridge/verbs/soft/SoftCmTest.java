package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Connection manager: reject, unknown Service ID, timeout, lossy setup, private data limits. */
class SoftCmTest {
    private VerbsDevice a;
    private VerbsDevice b;
    private final BlockingQueue<CmEvent> ea = new LinkedBlockingQueue<>();
    private final BlockingQueue<CmEvent> eb = new LinkedBlockingQueue<>();

    @BeforeEach
    void open() {
        a = TestDevices.open();
        b = TestDevices.open();
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private QueuePair qp(VerbsDevice d) {
        return d.allocateProtectionDomain().createQueuePair(QpInitAttributes.of(d.createCompletionQueue(64), 16));
    }

    @Test
    void unknownServiceIdIsRejectedWithReason8() throws Exception {
        a.connectionManager().connect(Connected.params(b, new byte[] {1}), qp(a), ea::add, null);
        CmEvent e = Connected.take(ea);
        assertThat(e).isInstanceOf(CmEvent.Rejected.class);
        assertThat(((CmEvent.Rejected) e).reason()).isEqualTo(CmEvent.REJ_INVALID_SERVICE_ID);
    }

    @Test
    void consumerRejectCarriesPrivateData() throws Exception {
        try (var _ = b.connectionManager().listen(Connected.SID, eb::add, null)) {
            byte[] hello = new byte[92];
            Arrays.fill(hello, (byte) 0x5A);
            a.connectionManager().connect(Connected.params(b, hello), qp(a), ea::add, null);
            CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) Connected.take(eb);
            assertThat(req.privateData()).isEqualTo(hello);
            assertThat(req.source()).isEqualTo(a.address());
            assertThat(req.serviceId()).isEqualTo(Connected.SID);
            req.id().reject(new byte[] {42, 43});
            CmEvent.Rejected rej = (CmEvent.Rejected) Connected.take(ea);
            assertThat(rej.reason()).isEqualTo(CmEvent.REJ_CONSUMER);
            assertThat(rej.privateData()).hasSize(148).startsWith(42, 43);
        }
    }

    @Test
    void connectToAnAbsentPeerTimesOut() throws Exception {
        // CM response timeout 12 (16.8 ms) + 2 x packet lifetime, 3 retries: about 0.1 s in total
        ConnectParams p = ConnectParams.defaults(InetAddress.getByName(TestDevices.ABSENT), Connected.SID, null)
                .withTimeouts(14, 12, 3);
        QueuePair q = qp(a);
        a.connectionManager().connect(p, q, ea::add, null);
        assertThat(Connected.take(ea)).isInstanceOf(CmEvent.ConnectTimeout.class);
        assertThat(q.state()).isEqualTo(QpState.INIT);
    }

    @Test
    void connectionSetupAndTeardownSurviveHeavyLoss() throws Exception {
        ((SoftDevice) a).setFaults(new FaultConfig(0.4, 0.2, 0.1, 0.05, 11));
        ((SoftDevice) b).setFaults(new FaultConfig(0.4, 0.2, 0.1, 0.05, 12));
        try (var _ = b.connectionManager().listen(Connected.SID, eb::add, null)) {
            QueuePair qa = qp(a);
            QueuePair qb = qp(b);
            var id = a.connectionManager().connect(Connected.params(b, new byte[] {7}).withTimeouts(14, 12, 15),
                    qa, ea::add, null);
            CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) Connected.take(eb);
            req.id().accept(qb, AcceptParams.defaults(new byte[] {1, 2, 3}));
            CmEvent.Established est = (CmEvent.Established) Connected.take(ea);
            assertThat(est.privateData()).startsWith(1, 2, 3);
            assertThat(Connected.take(eb)).isInstanceOf(CmEvent.Established.class);
            assertThat(eb).isEmpty();                          // duplicate REQs did not create new requests
            id.disconnect();
            assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Disconnected.class);
            assertThat(Connected.take(eb)).isInstanceOf(CmEvent.Disconnected.class);
        }
    }

    @Test
    void privateDataLimitsAreEnforced() {
        assertThatThrownBy(() -> Connected.params(b, new byte[ConnectionManager.REQ_PRIVATE_DATA + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AcceptParams.defaults(new byte[ConnectionManager.REP_PRIVATE_DATA + 1]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listeningTwiceOnOneServiceIdFails() {
        try (var _ = b.connectionManager().listen(5, eb::add, null)) {
            assertThatThrownBy(() -> b.connectionManager().listen(5, eb::add, null))
                    .hasMessageContaining("already");
        }
    }

    @Test
    void qpFlushesOnDisconnect() throws Exception {
        try (var _ = b.connectionManager().listen(Connected.SID, eb::add, null)) {
            var pd = a.allocateProtectionDomain();
            var cq = a.createCompletionQueue(16);
            QueuePair qa = pd.createQueuePair(QpInitAttributes.of(cq, 8));
            var mr = pd.registerMemory(ByteBuffer.allocateDirect(64),
                    EnumSet.of(Access.LOCAL_WRITE));
            qa.postRecv(new ReceiveWorkRequest().set(77, mr, 0, 64));
            var id = a.connectionManager().connect(Connected.params(b, null), qa, ea::add, null);
            ((CmEvent.ConnectRequest) Connected.take(eb)).id().accept(qp(b), AcceptParams.defaults(null));
            assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Established.class);
            id.disconnect();
            var wc = new WorkCompletion[] {new WorkCompletion()};
            long end = System.nanoTime() + 30_000_000_000L;
            while (cq.poll(wc) == 0 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertThat(wc[0].wrId).isEqualTo(77);
            assertThat(wc[0].status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            qa.postSend(new SendWorkRequest().set(1, WrOpcode.SEND, null, 0, 0));
            assertThat(cq.poll(wc)).isEqualTo(1);
            assertThat(wc[0].status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        }
    }
}

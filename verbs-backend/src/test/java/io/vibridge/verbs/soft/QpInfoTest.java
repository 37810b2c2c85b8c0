package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/** What a soft QP reports of itself (rdma res show qp), and its own share of the device's retry counters. */
class QpInfoTest {

    private static void sendOne(Connected c, long id, int size) throws InterruptedException {
        c.b.postRecv(id, 1 << 20, 1 << 20);
        c.a.post(new SendWorkRequest().set(id, WrOpcode.SEND, c.a.mr, 0, size));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.b.next().status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void connectedQueuePairsNameEachOtherAndAgreeOnPsns() throws Exception {
        try (Connected c = new Connected(2 << 20, 16, null, null)) {
            QpInfo before = c.a.qp.info();
            sendOne(c, 1, 10_000);                       // 3 packets at MTU 4096
            QpInfo a = c.a.qp.info();
            QpInfo b = c.b.qp.info();
            assertThat(a.qpn()).isEqualTo(c.a.qp.qpNum());
            assertThat(a.remoteQpn()).isEqualTo(c.b.qp.qpNum());
            assertThat(b.remoteQpn()).isEqualTo(c.a.qp.qpNum());
            assertThat(a.state()).isEqualTo(QpState.RTS);
            assertThat(a.pathMtu()).isEqualTo(4096);
            assertThat(a.sendPsn()).isEqualTo((before.sendPsn() + 3) & 0xFFFFFF);
            assertThat(b.expectedPsn()).isEqualTo(a.sendPsn());   // every packet A sent, B has taken
            assertThat(a.retransmissions()).isZero();
            assertThat(a.timeouts()).isZero();
        }
    }

    @Test
    void anUnconnectedQueuePairHasNoPeerYet() throws Exception {
        try (Connected c = new Connected(1 << 20, 4, null, null);
                Endpoint spare = new Endpoint(c.devA, 4096, 4)) {
            QpInfo i = spare.qp.info();
            assertThat(i.state()).isEqualTo(QpState.INIT);
            assertThat(i.remoteQpn()).isEqualTo(QpInfo.UNKNOWN);
            assertThat(i.sendPsn()).isEqualTo(QpInfo.UNKNOWN);
            assertThat(i.pathMtu()).isZero();
        }
    }

    @Test
    void retransmissionsOfTheOnlyQueuePairAreTheDevicesAndNamedCountersListThem() throws Exception {
        try (Connected c = new Connected(2 << 20, 16, null, null)) {
            ((SoftDevice) c.devA).setFaults(new FaultConfig(0.2, 0, 0, 0, 7));   // a fifth of A's packets lost
            for (int i = 1; i <= 20; i++) {
                sendOne(c, i, 20_000);
            }
            ((SoftDevice) c.devA).setFaults(FaultConfig.NONE);
            QpInfo a = c.a.qp.info();
            DeviceCounters d = c.devA.counters();
            assertThat(d.faultDrops()).isPositive();
            assertThat(a.retransmissions()).isPositive().isEqualTo(d.retransmissions());
            assertThat(a.timeouts()).isEqualTo(d.timeouts());
            assertThat(c.b.qp.info().retransmissions()).isEqualTo(c.devB.counters().retransmissions());
            assertThat(d.named()).containsEntry("retransmissions", d.retransmissions())
                    .containsEntry("naks_sent_sequence", d.naksSentSequence())
                    .containsEntry("fault_drops", d.faultDrops())
                    .hasSize(DeviceCounters.class.getRecordComponents().length);
            assertThat(d.named().keySet()).first().isEqualTo("packets_out");
        }
    }
}

package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.wire.PathMtu;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The port's path MTU from the interface MTU (REF §1.4, as rdma_cm/rxe) and its use by the CM. */
class PortMtuTest {

    @ParameterizedTest(name = "netdev MTU {0} -> IB MTU {1}")
    @CsvSource({
        "65536, 4096", "9000, 4096", "4192, 4096", "4191, 2048", "2144, 2048", "2143, 1024",
        "1500, 1024", "1400, 1024", "1120, 1024", "1119, 512", "608, 512", "607, 256", "576, 256",
        "352, 256", "300, 256", "68, 256"})
    void portMaxFromInterfaceMtu(int netdev, int ib) {
        // netdev − (GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4) rounded down; 256 at least, as rxe
        assertThat(PathMtu.portMaxBytes(netdev)).isEqualTo(ib);
        assertThat(SoftParams.maxPathMtu(netdev, null)).isEqualTo(ib);
    }

    @Test
    void maxMtuOptionCapsButNeverRaises() {
        assertThat(SoftParams.maxPathMtu(65536, "1024")).isEqualTo(1024);
        assertThat(SoftParams.maxPathMtu(1500, "4096")).isEqualTo(1024);
        assertThatThrownBy(() -> SoftParams.maxPathMtu(1500, "1000")).isInstanceOf(VerbsException.class)
                .hasMessageContaining("max-mtu");
        assertThatThrownBy(() -> SoftParams.netdevMtu("x"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("netdev-mtu");
    }

    @Test
    void loopbackAddressesAreOnTheLoopbackInterface() throws Exception {
        int lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress()).getMTU();
        assertThat(SoftParams.interfaceMtu(InetAddress.getByName("127.0.0.33"))).isEqualTo(lo);
        try (VerbsDevice d = TestDevices.open()) {
            assertThat(((SoftDevice) d).interfaceMtu()).isEqualTo(lo);
            assertThat(d.maxPathMtu()).isEqualTo(PathMtu.portMaxBytes(lo));
        }
        try (VerbsDevice d = TestDevices.open(c -> c.withProvider("soft").withOption("netdev-mtu", "1500"))) {
            assertThat(d.maxPathMtu()).isEqualTo(1024);           // a Docker bridge network
        }
    }

    @Test
    void activeSideWithALowerPortUsesItOnBothQueuePairsAndTransfers() throws Exception {
        try (VerbsDevice devA = TestDevices.open(c -> c.withProvider("soft").withOption("netdev-mtu", "1500"));
             VerbsDevice devB = TestDevices.open();
             Endpoint a = new Endpoint(devA, 1 << 20, 16);
             Endpoint b = new Endpoint(devB, 1 << 20, 16)) {
            BlockingQueue<CmEvent> ea = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> eb = new LinkedBlockingQueue<>();
            try (var l = devB.connectionManager().listen(Connected.SID, eb::add, null)) {
                // asks for 4096, the default; the port allows 1024
                devA.connectionManager().connect(Connected.params(devB, null), a.qp, ea::add, null);
                CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) Connected.take(eb);
                req.id().accept(b.qp, AcceptParams.defaults(null).withRnr(7, 1));
                assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Established.class);
                assertThat(a.qp.pathMtu()).isEqualTo(1024);
                assertThat(b.qp.pathMtu()).isEqualTo(1024);
                int size = 100_003;
                for (int i = 0; i < size; i++) {
                    a.mr.buffer().put(i, (byte) (i * 7 + 1));
                    b.mr.buffer().put(500_000 + i, (byte) (i * 11 + 3));
                }
                b.postRecv(1, 0, size);
                a.post(new SendWorkRequest().set(1, WrOpcode.SEND, a.mr, 0, size));
                a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, a.mr, 0, size)
                        .remote(b.mr.address() + 200_000, b.mr.rkey()));
                a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_READ, a.mr, 300_000, size)
                        .remote(b.mr.address() + 500_000, b.mr.rkey()));
                for (int k = 1; k <= 3; k++) {
                    WorkCompletion wc = a.next();
                    assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.wrId).isEqualTo(k);
                }
                assertThat(b.next().byteLength).isEqualTo(size);
                assertThat(b.mr.buffer().slice(0, size)).isEqualTo(a.mr.buffer().slice(0, size));
                assertThat(b.mr.buffer().slice(200_000, size)).isEqualTo(a.mr.buffer().slice(0, size));
                assertThat(a.mr.buffer().slice(300_000, size)).isEqualTo(b.mr.buffer().slice(500_000, size));
                assertThat(devA.counters().retransmissions()).isZero();
            }
        }
    }

    @Test
    void passiveSideWithALowerPortRejectsALargerRequestWithReason26() throws Exception {
        try (VerbsDevice devA = TestDevices.open();
             VerbsDevice devB = TestDevices.open(c -> c.withProvider("soft").withOption("max-mtu", "1024"));
             Endpoint a = new Endpoint(devA, 4096, 4);
             Endpoint b = new Endpoint(devB, 4096, 4)) {
            BlockingQueue<CmEvent> ea = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> eb = new LinkedBlockingQueue<>();
            try (var l = devB.connectionManager().listen(Connected.SID, eb::add, null)) {
                devA.connectionManager().connect(Connected.params(devB, null), a.qp, ea::add, null);
                CmEvent e = Connected.take(ea);
                assertThat(e).isInstanceOf(CmEvent.Rejected.class);
                assertThat(((CmEvent.Rejected) e).reason()).isEqualTo(26);
                assertThat(eb).isEmpty();                           // the application never saw it
            }
            // asking for what the passive port carries connects
            try (var l = devB.connectionManager().listen(Connected.SID + 1, eb::add, null)) {
                Endpoint a2 = new Endpoint(devA, 4096, 4);
                devA.connectionManager().connect(ConnectParams.defaults(devB.address(), Connected.SID + 1, null)
                        .withTimeouts(14, 14, 5).withPathMtu(1024), a2.qp, ea::add, null);
                ((CmEvent.ConnectRequest) Connected.take(eb)).id().accept(b.qp, AcceptParams.defaults(null));
                assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Established.class);
                assertThat(b.qp.pathMtu()).isEqualTo(1024);
                a2.close();
            }
        }
    }
}

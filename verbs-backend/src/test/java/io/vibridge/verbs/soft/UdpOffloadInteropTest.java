package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.zip.CRC32C;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Devices with and without UDP segmentation offload talk to each other: SEND, RDMA WRITE and RDMA READ
 * of multi-packet messages (WRITE FIRST carries a RETH, so groups split around it; READ responses are
 * grouped by the responder) arrive intact, and every ICRC holds for an expected IP ID: where a segmented
 * sender meets a receiver without UDP_GRO, the kernel splits the groups and numbers the datagrams' IDs
 * 0, 1, 2..., which the receiver accepts without falling back to the any-ID check.
 */
class UdpOffloadInteropTest {
    private static final int SIZE = 1 << 20;
    private static final int MESSAGES = 16;
    private static final int CHUNK = SIZE / MESSAGES;           // 64 KiB + a ragged tail below

    private static VerbsDevice open(String offload) {
        return TestDevices.open(c -> c.withProvider("soft").withOption("udp-offload", offload));
    }

    @ParameterizedTest(name = "sender offload {0}, receiver offload {1}")
    @CsvSource({"on,on", "on,off", "off,on", "off,off"})
    void everyOperationCrossesBetweenSocketKinds(String aMode, String bMode) throws Exception {
        try (VerbsDevice devA = open(aMode); VerbsDevice devB = open(bMode)) {
            assertThat(((SoftDevice) devA).segmentationOffload()).isEqualTo(aMode.equals("on"));
            Endpoint a = new Endpoint(devA, SIZE, 2 * MESSAGES);
            Endpoint b = new Endpoint(devB, SIZE, 2 * MESSAGES);
            BlockingQueue<CmEvent> ea = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> eb = new LinkedBlockingQueue<>();
            try (var l = devB.connectionManager().listen(Connected.SID, eb::add, null)) {
                devA.connectionManager().connect(Connected.params(devB, null), a.qp, ea::add, null);
                ((CmEvent.ConnectRequest) Connected.take(eb)).id().accept(b.qp, AcceptParams.defaults(null));
                assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Established.class);
            }
            fill(a, 1);
            for (int i = 0; i < MESSAGES; i++) {
                b.postRecv(i, i * CHUNK, CHUNK);
            }
            for (int i = 0; i < MESSAGES; i++) {                 // the last message is ragged: 1 KiB + 3 bytes short
                int len = i == MESSAGES - 1 ? CHUNK - 1027 : CHUNK;
                a.post(new SendWorkRequest().set(i, WrOpcode.SEND, a.mr, i * CHUNK, len));
            }
            for (int i = 0; i < MESSAGES; i++) {
                assertThat(a.next().status).isEqualTo(WcStatus.SUCCESS);
                WorkCompletion wc = b.next();
                assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.byteLength).isEqualTo(i == MESSAGES - 1 ? CHUNK - 1027 : CHUNK);
            }
            assertThat(crc(b, SIZE - 1027)).isEqualTo(crc(a, SIZE - 1027));

            fill(a, 2);                                          // RDMA WRITE, whole buffer, one message
            a.post(new SendWorkRequest().set(100, WrOpcode.RDMA_WRITE, a.mr, 0, SIZE).remote(b.mr.address(), b.mr.rkey()));
            assertThat(a.next().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(crc(b, SIZE)).isEqualTo(crc(a, SIZE));

            fill(b, 3);                                          // RDMA READ: the responder sends the groups
            a.post(new SendWorkRequest().set(101, WrOpcode.RDMA_READ, a.mr, 0, SIZE).remote(b.mr.address(), b.mr.rkey()));
            WorkCompletion read = a.next();
            assertThat(read.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(read.opcode).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(crc(a, SIZE)).isEqualTo(crc(b, SIZE));

            DeviceCounters ca = devA.counters();
            DeviceCounters cb = devB.counters();
            assertThat(ca.icrcDrops() + cb.icrcDrops()).isZero();
            assertThat(ca.icrcAnyIdAccepts() + cb.icrcAnyIdAccepts()).isZero();
            a.close();
            b.close();
        }
    }

    @Test
    void badDeviceOptionsFailBeforeTheSocketIsBound() {
        String ip = "127.0.0.48";                                // outside the TestDevices range
        DeviceConfig c = DeviceConfig.of(ip).withProvider("soft");
        assertThatThrownBy(() -> Verbs.open(c.withOption("udp-offload", "fast")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("udp-offload must be auto, on or off, got fast");
        assertThatThrownBy(() -> Verbs.open(c.withOption("faults", "drop=lots")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("lots");
        try (VerbsDevice d = Verbs.open(c)) {                    // nothing was left bound
            assertThat(d.address().getHostAddress()).isEqualTo(ip);
        }
    }

    private static void fill(Endpoint e, int seed) {
        Random r = new Random(seed);
        for (int i = 0; i < SIZE; i++) {
            e.mr.buffer().put(i, (byte) r.nextInt());
        }
    }

    private static long crc(Endpoint e, int len) {
        CRC32C c = new CRC32C();
        c.update(e.mr.buffer().slice(0, len));
        return c.getValue();
    }
}

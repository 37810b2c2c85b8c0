package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every RC operation between two soft devices in one JVM. */
class SoftRcTest {
    private Connected c;

    @BeforeEach
    void connect() throws Exception {
        c = new Connected(4 << 20, 64, null, null);
    }

    @AfterEach
    void close() {
        c.close();
    }

    private static void fill(ByteBuffer b, int off, int len, long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) r.nextInt());
        }
    }

    private static boolean same(ByteBuffer x, int xo, ByteBuffer y, int yo, int len) {
        return x.slice(xo, len).equals(y.slice(yo, len));
    }

    @Test
    void cmPrivateDataReachesBothSides() throws Exception {
        assertThat(c.a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(c.b.qp.state()).isEqualTo(QpState.RTS);
        assertThat(c.a.qp.pathMtu()).isEqualTo(4096);
        assertThat(c.activeId.remoteAddress()).isEqualTo(c.devB.address());
    }

    @Test
    void sendAndSendWithImmediateOfManySizes() throws Exception {
        int[] sizes = {0, 1, 3, 4095, 4096, 4097, 8192, 100_000, 1 << 20};
        long id = 0;
        for (int size : sizes) {
            for (boolean imm : new boolean[] {false, true}) {
                c.b.postRecv(++id, 1 << 21, 1 << 20);
                fill(c.a.mr.buffer(), 0, size, size);
                c.a.post(new SendWorkRequest().set(id, imm ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, c.a.mr, 0, size)
                        .immediate(0xCAFE0000 + size));
                WorkCompletion s = c.a.next();
                assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(s.opcode).isEqualTo(WcOpcode.SEND);
                assertThat(s.wrId).isEqualTo(id);
                WorkCompletion r = c.b.next();
                assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
                assertThat(r.byteLength).isEqualTo(size);
                assertThat(r.hasImmediate).isEqualTo(imm);
                if (imm) {
                    assertThat(r.immediate).isEqualTo(0xCAFE0000 + size);
                }
                assertThat(same(c.a.mr.buffer(), 0, c.b.mr.buffer(), 1 << 21, size)).isTrue();
            }
        }
    }

    @Test
    void rdmaWriteWriteWithImmediateAndRead() throws Exception {
        int[] sizes = {0, 7, 4096, 4100, 300_000};
        long id = 100;
        for (int size : sizes) {
            fill(c.a.mr.buffer(), 0, size, size + 1);
            c.a.post(new SendWorkRequest().set(++id, WrOpcode.RDMA_WRITE, c.a.mr, 0, size)
                    .remote(c.b.mr.address() + 1000, c.b.mr.rkey()));
            WorkCompletion w = c.a.next();
            assertThat(w.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(w.opcode).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(same(c.a.mr.buffer(), 0, c.b.mr.buffer(), 1000, size)).isTrue();

            c.b.postRecv(++id, 0, 0);
            fill(c.a.mr.buffer(), 0, size, size + 2);
            c.a.post(new SendWorkRequest().set(++id, WrOpcode.RDMA_WRITE_WITH_IMM, c.a.mr, 0, size)
                    .remote(c.b.mr.address() + 2_000_000, c.b.mr.rkey()).immediate(size));
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = c.b.next();
            assertThat(r.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(r.immediate).isEqualTo(size);
            assertThat(r.byteLength).isEqualTo(size);
            assertThat(same(c.a.mr.buffer(), 0, c.b.mr.buffer(), 2_000_000, size)).isTrue();

            fill(c.b.mr.buffer(), 3_000_000, size, size + 3);
            c.a.post(new SendWorkRequest().set(++id, WrOpcode.RDMA_READ, c.a.mr, 500_000, size)
                    .remote(c.b.mr.address() + 3_000_000, c.b.mr.rkey()));
            WorkCompletion rd = c.a.next();
            assertThat(rd.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(rd.opcode).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(same(c.a.mr.buffer(), 500_000, c.b.mr.buffer(), 3_000_000, size)).isTrue();
        }
    }

    @Test
    void zeroLengthRdmaNeedsNoValidRkey() throws Exception {
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, null, 0, 0).remote(0, 0xBAD));
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_READ, null, 0, 0).remote(0, 0xBAD));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = c.a.next();
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.opcode).isEqualTo(WcOpcode.RDMA_READ);
    }

    @Test
    void unsignaledWorkRequestsCompleteSilently() throws Exception {
        for (int i = 0; i < 5; i++) {
            c.a.post(new SendWorkRequest().set(i, WrOpcode.RDMA_WRITE, c.a.mr, 0, 64)
                    .remote(c.b.mr.address(), c.b.mr.rkey()).signaled(i == 4));
        }
        WorkCompletion wc = c.a.next();
        assertThat(wc.wrId).isEqualTo(4);
    }

    @Test
    void disconnectGivesDisconnectedThenTimewaitExitOnBothSides() throws Exception {
        c.activeId.disconnect();
        assertThat(Connected.take(c.eventsA)).isInstanceOf(CmEvent.Disconnected.class);
        assertThat(Connected.take(c.eventsB)).isInstanceOf(CmEvent.Disconnected.class);
        assertThat(Connected.take(c.eventsA)).isInstanceOf(CmEvent.TimewaitExit.class);
        assertThat(Connected.take(c.eventsB)).isInstanceOf(CmEvent.TimewaitExit.class);
        assertThat(c.a.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(c.b.qp.state()).isEqualTo(QpState.ERROR);
    }
}

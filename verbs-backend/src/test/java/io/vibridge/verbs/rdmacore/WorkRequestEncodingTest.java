package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the provider writes into the native ibv_send_wr/ibv_recv_wr/ibv_sge and reads from ibv_wc, byte by byte as
 * verbs.h lays them out, and that neither allocates (the device-bound half, the downcalls, is measured in the VM by
 * the conformance scenario no-allocation-per-wr).
 */
class WorkRequestEncodingTest {
    /** A region as the encoder sees it (address, length, lkey). */
    record Region(long address, int length, int lkey) implements MemoryRegion {
        public ByteBuffer buffer() {
            return null;
        }

        public int rkey() {
            return 0;
        }

        public Set<Access> access() {
            return Set.of();
        }

        public void close() {
        }
    }

    final Arena arena = Arena.ofAuto();
    final MemorySegment wr = arena.allocate(IbvLayouts.SEND_WR);
    final MemorySegment rwr = arena.allocate(IbvLayouts.RECV_WR);
    final MemorySegment sge = arena.allocate(IbvLayouts.SGE);
    final Region region = new Region(0x7f00_1234_0000L, 65536, 0xABCD);

    @Test
    void aWriteWithImmediateIsLaidOutAsVerbsH() {
        wr.set(ADDRESS, IbvLayouts.SWR_SG_LIST, sge);
        SendWorkRequest w = new SendWorkRequest().set(0x1122334455667788L, WrOpcode.RDMA_WRITE_WITH_IMM, region, 16,
                4096).remote(0xdead_beef_0000L, 0x55).immediate(0x01020304);
        w.solicited = true;
        RdmaCoreQueuePair.encodeSend(wr, sge, w);
        assertThat(wr.get(JAVA_LONG, 0)).isEqualTo(0x1122334455667788L);            // wr_id
        assertThat(wr.get(ADDRESS, 8).address()).isZero();                           // next
        assertThat(wr.get(ADDRESS, 16).address()).isEqualTo(sge.address());          // sg_list
        assertThat(wr.get(JAVA_INT, 24)).isEqualTo(1);                                // num_sge
        assertThat(wr.get(JAVA_INT, 28)).isEqualTo(1);                                // IBV_WR_RDMA_WRITE_WITH_IMM
        assertThat(wr.get(JAVA_INT, 32)).isEqualTo(2 | 4);                            // SIGNALED | SOLICITED
        assertThat(wr.asSlice(36, 4).toArray(JAVA_BYTE)).containsExactly(1, 2, 3, 4); // imm_data, network order
        assertThat(wr.get(JAVA_LONG, 40)).isEqualTo(0xdead_beef_0000L);              // wr.rdma.remote_addr
        assertThat(wr.get(JAVA_INT, 48)).isEqualTo(0x55);                             // wr.rdma.rkey
        assertThat(sge.get(JAVA_LONG, 0)).isEqualTo(0x7f00_1234_0010L);              // addr = region + 16
        assertThat(sge.get(JAVA_INT, 8)).isEqualTo(4096);
        assertThat(sge.get(JAVA_INT, 12)).isEqualTo(0xABCD);
    }

    @Test
    void aSendWithInvalidatePutsTheKeyInTheImmediateDataUnion() {
        SendWorkRequest w = new SendWorkRequest().set(9, WrOpcode.SEND_WITH_INV, region, 0, 100).invalidate(0x01020304)
                .immediate(0x55555555);
        RdmaCoreQueuePair.encodeSend(wr, sge, w);
        assertThat(wr.get(JAVA_INT, 28)).isEqualTo(9);                                // IBV_WR_SEND_WITH_INV
        // invalidate_rkey is a host-order uint32_t, unlike imm_data's network order, in the same four bytes
        byte[] hostOrder = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0x01020304).array();
        assertThat(wr.asSlice(36, 4).toArray(JAVA_BYTE)).containsExactly(hostOrder);
    }

    @Test
    void opcodesAreVerbsH() {
        assertThat(WcCodes.wrOpcode(WrOpcode.RDMA_WRITE)).isZero();
        assertThat(WcCodes.wrOpcode(WrOpcode.SEND)).isEqualTo(2);
        assertThat(WcCodes.wrOpcode(WrOpcode.SEND_WITH_IMM)).isEqualTo(3);
        assertThat(WcCodes.wrOpcode(WrOpcode.RDMA_READ)).isEqualTo(4);
        assertThat(WcCodes.wrOpcode(WrOpcode.SEND_WITH_INV)).isEqualTo(9);
        assertThat(WcCodes.status(5)).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        assertThat(WcCodes.status(10)).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
        assertThat(WcCodes.status(13)).isEqualTo(WcStatus.RNR_RETRY_EXCEEDED);
        assertThat(WcCodes.status(21)).isEqualTo(WcStatus.GENERAL_ERROR);
        assertThat(WcCodes.opcode(129)).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
    }

    @Test
    void anUnsignalledZeroLengthSendHasNoSge() {
        SendWorkRequest w = new SendWorkRequest().set(1, WrOpcode.SEND, null, 0, 0).signaled(false);
        RdmaCoreQueuePair.encodeSend(wr, sge, w);
        assertThat(wr.get(JAVA_INT, 24)).isZero();
        assertThat(wr.get(JAVA_INT, 32)).isZero();
        assertThatThrownBy(() -> RdmaCoreQueuePair.encodeSend(wr, sge,
                new SendWorkRequest().set(1, WrOpcode.SEND, region, 65000, 1000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the region");
    }

    @Test
    void aReceiveCompletionIsDecoded() {
        MemorySegment wc = arena.allocate(IbvLayouts.WC);
        wc.set(JAVA_LONG, 0, 77);
        wc.set(JAVA_INT, 8, 0);            // SUCCESS
        wc.set(JAVA_INT, 12, 129);         // IBV_WC_RECV_RDMA_WITH_IMM
        wc.set(JAVA_INT, 20, 65536);
        wc.asSlice(24, 4).copyFrom(MemorySegment.ofArray(new byte[] {(byte) 0xCA, (byte) 0xFE, 0, 1}));
        wc.set(JAVA_INT, 28, 0x11);
        wc.set(JAVA_INT, 36, 2);           // IBV_WC_WITH_IMM
        WorkCompletion out = new WorkCompletion();
        RdmaCoreCompletionQueue.decode(wc, 0, out);
        assertThat(out.wrId).isEqualTo(77);
        assertThat(out.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(out.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(out.byteLength).isEqualTo(65536);
        assertThat(out.hasImmediate).isTrue();
        assertThat(out.immediate).isEqualTo(0xCAFE0001);
        assertThat(out.qpNum).isEqualTo(0x11);
    }

    @Test
    void aReceiveOfASendWithInvalidateReportsTheKey() {
        MemorySegment wc = arena.allocate(IbvLayouts.WC);
        wc.set(JAVA_LONG, 0, 78);
        wc.set(JAVA_INT, 12, 128);         // IBV_WC_RECV
        wc.set(JAVA_INT, 20, 100);
        wc.asSlice(24, 4).copyFrom(MemorySegment.ofArray(
                ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0xC11E0A01).array()));
        wc.set(JAVA_INT, 36, 8);           // IBV_WC_WITH_INV
        WorkCompletion out = new WorkCompletion();
        out.hasImmediate = true;           // left from an earlier completion: overwritten
        RdmaCoreCompletionQueue.decode(wc, 0, out);
        assertThat(out.opcode).isEqualTo(WcOpcode.RECV);
        assertThat(out.hasInvalidate).isTrue();
        assertThat(out.invalidatedRkey).isEqualTo(0xC11E0A01);
        assertThat(out.hasImmediate).isFalse();
        assertThat(out.immediate).isZero();
    }

    @Test
    void encodingAndDecodingAllocateNothing() {
        var bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof ThreadMXBean);
        var mx = (ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        SendWorkRequest s = new SendWorkRequest().set(0, WrOpcode.RDMA_WRITE, region, 0, 64).remote(1, 2);
        ReceiveWorkRequest r = new ReceiveWorkRequest().set(0, region, 0, 64);
        MemorySegment wcs = arena.allocate(IbvLayouts.WC.byteSize() * 8, 8);
        WorkCompletion[] out = {new WorkCompletion(), new WorkCompletion()};
        long sink = loop(s, r, wcs, out, 20_000);
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        sink += loop(s, r, wcs, out, 100_000);
        long bytes = mx.getThreadAllocatedBytes(tid) - before;
        assertThat(sink).isNotZero();
        // 100,000 rounds of two requests and two completions: one object each would be >= 6 MB
        assertThat(bytes).as("bytes allocated by 100,000 rounds").isLessThan(4_096);
    }

    private static final WrOpcode[] OPCODES = {WrOpcode.RDMA_WRITE, WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV};

    private long loop(SendWorkRequest s, ReceiveWorkRequest r, MemorySegment wcs, WorkCompletion[] out, int n) {
        long sink = 0;
        for (int i = 0; i < n; i++) {
            s.wrId = i;
            s.opcode = OPCODES[i % OPCODES.length];
            RdmaCoreQueuePair.encodeSend(wr, sge, s);
            r.wrId = i;
            RdmaCoreQueuePair.encodeRecv(rwr, sge, r);
            wcs.set(JAVA_INT, (i & 7) * IbvLayouts.WC.byteSize() + 12, (i & 1) == 0 ? 0 : 128);
            wcs.set(JAVA_INT, (i & 7) * IbvLayouts.WC.byteSize() + 36, (i & 2) == 0 ? 2 : 8);   // WITH_IMM, WITH_INV
            RdmaCoreCompletionQueue.decode(wcs, (i & 7) * IbvLayouts.WC.byteSize(), out[i & 1]);
            sink += out[i & 1].opcode.ordinal() + wr.get(JAVA_INT, 28) + rwr.get(JAVA_LONG, 0);
        }
        return sink;
    }
}

package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The per-packet path allocates nothing: write, seal, wrap, read every header field, verify the
 * ICRC (including the any-IP-ID fallback) in a loop and count the thread's allocated bytes.
 */
class AllocationTest {

    @Test
    void perPacketPathDoesNotAllocate() {
        var bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof ThreadMXBean, "no allocation counter on this JVM");
        ThreadMXBean mx = (ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);

        PacketWriter writer = new PacketWriter();
        PacketView view = new PacketView();
        Icrc icrc = new Icrc();
        ByteBuffer direct = ByteBuffer.allocateDirect(2048);
        ByteBuffer heap = ByteBuffer.allocate(2048);
        ByteBuffer payload = ByteBuffer.allocateDirect(1024);
        long sink = 0;
        sink += loop(writer, view, icrc, direct, heap, payload, 2_000); // warm up
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        sink += loop(writer, view, icrc, direct, heap, payload, 20_000);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertThat(sink).isNotZero();
        // 20,000 iterations x several packets: any per-packet allocation would be >= 320 KB.
        assertThat(allocated).as("bytes allocated by 20,000 iterations").isLessThan(4_096);
    }

    private static long loop(PacketWriter writer, PacketView view, Icrc icrc, ByteBuffer direct, ByteBuffer heap,
                             ByteBuffer payload, int n) {
        long sink = 0;
        Opcode[] ops = Opcode.values();
        for (int i = 0; i < n; i++) {
            Opcode op = ops[i % ops.length];
            int plen = op.hasPayload() ? (op.isEnd() ? 1 + (i % 1000) : 1024) : 0;
            ByteBuffer b = (i & 1) == 0 ? direct : heap;
            writer.begin(b, 0, op, false, 0xFFFF, i & 0xFFFFFF, true, i & 0xFFFFFF, plen);
            if (op.hasReth()) {
                writer.reth(i, i, plen);
            }
            if (op.hasAeth()) {
                writer.aeth(Aeth.ack(Aeth.CREDIT_INVALID), i & 0xFFFFFF);
            }
            int len = writer.payload(payload, 0).finish();
            icrc.sealIpv4(0x7F00_0001, 0x7F00_0002, 0xC000, 4791, b, 0, len);
            view.wrap(b, 0, len);
            sink += view.psn() + view.destQp() + view.payloadLength() + view.padCount() + view.opcode().code();
            if (op.hasReth()) {
                sink += view.rethVirtualAddress() + view.rethDmaLength();
            }
            if (op.hasAeth()) {
                sink += view.aethMsn() + Aeth.kind(view.aethSyndrome()).ordinal();
            }
            sink += icrc.verifyIpv4(0x7F00_0001, 0x7F00_0002, 0xC000, 4791, b, 0, len, true).ordinal();
            b.put(0 + 4 + 7, (byte) 1); // corrupt the PSN: ID-0 check fails, fallback runs
            sink += icrc.verifyIpv4(0x7F00_0001, 0x7F00_0002, 0xC000, 4791, b, 0, len, true).ordinal();
            sink += Psn.compare(Psn.next(i), i);
        }
        return sink;
    }
}

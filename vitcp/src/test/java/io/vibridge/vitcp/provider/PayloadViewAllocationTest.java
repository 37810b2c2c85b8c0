package io.vibridge.vitcp.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Outbound payload views (gathered pieces of a Send/RDMA Write, RDMA Read Response payload) come from
 * reusable rings: correct bytes, distinct for {@link ViConnection#MAX_UNWRITTEN} consecutive segments,
 * and nothing allocated per segment once warm.
 */
class PayloadViewAllocationTest {

    static final int ROUNDS = 100_000;

    private static ThreadMXBean mx() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void gatheredPieces_correctDistinctAndAllocationFree() throws Exception {
        ThreadMXBean mx = mx();
        try (ViNic nic = ViNic.open(NicConfig.loopback())) {
            ProtectionTag tag = nic.createPtag();
            MemoryRegion r = Fixture.region(nic, tag, 16384, true, true);
            Fixture.fill(r, 0, 16384, 9);
            Vi vi = nic.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, tag), null, null);
            Descriptor d = Descriptor.send().data(r, 0, 1000).data(r, 5000, 3000).data(r, 100, 20);
            assertThat(d.prepare(vi, false, 256, 1 << 20)).isZero();
            ByteBuffer[] out = new ByteBuffer[8];
            // [500, 4020): tail of piece 0, all of piece 1, all of piece 2
            int n = d.work.gather(500, 3520, out, 1);
            assertThat(n).isEqualTo(3);
            byte[] all = Fixture.expected(16384, 9);
            assertThat(bytes(out[1])).isEqualTo(Arrays.copyOfRange(all, 500, 1000));
            assertThat(bytes(out[2])).isEqualTo(Arrays.copyOfRange(all, 5000, 8000));
            assertThat(bytes(out[3])).isEqualTo(Arrays.copyOfRange(all, 100, 120));

            // one piece over many segments: the views of MAX_UNWRITTEN consecutive segments are distinct
            Map<ByteBuffer, Boolean> seen = new IdentityHashMap<>();
            for (int i = 0; i < ViConnection.MAX_UNWRITTEN; i++) {
                assertThat(d.work.gather(1000 + i * 100, 100, out, 0)).isEqualTo(1);
                assertThat(bytes(out[0])).isEqualTo(Arrays.copyOfRange(all, 5000 + i * 100, 5100 + i * 100));
                seen.put(out[0], true);
            }
            assertThat(seen).hasSize(ViConnection.MAX_UNWRITTEN);

            for (int i = 0; i < 1000; i++) { // warm-up
                d.work.gather(i % 4000, 20, out, 0);
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            long sink = 0;
            for (int i = 0; i < ROUNDS; i++) {
                sink += d.work.gather(i % 4000, 20, out, 0);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).isPositive();
            // before the rings: one ByteBuffer (about 48 bytes) per piece, i.e. megabytes here
            assertThat(allocated).as("bytes allocated by %d gathers", ROUNDS).isLessThan(16 * 1024);
        }
    }

    @Test
    void readResponseSource_correctDistinctAndAllocationFree() throws Exception {
        ThreadMXBean mx = mx();
        try (ViNic nic = ViNic.open(NicConfig.loopback())) {
            ProtectionTag tag = nic.createPtag();
            MemoryRegion r = Fixture.region(nic, tag, 65536, true, true);
            Fixture.fill(r, 0, 65536, 4);
            byte[] all = Fixture.expected(65536, 4);
            Link link = new Link(nic, null);
            Map<ByteBuffer, Boolean> seen = new IdentityHashMap<>();
            for (int i = 0; i < ViConnection.MAX_UNWRITTEN; i++) {
                ByteBuffer v = link.rdmaSource(r.address() + i * 1000, r.handle(), 700);
                assertThat(bytes(v)).isEqualTo(Arrays.copyOfRange(all, i * 1000, i * 1000 + 700));
                seen.put(v, true);
            }
            assertThat(seen).hasSize(ViConnection.MAX_UNWRITTEN);
            long before = mx.getCurrentThreadAllocatedBytes();
            long sink = 0;
            for (int i = 0; i < ROUNDS; i++) {
                sink += link.rdmaSource(r.address() + (i % 60000), r.handle(), 1000).remaining();
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).isEqualTo(1000L * ROUNDS);
            assertThat(allocated).as("bytes allocated by %d response sources", ROUNDS).isLessThan(16 * 1024);
        }
    }
}

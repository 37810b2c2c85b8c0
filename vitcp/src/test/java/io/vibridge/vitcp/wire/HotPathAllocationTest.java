package io.vibridge.vitcp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The hot-path codecs allocate nothing per segment: after a warm-up, 200,000 write + frameLength +
 * wrap cycles must allocate far less than one object per segment (a per-segment allocation would
 * show as megabytes). Measures bytes, never time.
 */
class HotPathAllocationTest {

    private static final int SEGMENTS = 200_000;

    @Test
    void writeFrameAndWrapDoNotAllocatePerSegment() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        ByteBuffer bb = ByteBuffer.allocateDirect(2048);
        SegmentView view = new SegmentView();
        long sink = cycle(bb, view); // warm-up: class loading and the like
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        sink += cycle(bb, view);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated over %d segments", SEGMENTS).isLessThan(16 * 1024);
    }

    private static long cycle(ByteBuffer bb, SegmentView view) {
        long sink = 0;
        for (int i = 0; i < SEGMENTS; i++) {
            SegmentType t = SegmentType.of(i % 4 == 0 ? 1 : 0, 1);
            int h = t == SegmentType.RDMA_WRITE
                    ? Segments.writeRdmaWrite(bb, 0, false, SegmentHeader.FLAG_END_OF_MESSAGE, 1000, 0, 0, i, 0, i,
                            0x1000, 5, 1000)
                    : Segments.writeSend(bb, 0, false, SegmentHeader.FLAG_END_OF_MESSAGE, 1000, 0, 0, i, 0, i);
            int len = SegmentView.frameLength(bb, 0, 4);
            view.wrap(bb, 0, len);
            sink += h + view.payloadLength() + view.messageNumber() + view.rdmaLength() + view.type().code();
        }
        return sink;
    }
}

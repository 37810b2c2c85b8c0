package io.vibridge.cm.hello;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The per-message path of FlowC 0 (flyweight header write, validate, reads, credit bookkeeping)
 * allocates nothing: measured with the JVM's per-thread allocation counter, not with time.
 */
class HotPathAllocationTest {

    private static final int MESSAGE = 1040;

    private long sink;

    private void exchange(ByteBuffer buf, FlowCredits sender, FlowCredits receiver, int n) {
        for (int i = 0; i < n; i++) {
            int mseq = sender.onSend(8);
            FlowControlHeader.write(buf, 0, 0, 8, MESSAGE, mseq, sender.mseqAck());
            FlowControlHeader.validate(buf, 0, MESSAGE);
            receiver.onReceive(FlowControlHeader.readBufs(buf, 0), FlowControlHeader.readMseq(buf, 0),
                    FlowControlHeader.readMseqAck(buf, 0));
            // the receiver answers with a header-only Send that acknowledges, returning the credit
            int ackSeq = receiver.onSend(8);
            FlowControlHeader.write(buf, 0, 0, 8, FlowControlHeader.LENGTH, ackSeq, receiver.mseqAck());
            FlowControlHeader.validate(buf, 0, FlowControlHeader.LENGTH);
            sender.onReceive(FlowControlHeader.readBufs(buf, 0), FlowControlHeader.readMseq(buf, 0),
                    FlowControlHeader.readMseqAck(buf, 0));
            sink += sender.credits() + FlowControlHeader.readFlags(buf, 0) + FlowControlHeader.readMid(buf, 0);
        }
    }

    @Test
    void perMessagePathAllocatesNothing() {
        var plain = ManagementFactory.getThreadMXBean();
        assumeTrue(plain instanceof ThreadMXBean, "per-thread allocation counter available");
        ThreadMXBean mx = (ThreadMXBean) plain;
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        long tid = Thread.currentThread().threadId();

        ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE);
        FlowCredits gateway = new FlowCredits(8, 8, 0xFFFF_0000, 7);
        FlowCredits target = new FlowCredits(8, 8, 7, 0xFFFF_0000);
        exchange(buf, gateway, target, 20_000); // warm-up, crosses the 2^32 wrap

        long before = mx.getThreadAllocatedBytes(tid);
        exchange(buf, gateway, target, 200_000);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;

        assertThat(allocated).as("bytes allocated by 200,000 message exchanges").isLessThan(512);
        assertThat(sink).isPositive();
    }
}

package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A client that stops reading while the target floods it: the target is pushed back (its SENDs
 * stall in RNR retry once the gateway's receive slots wait for the client), and the gateway's
 * buffering stays within its configured cap: the connection's staging reservation plus the bounded
 * TCP write queue.
 */
class SlowReaderTest {

    @Test
    void cutThroughWritesAreRefusedWhileTheClientDoesNotRead() throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.71", 5000, 16, 65536);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.72",
                        TestSupport.route("cut", "127.0.0.71", 5000, 1, 4), ""))) {
            try (ViTcpDriver.Raw r = new ViTcpDriver.Raw(g.port())) {
                r.called = "cut";
                r.flowControl = false;
                r.connect(30000); // never reads: the gateway's VI RDMA Writes back up in TCP
                // ask the target to RDMA WRITE 8 MiB into "our" memory, 6 times: 48 MiB, far more than the
                // loopback TCP buffers between the gateway and this client can absorb, so refusals must happen
                for (int i = 0; i < 6; i++) {
                    ByteBuffer s = r.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 20, 0, r.msg++);
                    s.putInt(24, EchoTarget.CUT_WRITE).putLong(28, 0x1000_0000L + ((long) i << 23)).putInt(36, 5)
                            .putInt(40, 8 << 20);
                    r.write(s.clear());
                }
                EndToEndTest.awaitTrue(() -> !g.bridgeContext().connections().isEmpty());
                BridgedConnection b = g.bridgeContext().connections().iterator().next();
                // the TCP side backs up: held cut-through bytes climb to the budget and stay within it
                EndToEndTest.awaitTrue(() -> b.cutThroughHeld() > CutThrough.BUDGET - 8192);
                long retransmissions = target.device.counters().retransmissions();
                for (int i = 0; i < 20; i++) {
                    assertThat(b.cutThroughHeld()).isLessThanOrEqualTo(CutThrough.BUDGET);
                    Thread.sleep(50);
                }
                // packets over the budget were refused: the target retransmits them (after its ACK timeout)
                EndToEndTest.awaitTrue(() -> target.device.counters().retransmissions() > retransmissions);
            }
        }
    }

    @Test
    void bufferingStaysBoundedWhileTheClientDoesNotRead() throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.71", 5000, 4, 65536);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.72",
                        TestSupport.route("flood", "127.0.0.71", 5000, 1, 4), ""))) {
            target.flood = true;
            long nettyBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
            try (ViTcpDriver.Raw r = new ViTcpDriver.Raw(g.port())) {
                r.called = "flood";
                r.connect(30000); // plenty of receives announced, but the client never reads its socket
                // wait until the flood stops moving: backpressure reached the target
                long last = -1;
                int stable = 0;
                long end = System.nanoTime() + TestSupport.T.toNanos();
                while (stable < 10 && System.nanoTime() < end) {
                    Thread.sleep(200);
                    long now = target.flooded.get();
                    stable = now == last ? stable + 1 : 0;
                    last = now;
                }
                assertThat(stable).as("the target's flood stopped").isGreaterThanOrEqualTo(10);
                BridgedConnection b = g.bridgeContext().connections().iterator().next();
                assertThat(b.slots().bufferedBytes()).isLessThanOrEqualTo(b.slots().reservedBytes());
                assertThat(b.slots().reservedBytes()).isLessThanOrEqualTo(g.bridgeContext().config().limits().bufferPerConnection());
                long netty = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - nettyBefore;
                // Vert.x write queue (64 KiB high-water mark) + one output batch + pool chunk granularity
                assertThat(netty).isLessThanOrEqualTo(16L << 20);
                assertThat(target.flooded.get()).as("TCP buffers filled before the flood stopped").isGreaterThan(8);
            }
        }
    }
}

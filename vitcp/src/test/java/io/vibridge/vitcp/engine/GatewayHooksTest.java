package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hooks a gateway uses: manual inbound completion and failInbound, seen from the requester. */
class GatewayHooksTest {

    @Test
    void failInboundAtReliableReceptionReportsThatMessage() {
        EngineTest.Side a = new EngineTest.Side();
        EngineTest.Side b = new EngineTest.Side();
        b.accept = EngineTest.endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "b", 500);
        ViConnection ca = ViConnection.active(a, EngineTest.endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "a", 40),
                Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        Random rnd = new Random(1);
        EngineTest.pump(ca, cb, rnd, 4096);
        EngineTest.pump(cb, ca, rnd, 4096);
        cb.manualInboundCompletion(true);
        ca.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(100), 0, false));
        ca.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(100), 0, false));
        EngineTest.pump(ca, cb, rnd, 4096);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).isEmpty(); // not acknowledged before inboundCompleted
        cb.inboundCompleted(40);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).containsExactly(Status.DONE | Status.OP_RDMA_WRITE);
        cb.failInbound(41, 1, 16);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).hasSize(2);
        assertThat(a.completed.get(1) & Status.RDMA_PROT_ERROR).isNotZero();
        assertThat(a.events).contains("broken REMOTE_ERROR 1/16");
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 1/16");
    }
}

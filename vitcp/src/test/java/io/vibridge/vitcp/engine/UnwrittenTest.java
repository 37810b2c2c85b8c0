package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Unwritten.Produced;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The produced-but-not-written ring behind {@link ViConnection#MAX_UNWRITTEN}. */
class UnwrittenTest {

    private static OutboundWork work() {
        return new EngineTest.Work(OutboundWork.OP_SEND, ByteBuffer.allocate(1), 0, false);
    }

    @Test
    void segmentsAreSettledOldestFirst_acrossTheWrap() {
        Unwritten u = new Unwritten(3);
        OutboundWork w = work();
        for (int round = 0; round < 4; round++) {
            u.add(Produced.DATA, false, null, false, false, 0);
            u.add(Produced.RESPONSE, true, null, false, false, 40 + round);
            u.add(Produced.DATA, true, w, true, true, 0);
            assertThat(u.full()).isTrue();
            assertThat(u.kind()).isEqualTo(Produced.DATA);
            assertThat(u.endOfMessage()).isFalse();
            u.remove();
            assertThat(u.kind()).isEqualTo(Produced.RESPONSE);
            assertThat(u.message()).isEqualTo(40 + round);
            u.remove();
            assertThat(u.lastOf()).isSameAs(w);
            assertThat(u.completes()).isTrue();
            assertThat(u.carriesReport()).isTrue();
            u.remove();
            assertThat(u.isEmpty()).isTrue();
        }
    }

    @Test
    void drain_collectsOnlyTheWorksWritingWouldHaveCompleted() {
        Unwritten u = new Unwritten(4);
        OutboundWork done = work();
        OutboundWork awaitingAck = work();
        u.add(Produced.CONTROL, true, null, false, false, 0);
        u.add(Produced.DATA, true, done, true, false, 0);
        u.add(Produced.DATA, true, awaitingAck, false, false, 0);
        List<OutboundWork> out = new ArrayList<>();
        u.drainCompletable(out);
        assertThat(out).containsExactly(done);
        assertThat(u.isEmpty()).isTrue();
    }
}

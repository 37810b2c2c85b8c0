package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Reliable Reception Message ACK (VITCP-PROFILE §6) and held-back completions (VIA 6.3.1.1). */
class AckTrackerTest {

    @Test
    void ackStartsBeforeThePeersImn_andAdvancesOverTheCompletedPrefixOnly() {
        AckTracker a = new AckTracker();
        a.start(true, 10);
        assertThat(a.completed()).isEqualTo(9);
        assertThat(a.unsent()).isFalse();
        a.track(10);
        a.track(11);
        a.markDone(11);
        assertThat(a.completed()).isEqualTo(9); // 10 is not complete: the ACK never passes it
        a.markDone(10);
        assertThat(a.completed()).isEqualTo(11);
        assertThat(a.unsent()).isTrue();
        assertThat(a.send(11)).isEqualTo(11);
        assertThat(a.unsent()).isFalse();
    }

    @Test
    void manyOutstandingMessages_growTheQueue_andWrapTheMessageNumbers() {
        AckTracker a = new AckTracker();
        a.start(true, -5);
        for (int m = -5; m < 20; m++) {
            a.track(m);
        }
        for (int m = 19; m > -5; m--) {
            a.markDone(m);
            assertThat(a.completed()).isEqualTo(-6);
        }
        a.markDone(-5);
        assertThat(a.completed()).isEqualTo(19);
    }

    @Test
    void belowReliableReception_nothingIsTracked_andNoAckIsDue() {
        AckTracker a = new AckTracker();
        a.start(false, 3);
        a.track(3);
        a.markDone(3);
        assertThat(a.unsent()).isFalse();
    }

    @Test
    void heldCompletions_completeInOrderWhenReleased_orFlushed() {
        List<String> seen = new ArrayList<>();
        EngineTest.Side peer = new EngineTest.Side() {
            @Override
            public void receiveCompleted(InboundReceive r, int status, long length, int immediate) {
                seen.add(((EngineTest.Recv) r).capacity() + " " + Status.describe(status) + " " + length);
            }
        };
        AckTracker a = new AckTracker();
        a.defer(new EngineTest.Recv(1), Status.DONE | Status.OP_RECEIVE, 5, 0);
        a.defer(new EngineTest.Recv(2), Status.DONE | Status.OP_RECEIVE, 6, 0);
        a.releaseDeferred(peer);
        assertThat(seen).containsExactly("1 DONE|OP_RECEIVE 5", "2 DONE|OP_RECEIVE 6");
        a.defer(new EngineTest.Recv(3), Status.DONE | Status.OP_RECEIVE, 7, 0);
        a.flushDeferred(peer, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
        a.releaseDeferred(peer);
        assertThat(seen).endsWith("3 DONE|FLUSHED|OP_RECEIVE 0").hasSize(3);
    }
}

package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** VITCP-PROFILE §9.5: the responder's window frees at the last produced segment, in order. */
class ReadResponderWindowTest {

    @Test
    void requestsAreAnsweredInOrder_andFreeTheWindowWhenTheirLastSegmentIsProduced() {
        ReadResponderWindow w = new ReadResponderWindow(2);
        w.add(7, 1000, 3, 2500);
        w.add(8, 9000, 4, 0);
        assertThat(w.full()).isTrue();
        assertThat(w.headMessage()).isEqualTo(7);
        assertThat(w.produced(1000)).isFalse();
        assertThat(w.headOffset()).isEqualTo(1000);
        assertThat(w.headAddress()).isEqualTo(2000);
        assertThat(w.headRemaining()).isEqualTo(1500);
        assertThat(w.produced(1500)).isTrue();
        assertThat(w.full()).isFalse(); // freed before written: the requester cannot have seen it earlier
        assertThat(w.headMessage()).isEqualTo(8);
        assertThat(w.headHandle()).isEqualTo(4);
        assertThat(w.produced(0)).isTrue(); // an empty Read gets one empty response (VITCP-PROFILE §9.7)
        assertThat(w.ready()).isFalse();
        assertThat(w.outstanding()).isTrue(); // two responses not written yet
        assertThat(w.lastSegmentWritten()).isFalse();
        assertThat(w.lastSegmentWritten()).isTrue();
    }

    @Test
    void aBlockedSource_holdsResponsesUntilUnblocked() {
        ReadResponderWindow w = new ReadResponderWindow(1);
        w.add(1, 0, 1, 10);
        assertThat(w.ready()).isTrue();
        w.block();
        assertThat(w.ready()).isFalse();
        w.unblock();
        assertThat(w.ready()).isTrue();
    }

    @Test
    void aZeroWindowIsAlwaysFull_andClearForgetsEverything() {
        assertThat(new ReadResponderWindow(0).full()).isTrue();
        ReadResponderWindow w = new ReadResponderWindow(3);
        w.add(1, 0, 1, 10);
        w.produced(4);
        w.block();
        w.clear();
        assertThat(w.outstanding()).isFalse();
        w.add(2, 100, 1, 10);
        assertThat(w.ready()).isTrue();
        assertThat(w.headOffset()).isZero();
        assertThat(w.headMessage()).isEqualTo(2);
    }
}

package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The InfiniBand leg's states: what each event leads to, and what each state allows. */
class LegStateTest {

    @Test
    void aDrainedConnectionSendsItsDreqThenGoesDown() {
        LegState leg = LegState.CONNECTING.onEstablished();
        assertThat(leg).isEqualTo(LegState.UP);
        assertThat(leg.posts()).isTrue();
        assertThat(leg.reposts()).isTrue();

        leg = leg.onDisconnect();
        assertThat(leg).isEqualTo(LegState.DISCONNECTING);
        assertThat(leg.disconnectSent()).isTrue();
        assertThat(leg.down()).isFalse();
        assertThat(leg.reposts()).as("the QP is in ERROR: a receive would only flush").isFalse();
        assertThat(leg.onDisconnect()).as("the DREQ goes out once").isSameAs(leg);

        leg = leg.onDown();
        assertThat(leg).isEqualTo(LegState.DISCONNECTED);
        assertThat(leg.down()).isTrue();
        assertThat(leg.posts()).isFalse();
        assertThat(leg.onDisconnect()).isSameAs(leg);
    }

    @Test
    void aLegThatWentDownStillSendsItsDreqOnce() {
        LegState leg = LegState.UP.onDown();
        assertThat(leg).isEqualTo(LegState.DOWN);
        assertThat(leg.disconnectSent()).isFalse();
        assertThat(leg.posts()).isFalse();
        assertThat(leg.reposts()).isFalse();

        leg = leg.onDisconnect();
        assertThat(leg).isEqualTo(LegState.DISCONNECTED);
        assertThat(leg.onDisconnect()).isSameAs(leg);
        assertThat(leg.onDown()).isSameAs(leg);
    }

    @Test
    void onlyAConnectingLegComesUp() {
        assertThat(LegState.CONNECTING.posts()).as("nothing goes before the REP").isFalse();
        assertThat(LegState.CONNECTING.reposts()).isTrue();
        assertThat(LegState.CONNECTING.onDown().onEstablished()).isEqualTo(LegState.DOWN);
        assertThat(LegState.CONNECTING.onDisconnect().onEstablished()).isEqualTo(LegState.DISCONNECTING);
    }

    @Test
    void aClosedLegTakesNoEvent() {
        LegState closed = LegState.CLOSED;
        assertThat(closed.onEstablished()).isSameAs(closed);
        assertThat(closed.onDisconnect()).isSameAs(closed);
        assertThat(closed.onDown()).isSameAs(closed);
        assertThat(closed.down()).isTrue();
        assertThat(closed.posts()).isFalse();
        assertThat(closed.reposts()).isFalse();
    }
}

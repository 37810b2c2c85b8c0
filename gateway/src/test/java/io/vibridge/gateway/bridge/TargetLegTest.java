package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The InfiniBand leg's states: what each event leads to, and what each state allows. */
class TargetLegTest {

    @Test
    void aDrainedConnectionSendsItsDreqThenGoesDown() {
        TargetLeg leg = TargetLeg.CONNECTING.onEstablished();
        assertThat(leg).isEqualTo(TargetLeg.UP);
        assertThat(leg.posts()).isTrue();
        assertThat(leg.reposts()).isTrue();

        leg = leg.onDisconnect();
        assertThat(leg).isEqualTo(TargetLeg.DISCONNECTING);
        assertThat(leg.disconnectSent()).isTrue();
        assertThat(leg.down()).isFalse();
        assertThat(leg.reposts()).as("the QP is in ERROR: a receive would only flush").isFalse();
        assertThat(leg.onDisconnect()).as("the DREQ goes out once").isSameAs(leg);

        leg = leg.onDown();
        assertThat(leg).isEqualTo(TargetLeg.DISCONNECTED);
        assertThat(leg.down()).isTrue();
        assertThat(leg.posts()).isFalse();
        assertThat(leg.onDisconnect()).isSameAs(leg);
    }

    @Test
    void aLegThatWentDownStillSendsItsDreqOnce() {
        TargetLeg leg = TargetLeg.UP.onDown();
        assertThat(leg).isEqualTo(TargetLeg.DOWN);
        assertThat(leg.disconnectSent()).isFalse();
        assertThat(leg.posts()).isFalse();
        assertThat(leg.reposts()).isFalse();

        leg = leg.onDisconnect();
        assertThat(leg).isEqualTo(TargetLeg.DISCONNECTED);
        assertThat(leg.onDisconnect()).isSameAs(leg);
        assertThat(leg.onDown()).isSameAs(leg);
    }

    @Test
    void onlyAConnectingLegComesUp() {
        assertThat(TargetLeg.CONNECTING.posts()).as("nothing goes before the REP").isFalse();
        assertThat(TargetLeg.CONNECTING.reposts()).isTrue();
        assertThat(TargetLeg.CONNECTING.onDown().onEstablished()).isEqualTo(TargetLeg.DOWN);
        assertThat(TargetLeg.CONNECTING.onDisconnect().onEstablished()).isEqualTo(TargetLeg.DISCONNECTING);
    }

    @Test
    void aClosedLegTakesNoEvent() {
        TargetLeg closed = TargetLeg.CLOSED;
        assertThat(closed.onEstablished()).isSameAs(closed);
        assertThat(closed.onDisconnect()).isSameAs(closed);
        assertThat(closed.onDown()).isSameAs(closed);
        assertThat(closed.down()).isTrue();
        assertThat(closed.posts()).isFalse();
        assertThat(closed.reposts()).isFalse();
    }
}

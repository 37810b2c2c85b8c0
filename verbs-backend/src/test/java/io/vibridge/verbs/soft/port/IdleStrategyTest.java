package io.vibridge.verbs.soft.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The phases of each idle strategy, by the time since the last work (no clock: the caller passes it). */
class IdleStrategyTest {

    @Test
    void blockNeverPolls() {
        assertThat(IdleStrategy.BLOCK.blocks()).isTrue();
        assertThat(IdleStrategy.BLOCK.idle(0)).isFalse();
    }

    @Test
    void spinNeverBlocks() {
        assertThat(IdleStrategy.SPIN.blocks()).isFalse();
        assertThat(IdleStrategy.SPIN.idle(0)).isTrue();
        assertThat(IdleStrategy.SPIN.idle(Long.MAX_VALUE - 1)).isTrue();
    }

    @Test
    void backoffSpinsThenYieldsThenBlocks() {
        IdleStrategy b = IdleStrategy.BACKOFF;
        assertThat(b.blocks()).isFalse();
        assertThat(b.idle(0)).isTrue();
        assertThat(b.idle(b.spinNanos() + 1)).isTrue();                       // yielding
        assertThat(b.idle(b.spinNanos() + b.yieldNanos() - 1)).isTrue();
        assertThat(b.idle(b.spinNanos() + b.yieldNanos())).isFalse();          // block
    }

    @Test
    void parse() {
        assertThat(IdleStrategy.parse(null)).isSameAs(IdleStrategy.BLOCK);
        assertThat(IdleStrategy.parse("Backoff")).isSameAs(IdleStrategy.BACKOFF);
        assertThatThrownBy(() -> IdleStrategy.parse("busy")).hasMessage("idle must be block, spin or backoff, got busy");
    }
}

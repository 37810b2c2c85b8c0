package io.vibridge.vitcp.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplayGuardTest {

    private static byte[] mac(int i) {
        byte[] m = new byte[32];
        m[0] = (byte) i;
        m[31] = (byte) (i >>> 8);
        return m;
    }

    @Test
    void remembersForTheWindowThenForgets() {
        ReplayGuard g = new ReplayGuard(10, 120_000);
        assertThat(g.admit(mac(1), 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.admit(mac(1), 120_999)).isEqualTo(ReplayGuard.Outcome.REPLAY);
        assertThat(g.admit(mac(1), 121_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
    }

    @Test
    void neverExceedsCapacity() {
        ReplayGuard g = new ReplayGuard(100, 120_000);
        int full = 0;
        for (int i = 0; i < 1000; i++) {
            if (g.admit(mac(i), 5_000 + i) == ReplayGuard.Outcome.FULL) {
                full++;
            }
            assertThat(g.size()).isLessThanOrEqualTo(100);
        }
        assertThat(full).isEqualTo(900);
        // a replay of a remembered entry is still a replay when full
        assertThat(g.admit(mac(5), 6_000)).isEqualTo(ReplayGuard.Outcome.REPLAY);
        // once the window passes, room comes back
        assertThat(g.admit(mac(2000), 5_000 + 120_000 + 50)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.size()).isEqualTo(50);
    }

    @Test
    void callerMutationDoesNotAffectEntries() {
        ReplayGuard g = new ReplayGuard(4, 1_000);
        byte[] m = mac(7);
        g.admit(m, 0);
        m[3] = 9;
        assertThat(g.admit(mac(7), 1)).isEqualTo(ReplayGuard.Outcome.REPLAY);
    }

    @Test
    void arguments() {
        assertThatThrownBy(() -> new ReplayGuard(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplayGuard(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

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
    void remembersUntilTheExpiryThenForgets() {
        ReplayGuard g = new ReplayGuard(10, 10);
        assertThat(g.admit(mac(1), null, 6_001, 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.admit(mac(1), null, 9_999, 6_000)).isEqualTo(ReplayGuard.Outcome.REPLAY);
        assertThat(g.admit(mac(1), null, 12_001, 6_001)).isEqualTo(ReplayGuard.Outcome.FRESH);
    }

    @Test
    void neverExceedsCapacity() {
        ReplayGuard g = new ReplayGuard(100, 100);
        int full = 0;
        for (int i = 0; i < 1000; i++) {
            if (g.admit(mac(i), null, 10_000 + i, 5_000 + i) == ReplayGuard.Outcome.FULL) {
                full++;
            }
            assertThat(g.size()).isLessThanOrEqualTo(100);
        }
        assertThat(full).isEqualTo(900);
        // a replay of a remembered entry is still a replay when full
        assertThat(g.admit(mac(5), null, 20_000, 6_000)).isEqualTo(ReplayGuard.Outcome.REPLAY);
        // expired entries go first: the 51 that expire by 10,050 (10,000 to 10,050)
        assertThat(g.admit(mac(2000), null, 20_000, 10_050)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.size()).isEqualTo(50);
    }

    /** Expiry follows each entry's own timestamp, not the order of arrival. */
    @Test
    void expiryFollowsEachEntrysOwnTime() {
        ReplayGuard g = new ReplayGuard(2, 2);
        assertThat(g.admit(mac(1), null, 20_000, 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.admit(mac(2), null, 3_000, 1_001)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.admit(mac(3), null, 9_000, 2_000)).isEqualTo(ReplayGuard.Outcome.FULL);
        assertThat(g.admit(mac(3), null, 9_000, 3_000)).isEqualTo(ReplayGuard.Outcome.FRESH);  // mac 2 expired
        assertThat(g.admit(mac(1), null, 20_000, 3_000)).isEqualTo(ReplayGuard.Outcome.REPLAY);
    }

    /** One client filling its share leaves room for the others. */
    @Test
    void aClientsShareIsBounded() {
        ReplayGuard g = new ReplayGuard(100, 10);
        for (int i = 0; i < 10; i++) {
            assertThat(g.admit(mac(i), "flooder", 60_000, 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        }
        assertThat(g.admit(mac(10), "flooder", 60_000, 1_000)).isEqualTo(ReplayGuard.Outcome.FULL);
        assertThat(g.size("flooder")).isEqualTo(10);
        assertThat(g.admit(mac(11), "other", 60_000, 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.admit(mac(12), null, 60_000, 1_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        // the share comes back as the client's entries expire
        assertThat(g.admit(mac(13), "flooder", 120_000, 60_000)).isEqualTo(ReplayGuard.Outcome.FRESH);
        assertThat(g.size("flooder")).isEqualTo(1);
        assertThat(g.size("other")).isZero();
    }

    @Test
    void callerMutationDoesNotAffectEntries() {
        ReplayGuard g = new ReplayGuard(4, 4);
        byte[] m = mac(7);
        g.admit(m, null, 1_000, 0);
        m[3] = 9;
        assertThat(g.admit(mac(7), null, 1_000, 1)).isEqualTo(ReplayGuard.Outcome.REPLAY);
    }

    @Test
    void arguments() {
        assertThatThrownBy(() -> new ReplayGuard(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplayGuard(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplayGuard(4, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}

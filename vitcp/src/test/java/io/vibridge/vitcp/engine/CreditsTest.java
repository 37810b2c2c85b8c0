package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** VITCP-PROFILE §6 / §9.4 credit arithmetic, both ways, without a connection. */
class CreditsTest {

    private static Credits connected(int ourInitial, int threshold, int peerInitial) {
        Credits c = new Credits();
        c.initial(ourInitial);
        c.establish(true, threshold, peerInitial);
        return c;
    }

    @Test
    void sendingUsesThePeersAnnouncedCredits() {
        Credits c = connected(0, 8, 2);
        assertThat(c.peerCredits()).isEqualTo(2);
        c.use();
        c.use();
        assertThat(c.peerCredits()).isZero();
        assertThat(c.mayUseCredit()).isFalse();
        c.peerRxPosted(3); // a later segment announces one more
        assertThat(c.mayUseCredit()).isTrue();
    }

    @Test
    void aPeerGoingBackwards_isNoCredit_andWithoutFlowControlNothingIsCounted() {
        Credits c = connected(0, 8, 0);
        c.use(); // one more than announced: 65535 mod 2^16
        assertThat(c.peerCredits()).isEqualTo(0xFFFF);
        assertThat(c.mayUseCredit()).isFalse();
        Credits free = new Credits();
        free.establish(false, 8, 0);
        assertThat(free.mayUseCredit()).isTrue();
        free.receivePosted();
        assertThat(free.announcementDue()).isFalse();
        free.peerUsed();
        assertThat(free.peerWouldAbuse()).isFalse();
    }

    @Test
    void rxPostedWrapsAt16BitsOnTheWire_andIsComparedByDifference() {
        Credits c = connected(0xFFFF, 8, 0);
        c.receivePosted();
        assertThat(c.rxPosted() & 0xFFFF).isZero();
        c.announced();
        for (int i = 0; i < 0x10000; i++) {
            assertThat(c.peerWouldAbuse()).isFalse();
            c.peerUsed();
        }
        assertThat(c.peerWouldAbuse()).isTrue();
    }

    @Test
    void announcement_comesInBatchesOfHalfTheThreshold_orAtOnceWhenThePeerHasNone() {
        Credits c = connected(4, 8, 0);
        assertThat(c.announcementDue()).isFalse();
        for (int i = 0; i < 3; i++) {
            c.receivePosted();
            assertThat(c.announcementDue()).isFalse(); // the peer still knows 4 < 8, but only 1..3 are new
        }
        c.receivePosted();
        assertThat(c.announcementDue()).isTrue(); // 4 new = threshold / 2
        c.announced();
        assertThat(c.announcementDue()).isFalse();

        Credits empty = connected(1, 8, 0);
        empty.peerConsumed(); // the peer used its only credit
        empty.receivePosted();
        assertThat(empty.announcementDue()).isTrue();
    }

    @Test
    void peerAbuse_isUsingMoreThanWasAnnounced_notMoreThanWasPosted() {
        Credits c = connected(1, 8, 0);
        assertThat(c.peerWouldAbuse()).isFalse();
        c.peerUsed();
        assertThat(c.peerWouldAbuse()).isTrue();
        c.receivePosted(); // posted, but the peer cannot know yet
        assertThat(c.peerWouldAbuse()).isTrue();
        c.announced();
        assertThat(c.peerWouldAbuse()).isFalse();
    }
}

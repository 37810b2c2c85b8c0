package io.vibridge.cm.hello;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import org.junit.jupiter.api.Test;

class FlowCreditsTest {

    @Test
    void initialCreditsAreThePeersBufs() {
        FlowCredits c = new FlowCredits(4, 8);
        assertThat(c.credits()).isEqualTo(4);
        assertThat(c.unacknowledged()).isZero();
        assertThat(c.nextMseq()).isEqualTo(1);
        assertThat(c.mseqAck()).isZero();
        assertThat(c.peerCredits()).isEqualTo(8);
        assertThat(c.canSend()).isTrue();
        assertThat(c.canSendData()).isTrue();
    }

    @Test
    void headerlessSendTakesACreditAndAnMseqButAdvertisesNothing() {
        FlowCredits c = new FlowCredits(3, 8);
        c.onReceive(3, 1, 0);                 // peer's message 1: our view of its credits 8 - 1 = 7
        c.onReceive(3, 2, 0);
        assertThat(c.peerCredits()).isEqualTo(6);
        assertThat(c.onHeaderlessSend()).isEqualTo(1);
        assertThat(c.credits()).isEqualTo(2);
        assertThat(c.peerCredits()).as("a header-less send does not tell the peer mseqack 2").isEqualTo(6);
        assertThat(c.onSend(5)).isEqualTo(2);
        assertThat(c.peerCredits()).as("a header tells it: bufs 5, ack 2").isEqualTo(5);
        assertThat(c.onHeaderlessSend()).isEqualTo(3);
        assertThat(c.canSend()).isFalse();
        assertThatThrownBy(c::onHeaderlessSend).isInstanceOf(IllegalStateException.class);
        assertThat(c.onHeaderlessReceive()).isEqualTo(3);
        assertThat(c.mseqAck()).isEqualTo(3);
        assertThat(c.peerCredits()).isEqualTo(4);
        c.onReceive(8, 4, 3);                  // the next header continues after the header-less one
        assertThat(c.credits()).isEqualTo(8);
    }

    @Test
    void sendingConsumesCreditsAndAcksReturnThem() {
        FlowCredits c = new FlowCredits(3, 8);
        assertThat(c.onSend(8)).isEqualTo(1);
        assertThat(c.onSend(8)).isEqualTo(2);
        assertThat(c.credits()).isEqualTo(1);
        assertThat(c.canSendData()).as("last credit kept for a credit update").isFalse();
        assertThat(c.canSend()).isTrue();
        assertThat(c.onSend(8)).isEqualTo(3);
        assertThat(c.credits()).isZero();
        assertThat(c.canSend()).isFalse();
        assertThatThrownBy(() -> c.onSend(8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no send credit");
        assertThat(c.lastSentMseq()).isEqualTo(3);

        // Peer consumed 1 and 2 and reposted: 3 bufs, ack 2 -> 3 - (3 - 2) = 2 credits.
        c.onReceive(3, 1, 2);
        assertThat(c.unacknowledged()).isEqualTo(1);
        assertThat(c.credits()).isEqualTo(2);
        assertThat(c.mseqAck()).isEqualTo(1);
    }

    @Test
    void shrinkingPeerBufsNeverGivesNegativeCredits() {
        FlowCredits c = new FlowCredits(4, 1);
        c.onSend(1);
        c.onSend(1);
        c.onReceive(1, 1, 0); // peer now has only 1 buffer and acked nothing
        assertThat(c.credits()).isZero();
        assertThat(c.canSend()).isFalse();
    }

    @Test
    void peerCreditsFollowOurAdvertisements() {
        FlowCredits c = new FlowCredits(10, 4);
        c.onReceive(10, 1, 0);
        c.onReceive(10, 2, 0);
        assertThat(c.peerCredits()).isEqualTo(2); // advertised 4 at ack 0, received 2 since
        c.onSend(6); // credit update: 6 posted, ack 2
        assertThat(c.peerCredits()).isEqualTo(6);
        c.onReceive(10, 3, 1);
        assertThat(c.peerCredits()).isEqualTo(5);
    }

    @Test
    void rejectsOutOfSequenceMseq() {
        FlowCredits c = new FlowCredits(2, 2);
        assertThatThrownBy(() -> c.onReceive(2, 2, 0))
                .isInstanceOfSatisfying(CmFormatException.class, e -> {
                    assertThat(e.field()).isEqualTo("mseq");
                    assertThat(e.offset()).isEqualTo(8);
                });
        assertThatThrownBy(() -> c.onReceive(2, 0, 0)).isInstanceOf(CmFormatException.class);
        c.onReceive(2, 1, 0);
        assertThat(c.mseqAck()).isEqualTo(1);
    }

    @Test
    void rejectsAckOfUnsentOrBackwards() {
        FlowCredits c = new FlowCredits(5, 5);
        c.onSend(5);
        c.onSend(5);
        assertThatThrownBy(() -> c.onReceive(5, 1, 3))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("mseqack"));
        c.onReceive(5, 1, 2);
        assertThatThrownBy(() -> c.onReceive(5, 2, 1))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("mseqack"));
        // A refused message changed nothing.
        assertThat(c.mseqAck()).isEqualTo(1);
        assertThat(c.unacknowledged()).isZero();
        assertThat(c.credits()).isEqualTo(5);
    }

    @Test
    void wrapsAroundTheSequenceSpace() {
        FlowCredits c = new FlowCredits(4, 4, 0xFFFF_FFFE, 0xFFFF_FFFF);
        assertThat(c.onSend(4)).isEqualTo(0xFFFF_FFFF);
        assertThat(c.onSend(4)).isZero();
        assertThat(c.onSend(4)).isEqualTo(1);
        assertThat(c.unacknowledged()).isEqualTo(3);
        assertThat(c.credits()).isEqualTo(1);
        c.onReceive(4, 0, 0); // peer's mseq wraps to 0; it acks our mseq 0
        assertThat(c.mseqAck()).isZero();
        assertThat(c.unacknowledged()).isEqualTo(1);
        assertThat(c.credits()).isEqualTo(3);
        assertThatThrownBy(() -> c.onReceive(4, 1, 0xFFFF_FFFF)).isInstanceOf(CmFormatException.class);
        c.onReceive(4, 1, 1);
        assertThat(c.credits()).isEqualTo(4);
    }

    @Test
    void rangesAreChecked() {
        assertThatThrownBy(() -> new FlowCredits(65536, 1)).hasMessageContaining("peerInitialBufs");
        assertThatThrownBy(() -> new FlowCredits(1, -1)).hasMessageContaining("myInitialBufs");
        FlowCredits c = new FlowCredits(1, 1);
        assertThatThrownBy(() -> c.onSend(70000)).hasMessageContaining("bufsAdvertised");
    }

    @Test
    void creditUpdateWhenThePeerIsShortAndWeHaveMorePosted() {
        FlowCredits c = new FlowCredits(3, 3);
        assertThat(c.shouldSendCreditUpdate(3)).isFalse(); // peer believes 3
        c.onReceive(3, 1, 0);
        c.onReceive(3, 2, 0);
        assertThat(c.peerCredits()).isEqualTo(1);
        assertThat(c.shouldSendCreditUpdate(1)).as("nothing new posted").isFalse();
        assertThat(c.shouldSendCreditUpdate(3)).isTrue();
        c.onSend(3);
        assertThat(c.peerCredits()).isEqualTo(3);
        assertThat(c.shouldSendCreditUpdate(3)).isFalse();
        // An update from the peer costs one of our buffers: its view drops to 2, no answer needed.
        c.onReceive(3, 3, 1);
        assertThat(c.shouldSendCreditUpdate(3)).isFalse();
    }

    @Test
    void noCreditUpdateWithoutACredit() {
        FlowCredits c = new FlowCredits(1, 3);
        c.onSend(3);
        c.onReceive(1, 1, 0); // peer still has 1 buffer and has not consumed our Send yet
        c.onReceive(1, 2, 0);
        assertThat(c.canSend()).isFalse();
        assertThat(c.shouldSendCreditUpdate(3)).isFalse();
    }
}

package io.vibridge.cm.hello;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Two FlowC 0 endpoints joined by in-order channels (an RC connection), driven by random action
 * sequences and starting sequence numbers close to the 2^32 wrap: no Send ever finds its receiver
 * without a posted buffer (no RNR), and once both sides repost and exchange credit updates, both
 * may send payload again (no credit deadlock) and the updates stop (no ping-pong).
 */
class FlowCreditsPropertiesTest {

    /** One side: its credits, the receives it has posted and the received messages not yet reposted. */
    static final class Side {
        final FlowCredits credits;
        final int maxBufs;
        int posted;
        int consumed;
        final ArrayDeque<byte[]> toPeer = new ArrayDeque<>();

        Side(int myBufs, int peerBufs, int sendStart, int receiveStart) {
            this.maxBufs = myBufs;
            this.posted = myBufs;
            this.credits = new FlowCredits(peerBufs, myBufs, sendStart, receiveStart);
        }

        void send(int payload) {
            int mseq = credits.onSend(posted);
            ByteBuffer msg = ByteBuffer.allocate(FlowControlHeader.LENGTH + payload);
            FlowControlHeader.write(msg, 0, 0, posted, msg.capacity(), mseq, credits.mseqAck());
            toPeer.add(msg.array());
        }

        /** An RDMA WRITE WITH IMMEDIATE: takes a receive and an mseq, carries no header. */
        void sendHeaderless() {
            credits.onHeaderlessSend();
            toPeer.add(HEADERLESS);
        }

        void receive(byte[] msg) {
            assertThat(posted).as("a receive buffer is posted when a Send arrives (no RNR)").isPositive();
            posted--;
            consumed++;
            if (msg == HEADERLESS) {
                credits.onHeaderlessReceive();
                return;
            }
            ByteBuffer buf = ByteBuffer.wrap(msg);
            FlowControlHeader.validate(buf, 0, msg.length);
            credits.onReceive(FlowControlHeader.readBufs(buf, 0), FlowControlHeader.readMseq(buf, 0),
                    FlowControlHeader.readMseqAck(buf, 0));
        }

        void repost() {
            if (consumed > 0) {
                consumed--;
                posted++;
            }
        }
    }

    /** Marker for a header-less message in a channel. */
    static final byte[] HEADERLESS = new byte[0];

    @Provide
    Arbitrary<List<Integer>> actions() {
        return Arbitraries.integers().between(0, 9).list().ofMaxSize(400);
    }

    @Provide
    Arbitrary<Integer> nearWrap() {
        return Arbitraries.oneOf(Arbitraries.integers().between(-300, 300), Arbitraries.integers());
    }

    @Property(tries = 300)
    void noRnrAndNoDeadlock(@ForAll("actions") List<Integer> actions,
            @ForAll @IntRange(min = 3, max = 8) int bufsA, @ForAll @IntRange(min = 3, max = 8) int bufsB,
            @ForAll("nearWrap") int seqAtoB, @ForAll("nearWrap") int seqBtoA) {
        run(actions, bufsA, bufsB, seqAtoB, seqBtoA);
    }

    @Provide
    Arbitrary<List<Integer>> actionsWithHeaderless() {
        return Arbitraries.integers().between(0, 11).list().ofMaxSize(400);
    }

    /**
     * Header-less Sends (RDMA WRITE WITH IMMEDIATE) mixed in: still no RNR, no deadlock, quiet
     * updates; and whenever the channels are empty each side's view of the credits it gave the peer
     * ({@code peerCredits}) is exactly the peer's own {@code credits()}: a header-less Send
     * advertises nothing (recording it with {@code onSend} would break this).
     */
    @Property(tries = 300)
    void headerlessSendsAdvertiseNothing(@ForAll("actionsWithHeaderless") List<Integer> actions,
            @ForAll @IntRange(min = 3, max = 8) int bufsA, @ForAll @IntRange(min = 3, max = 8) int bufsB,
            @ForAll("nearWrap") int seqAtoB, @ForAll("nearWrap") int seqBtoA) {
        run(actions, bufsA, bufsB, seqAtoB, seqBtoA);
    }

    private static void assertViewsAgree(Side a, Side b) {
        if (a.toPeer.isEmpty() && b.toPeer.isEmpty()) {
            assertThat(a.credits.peerCredits()).as("A's view of B's credits").isEqualTo(b.credits.credits());
            assertThat(b.credits.peerCredits()).as("B's view of A's credits").isEqualTo(a.credits.credits());
        }
    }

    private static void run(List<Integer> actions, int bufsA, int bufsB, int seqAtoB, int seqBtoA) {
        Side a = new Side(bufsA, bufsB, seqAtoB, seqBtoA);
        Side b = new Side(bufsB, bufsA, seqBtoA, seqAtoB);
        for (int action : actions) {
            Side me = action % 2 == 0 ? a : b;
            Side peer = me == a ? b : a;
            switch (action / 2) {
                case 0, 1 -> {
                    if (me.credits.canSendData()) {
                        me.send(1 + action);
                    }
                }
                case 2 -> {
                    if (!me.toPeer.isEmpty()) {
                        peer.receive(me.toPeer.poll());
                    }
                }
                case 3 -> me.repost();
                case 5 -> {
                    if (me.credits.canSendData()) {
                        me.sendHeaderless();
                    }
                }
                default -> {
                    if (me.credits.shouldSendCreditUpdate(me.posted)) {
                        me.send(0);
                    }
                }
            }
            assertViewsAgree(a, b);
        }
        // Drain: deliver everything, repost everything, exchange credit updates until quiet.
        boolean quiet = false;
        for (int round = 0; round < 20 && !quiet; round++) {
            for (Side s : new Side[] {a, b}) {
                Side peer = s == a ? b : a;
                while (!s.toPeer.isEmpty()) {
                    peer.receive(s.toPeer.poll());
                }
            }
            for (Side s : new Side[] {a, b}) {
                while (s.consumed > 0) {
                    s.repost();
                }
            }
            quiet = true;
            for (Side s : new Side[] {a, b}) {
                if (s.credits.shouldSendCreditUpdate(s.posted)) {
                    s.send(0);
                    quiet = false;
                }
            }
        }
        assertViewsAgree(a, b);
        assertThat(quiet).as("credit updates settle instead of answering each other forever").isTrue();
        assertThat(a.credits.canSendData()).as("A can send payload after the drain").isTrue();
        assertThat(b.credits.canSendData()).as("B can send payload after the drain").isTrue();
        // Credits never exceed what the peer can hold (peerBufs is at most its posted buffers).
        assertThat(a.credits.credits() + a.credits.unacknowledged()).isBetween(2, bufsB);
        assertThat(b.credits.credits() + b.credits.unacknowledged()).isBetween(2, bufsA);
    }
}

package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Seed 002's sender rule on its own: which type each message goes out with. */
class UnorderedGateTest {

    /** A work with a seed-002 hint. */
    static class Hinted extends EngineTest.Work {
        final OrderingHint hint;

        Hinted(int op, OrderingHint hint, int length, long remote) {
            super(op, ByteBuffer.allocate(length), remote, false);
            this.hint = hint;
        }

        Hinted(int op, OrderingHint hint) {
            this(op, hint, 10, 0);
        }

        @Override
        public OrderingHint orderingHint() {
            return hint;
        }
    }

    static Hinted unordered(int op) {
        return new Hinted(op, OrderingHint.UNORDERED);
    }

    static Hinted ordered(int op) {
        return new Hinted(op, OrderingHint.ORDERED);
    }

    static Hinted halfOrdered(int op) {
        return new Hinted(op, OrderingHint.HALF_ORDERED);
    }

    @Test
    void unorderedWorks_goWithTheUnorderedTypes_whenThePeerUnderstandsThem() {
        UnorderedGate g = new UnorderedGate(true, false);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 1)).isEqualTo(SegmentType.SEND_UNORDERED);
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_WRITE), 2)).isEqualTo(SegmentType.RDMA_WRITE_UNORDERED);
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_READ), 3)).isEqualTo(SegmentType.RDMA_READ_REQUEST_UNORDERED);
        assertThat(g.orderedUnacknowledged()).isFalse(); // unordered works do not count as ordered
    }

    @Test
    void aPeerWithoutBit6_getsOnlyOrderedTypes() {
        UnorderedGate g = new UnorderedGate(false, true);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 1)).isEqualTo(SegmentType.SEND);
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_WRITE), 2)).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_READ), 3)).isEqualTo(SegmentType.RDMA_READ_REQUEST);
    }

    @Test
    void orderedAndHalfOrderedWorks_alwaysGoWithTheOrderedTypes() {
        UnorderedGate g = new UnorderedGate(true, true);
        assertThat(g.start(halfOrdered(OutboundWork.OP_SEND), 1)).isEqualTo(SegmentType.SEND);
        assertThat(g.start(halfOrdered(OutboundWork.OP_RDMA_READ), 2)).isEqualTo(SegmentType.RDMA_READ_REQUEST);
        assertThat(g.start(ordered(OutboundWork.OP_RDMA_WRITE), 3)).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(g.start(new EngineTest.Work(OutboundWork.OP_SEND, ByteBuffer.allocate(1), 0, false), 4))
                .as("the default hint").isEqualTo(SegmentType.SEND);
    }

    @Test
    void withoutMessageAcks_anOrderedMessageHoldsEveryLaterUnorderedWorkBack() {
        // Reliable Delivery / Unreliable Delivery: nothing tells that the ordered message arrived
        UnorderedGate g = new UnorderedGate(true, false);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 10)).isEqualTo(SegmentType.SEND_UNORDERED);
        g.start(ordered(OutboundWork.OP_SEND), 11);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 12)).isEqualTo(SegmentType.SEND);
        g.acknowledged(12); // a Message ACK means nothing at these levels
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_WRITE), 13)).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(g.start(halfOrdered(OutboundWork.OP_SEND), 14)).isEqualTo(SegmentType.SEND);
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_READ), 15)).isEqualTo(SegmentType.RDMA_READ_REQUEST);
    }

    @Test
    void atReliableReception_theMessageAckCoveringTheLastOrderedMessage_releasesUnorderedTypes() {
        UnorderedGate g = new UnorderedGate(true, true);
        g.start(ordered(OutboundWork.OP_SEND), 20);
        g.start(ordered(OutboundWork.OP_RDMA_WRITE), 21);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 22)).isEqualTo(SegmentType.SEND);
        g.acknowledged(20); // 21 is still unacknowledged
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 23)).isEqualTo(SegmentType.SEND);
        g.acknowledged(21);
        assertThat(g.orderedUnacknowledged()).isFalse();
        // 22 and 23 are not acknowledged, but they are not ordered messages
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 24)).isEqualTo(SegmentType.SEND_UNORDERED);
        g.acknowledged(19); // an older ACK changes nothing
        assertThat(g.start(unordered(OutboundWork.OP_RDMA_READ), 25)).isEqualTo(SegmentType.RDMA_READ_REQUEST_UNORDERED);
    }

    @Test
    void messageNumbersWrapAround_modulo2to32() {
        UnorderedGate g = new UnorderedGate(true, true);
        g.start(ordered(OutboundWork.OP_SEND), 0xFFFF_FFFF);
        g.acknowledged(0xFFFF_FFFE);
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 0)).isEqualTo(SegmentType.SEND);
        g.acknowledged(0); // covers 0xFFFFFFFF too (cumulative, mod 2^32)
        assertThat(g.start(unordered(OutboundWork.OP_SEND), 1)).isEqualTo(SegmentType.SEND_UNORDERED);
    }

    @Test
    void halfOrdered_followedByUnordered_goesUnorderedAtOnce() {
        // seed 002: the half-ordered bit lets later unordered messages go unordered without waiting
        for (boolean rr : new boolean[] {false, true}) {
            UnorderedGate g = new UnorderedGate(true, rr);
            assertThat(g.start(halfOrdered(OutboundWork.OP_SEND), 5)).isEqualTo(SegmentType.SEND);
            assertThat(g.start(unordered(OutboundWork.OP_RDMA_WRITE), 6)).isEqualTo(SegmentType.RDMA_WRITE_UNORDERED);
            assertThat(g.start(halfOrdered(OutboundWork.OP_RDMA_WRITE), 7)).isEqualTo(SegmentType.RDMA_WRITE);
            assertThat(g.start(unordered(OutboundWork.OP_SEND), 8)).isEqualTo(SegmentType.SEND_UNORDERED);
        }
    }
}

package io.vibridge.gateway.ib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.gateway.ib.FlowC0Channel.Inbound;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Completions in, posted work requests out: no device, no sockets. */
class FlowC0ChannelTest {

    private enum Kind { RECV, SEND, CREDIT }

    private static final int SLOT = 64;
    private static final int SLOTS = 4;
    private static final int UPDATE = SLOTS * SLOT;
    private static final long UPDATE_ID = WrId.of(Kind.CREDIT, 0);

    private final RecordingQueuePair qp = new RecordingQueuePair();
    private final RecordingQueuePair.Region region = RecordingQueuePair.Region.of(UPDATE + 16);
    private final ByteBuffer buf = region.buffer();

    private FlowC0Channel channel(FlowCredits credits) {
        FlowC0Channel ch = FlowC0Channel.of(qp, region, UPDATE, UPDATE_ID);
        for (int i = 0; i < SLOTS; i++) {
            ch.postReceive(WrId.of(Kind.RECV, i), region, i * SLOT, SLOT);
        }
        ch.start(credits);
        return ch;
    }

    /** The peer's Send of {@code payload} bytes with this header, landed in receive slot {@code slot}. */
    private WorkCompletion received(int slot, int flags, int bufs, int payload, int mseq, int mseqAck) {
        FlowControlHeader.write(buf, slot * SLOT, flags, bufs, 16 + payload, mseq, mseqAck);
        return completion(slot, WcOpcode.RECV, 16 + payload);
    }

    private static WorkCompletion completion(int slot, WcOpcode opcode, int length) {
        WorkCompletion wc = new WorkCompletion();
        wc.wrId = WrId.of(Kind.RECV, slot);
        wc.opcode = opcode;
        wc.byteLength = length;
        return wc;
    }

    private static WorkCompletion sendDone(long wrId, WcStatus status) {
        WorkCompletion wc = new WorkCompletion();
        wc.wrId = wrId;
        wc.status = status;
        return wc;
    }

    private FlowControlHeader header(RecordingQueuePair.Send s) {
        return FlowControlHeader.decode(s.region().buffer().duplicate().position(s.offset()));
    }

    @Test
    void sendWritesTheHeaderIntoTheHeadroomAndWaitsForCredits() {
        FlowC0Channel ch = channel(new FlowCredits(3, SLOTS));
        assertThat(ch.headroom()).isEqualTo(16);
        assertThat(ch.postedReceives()).isEqualTo(SLOTS);

        ch.send(WrId.of(Kind.SEND, 1), region, SLOT + 16, 10, false, 0);
        RecordingQueuePair.Send s = qp.lastSend();
        assertThat(s.opcode()).isEqualTo(WrOpcode.SEND);
        assertThat(s.offset()).isEqualTo(SLOT);
        assertThat(s.length()).isEqualTo(26);
        assertThat(header(s)).isEqualTo(new FlowControlHeader(0, SLOTS, 26, 1, 0));

        ch.send(WrId.of(Kind.SEND, 2), region, 2 * SLOT + 16, 0, true, 0x1234);
        assertThat(qp.lastSend().opcode()).isEqualTo(WrOpcode.SEND_WITH_IMM);
        assertThat(qp.lastSend().immediate()).isEqualTo(0x1234);
        assertThat(ch.canSend()).as("the last credit is kept for a credit update").isFalse();
        assertThatThrownBy(() -> ch.send(WrId.of(Kind.SEND, 3), region, 3 * SLOT + 16, 1, false, 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("1 credits");
        assertThat(qp.sends).hasSize(2);

        // the peer consumed both and reposted: its mseqack 2 gives the credits back
        assertThat(ch.onReceive(received(0, 0, 3, 5, 1, 2), buf, 0)).isEqualTo(Inbound.MESSAGE);
        assertThat(ch.postedReceives()).isEqualTo(SLOTS - 1);
        assertThat(ch.canSend()).isTrue();
        ch.send(WrId.of(Kind.SEND, 3), region, 3 * SLOT + 16, 1, false, 0);
        assertThat(header(qp.lastSend())).as("bufs: posted now, mseqack: the peer's message 1")
                .isEqualTo(new FlowControlHeader(0, SLOTS - 1, 17, 3, 1));
    }

    @Test
    void zeroLengthMessageIsFlaggedAndTellsItselfFromACreditUpdate() {
        FlowC0Channel ch = channel(new FlowCredits(8, SLOTS));
        ch.send(WrId.of(Kind.SEND, 0), region, 16, 0, false, 0);
        assertThat(header(qp.lastSend()).flags()).isEqualTo(FlowControlHeader.FLAG_EMPTY_MESSAGE);
        assertThat(header(qp.lastSend()).emptyMessage()).isTrue();

        assertThat(ch.onReceive(received(1, FlowControlHeader.FLAG_EMPTY_MESSAGE, 8, 0, 1, 0), buf, SLOT))
                .isEqualTo(Inbound.MESSAGE);
        assertThat(ch.onReceive(received(2, 0, 8, 0, 2, 0), buf, 2 * SLOT)).isEqualTo(Inbound.CREDIT_UPDATE);
        WorkCompletion withImm = received(3, 0, 8, 0, 3, 0);
        withImm.hasImmediate = true;
        assertThat(ch.onReceive(withImm, buf, 3 * SLOT)).as("immediate data makes it a message")
                .isEqualTo(Inbound.MESSAGE);
    }

    @Test
    void creditUpdateGoesWhenThePeerIsShortOneAtATime() {
        FlowCredits credits = new FlowCredits(8, SLOTS);
        FlowC0Channel ch = channel(credits);
        assertThat(ch.maybeSendCreditUpdate()).as("the peer believes it has 4").isFalse();

        // the peer used 3 of our 4 receives: it believes it has 1 left
        for (int i = 0; i < 3; i++) {
            ch.onReceive(received(i, 0, 8, 4, i + 1, 0), buf, i * SLOT);
        }
        assertThat(ch.maybeSendCreditUpdate()).as("nothing reposted: nothing to tell").isFalse();
        ch.postReceive(WrId.of(Kind.RECV, 0), region, 0, SLOT);
        assertThat(ch.maybeSendCreditUpdate()).isTrue();
        RecordingQueuePair.Send update = qp.lastSend();
        assertThat(update.wrId()).isEqualTo(UPDATE_ID);
        assertThat(update.offset()).isEqualTo(UPDATE);
        assertThat(header(update)).isEqualTo(new FlowControlHeader(0, 2, 16, 1, 3));
        assertThat(header(update).creditUpdate()).isTrue();
        assertThat(ch.creditUpdateInFlight()).isTrue();

        // the peer uses one more: short again, but the update in flight holds the next one back
        ch.onReceive(received(3, 0, 8, 4, 4, 0), buf, 3 * SLOT);
        ch.postReceive(WrId.of(Kind.RECV, 1), region, SLOT, SLOT);
        ch.postReceive(WrId.of(Kind.RECV, 2), region, 2 * SLOT, SLOT);
        assertThat(credits.shouldSendCreditUpdate(ch.postedReceives())).isTrue();
        assertThat(ch.maybeSendCreditUpdate()).isFalse();
        assertThat(qp.sends).hasSize(1);

        assertThat(ch.onSendCompletion(sendDone(WrId.of(Kind.SEND, 0), WcStatus.SUCCESS)))
                .as("not the channel's").isFalse();
        assertThat(ch.onSendCompletion(sendDone(UPDATE_ID, WcStatus.SUCCESS))).isTrue();
        assertThat(qp.sends).as("its completion lets the waiting update go").hasSize(2);
        assertThat(header(qp.lastSend())).isEqualTo(new FlowControlHeader(0, 3, 16, 2, 4));
        assertThat(ch.creditUpdateInFlight()).isTrue();

        assertThat(ch.onSendCompletion(sendDone(UPDATE_ID, WcStatus.WR_FLUSH_ERROR))).isTrue();
        assertThat(ch.creditUpdateInFlight()).isFalse();
        assertThat(qp.sends).as("nothing follows a failed update").hasSize(2);
    }

    @Test
    void creditUpdateNeedsACredit() {
        FlowCredits credits = new FlowCredits(1, SLOTS);
        FlowC0Channel ch = channel(credits);
        for (int i = 0; i < 3; i++) {
            ch.onReceive(received(i, 0, 1, 0, i + 1, 0), buf, i * SLOT);
            ch.postReceive(WrId.of(Kind.RECV, i), region, i * SLOT, SLOT);
        }
        assertThat(ch.maybeSendCreditUpdate()).isTrue();
        ch.onSendCompletion(sendDone(UPDATE_ID, WcStatus.SUCCESS));
        ch.onReceive(received(0, 0, 1, 0, 4, 0), buf, 0);
        ch.onReceive(received(1, 0, 1, 0, 5, 0), buf, SLOT);
        ch.onReceive(received(2, 0, 1, 0, 6, 0), buf, 2 * SLOT);
        ch.postReceive(WrId.of(Kind.RECV, 0), region, 0, SLOT);
        assertThat(credits.credits()).isZero();
        assertThat(ch.maybeSendCreditUpdate()).as("the peer acknowledged nothing: no credit").isFalse();
        assertThat(qp.sends).hasSize(1);
    }

    @Test
    void writeWithImmediateCountsAsOneMessageButAdvertisesNothing() {
        FlowCredits credits = new FlowCredits(4, SLOTS);
        FlowC0Channel ch = channel(credits);
        ch.onReceive(received(0, 0, 4, 8, 1, 0), buf, 0);
        int peerView = credits.peerCredits();

        ch.writeWithImmediate(WrId.of(Kind.SEND, 1), null, 0, 0, 0x1000, 77, 0xABCD);
        RecordingQueuePair.Send w = qp.lastSend();
        assertThat(w.opcode()).isEqualTo(WrOpcode.RDMA_WRITE_WITH_IMM);
        assertThat(w.remoteAddress()).isEqualTo(0x1000);
        assertThat(w.rkey()).isEqualTo(77);
        assertThat(w.immediate()).isEqualTo(0xABCD);
        assertThat(credits.credits()).isEqualTo(3);
        assertThat(credits.peerCredits()).as("no header: the peer learned nothing").isEqualTo(peerView);
        ch.send(WrId.of(Kind.SEND, 2), region, SLOT + 16, 1, false, 0);
        assertThat(header(qp.lastSend()).mseq()).as("the WRITE WITH IMMEDIATE took mseq 1").isEqualTo(2);

        // inbound: it consumed a receive and mseq 2, so the peer's next header is mseq 3
        assertThat(ch.onReceive(completion(1, WcOpcode.RECV_RDMA_WITH_IMM, 0), buf, SLOT))
                .isEqualTo(Inbound.WRITE_WITH_IMMEDIATE);
        assertThat(credits.mseqAck()).isEqualTo(2);
        assertThat(ch.onReceive(received(2, 0, 4, 1, 3, 2), buf, 2 * SLOT)).isEqualTo(Inbound.MESSAGE);
    }

    @Test
    void writeWithImmediateNeedsADataCredit() {
        FlowC0Channel ch = channel(new FlowCredits(2, SLOTS));
        ch.writeWithImmediate(WrId.of(Kind.SEND, 1), null, 0, 0, 0, 0, 0);
        assertThatThrownBy(() -> ch.writeWithImmediate(WrId.of(Kind.SEND, 2), null, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalStateException.class);
        assertThat(qp.sends).hasSize(1);
    }

    @Test
    void malformedHeaderIsAFormatErrorNamingTheFieldAndChangesNoCredits() {
        FlowCredits credits = new FlowCredits(4, SLOTS);
        FlowC0Channel ch = channel(credits);

        WorkCompletion badMid = received(0, 0, 4, 4, 1, 0);
        buf.put(0, (byte) 0x01);
        assertThatThrownBy(() -> ch.onReceive(badMid, buf, 0)).isInstanceOf(CmFormatException.class)
                .extracting(e -> ((CmFormatException) e).field()).isEqualTo("MID");

        WorkCompletion shortLen = received(1, 0, 4, 4, 1, 0);
        shortLen.byteLength = 19;
        assertThatThrownBy(() -> ch.onReceive(shortLen, buf, SLOT)).isInstanceOf(CmFormatException.class)
                .extracting(e -> ((CmFormatException) e).field()).isEqualTo("len");

        assertThatThrownBy(() -> ch.onReceive(received(2, 0, 4, 4, 2, 0), buf, 2 * SLOT))
                .isInstanceOf(CmFormatException.class)
                .extracting(e -> ((CmFormatException) e).field()).isEqualTo("mseq");
        assertThatThrownBy(() -> ch.onReceive(received(2, 0, 4, 4, 1, 5), buf, 2 * SLOT))
                .as("acknowledges a Send never posted").isInstanceOf(CmFormatException.class)
                .extracting(e -> ((CmFormatException) e).field()).isEqualTo("mseqack");

        assertThat(credits.mseqAck()).isZero();
        assertThat(ch.postedReceives()).as("each consumed its receive").isZero();
        assertThat(ch.onReceive(received(3, 0, 4, 4, 1, 0), buf, 3 * SLOT)).isEqualTo(Inbound.MESSAGE);
    }

    @Test
    void failedReceiveOnlyGivesUpItsBuffer() {
        FlowCredits credits = new FlowCredits(4, SLOTS);
        FlowC0Channel ch = channel(credits);
        WorkCompletion flushed = completion(0, WcOpcode.RECV, 0);
        flushed.status = WcStatus.WR_FLUSH_ERROR;
        assertThat(ch.onReceive(flushed, buf, 0)).isEqualTo(Inbound.FAILED);
        assertThat(ch.postedReceives()).isEqualTo(SLOTS - 1);
        assertThat(credits.mseqAck()).isZero();
    }

    @Test
    void sequenceNumbersWrap() {
        FlowC0Channel ch = channel(new FlowCredits(8, SLOTS, 0xFFFF_FFFE, 0xFFFF_FFFF));
        ch.send(WrId.of(Kind.SEND, 0), region, 16, 1, false, 0);
        assertThat(header(qp.lastSend()).mseq()).isEqualTo(0xFFFF_FFFF);
        ch.send(WrId.of(Kind.SEND, 1), region, SLOT + 16, 1, false, 0);
        assertThat(header(qp.lastSend()).mseq()).isZero();
        assertThat(header(qp.lastSend()).mseqAck()).isEqualTo(0xFFFF_FFFF);

        assertThat(ch.onReceive(received(2, 0, 8, 1, 0, 0), buf, 2 * SLOT)).isEqualTo(Inbound.MESSAGE);
        assertThat(ch.onReceive(received(3, 0, 8, 1, 1, 0), buf, 3 * SLOT)).isEqualTo(Inbound.MESSAGE);
        assertThat(ch.credits().credits()).as("mseqack 0 acknowledged both, across the wrap").isEqualTo(8);
    }

    @Test
    void bareChannelPassesPayloadsThrough() {
        FlowC0Channel ch = FlowC0Channel.bare(qp);
        ch.postReceive(WrId.of(Kind.RECV, 0), region, 0, SLOT);
        assertThat(ch.headroom()).isZero();
        assertThat(ch.credits()).isNull();

        buf.put(SLOT, (byte) 0x42);
        ch.send(WrId.of(Kind.SEND, 1), region, SLOT, 5, false, 0);
        assertThat(qp.lastSend().offset()).isEqualTo(SLOT);
        assertThat(qp.lastSend().length()).isEqualTo(5);
        assertThat(buf.get(SLOT)).as("no header written").isEqualTo((byte) 0x42);

        assertThat(ch.onReceive(completion(0, WcOpcode.RECV, 0), buf, 0)).isEqualTo(Inbound.MESSAGE);
        assertThat(ch.maybeSendCreditUpdate()).isFalse();
        assertThat(ch.onSendCompletion(sendDone(0, WcStatus.SUCCESS))).isFalse();
        assertThat(ch.canSend()).isTrue();
    }

    @Test
    void perMessagePathAllocatesNothing() {
        var plain = ManagementFactory.getThreadMXBean();
        assumeTrue(plain instanceof ThreadMXBean);
        ThreadMXBean mx = (ThreadMXBean) plain;
        assumeTrue(mx.isThreadAllocatedMemorySupported()
                && mx.isThreadAllocatedMemoryEnabled());
        RecordingQueuePair peerQp = new RecordingQueuePair();
        qp.recording = false;
        peerQp.recording = false;
        FlowC0Channel a = FlowC0Channel.of(qp, region, UPDATE, UPDATE_ID);
        FlowC0Channel b = FlowC0Channel.of(peerQp, region, UPDATE, UPDATE_ID);
        a.start(new FlowCredits(4, 4, 0xFFFF_0000, 7));
        b.start(new FlowCredits(4, 4, 7, 0xFFFF_0000));
        for (int k = 0; k < 4; k++) {
            a.postReceive(1, region, SLOT, SLOT);
            b.postReceive(0, region, 0, SLOT);
        }
        WorkCompletion toB = completion(0, WcOpcode.RECV, 24);
        WorkCompletion writeToB = completion(0, WcOpcode.RECV_RDMA_WITH_IMM, 0);
        WorkCompletion toA = completion(1, WcOpcode.RECV, 16);
        Runnable exchange = () -> {
            for (int i = 0; i < 50_000; i++) {
                a.send(2, region, 16, 8, false, 0);                 // a -> b: 8 bytes
                b.onReceive(toB, buf, 0);
                b.postReceive(0, region, 0, SLOT);
                a.writeWithImmediate(3, null, 0, 0, 0, 0, i);     // a -> b: header-less
                b.onReceive(writeToB, buf, 0);
                b.postReceive(0, region, 0, SLOT);
                b.send(2, region, SLOT + 16, 0, false, 0);         // b -> a: a zero-length message
                a.onReceive(toA, buf, SLOT);
                a.postReceive(1, region, SLOT, SLOT);
                a.maybeSendCreditUpdate();
                b.maybeSendCreditUpdate();
            }
        };
        exchange.run(); // warm-up, crosses the 2^32 wrap
        long before = mx.getThreadAllocatedBytes(Thread.currentThread().threadId());
        exchange.run();
        long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().threadId()) - before;
        assertThat(allocated).isLessThan(512);
    }

    @Test
    void receivesMayBePostedBeforeTheCreditsAreKnownButNothingElse() {
        FlowC0Channel ch = FlowC0Channel.of(qp, region, UPDATE, UPDATE_ID);
        ch.postReceive(WrId.of(Kind.RECV, 0), region, 0, SLOT);
        assertThat(ch.postedReceives()).isOne();
        assertThat(ch.canSend()).isFalse();
        assertThat(ch.maybeSendCreditUpdate()).isFalse();
        assertThatThrownBy(() -> ch.send(WrId.of(Kind.SEND, 1), region, SLOT + 16, 1, false, 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("before start");
        assertThat(qp.sends).isEmpty();

        ch.start(new FlowCredits(4, 1));
        assertThatThrownBy(() -> ch.start(new FlowCredits(4, 1))).isInstanceOf(IllegalStateException.class);
        ch.send(WrId.of(Kind.SEND, 1), region, SLOT + 16, 1, false, 0);
        assertThat(header(qp.lastSend()).bufs()).as("the receive posted before start is advertised").isOne();
    }

    @Test
    void flowC0NeedsAnUpdateBuffer() {
        assertThatThrownBy(() -> FlowC0Channel.of(qp, null, 0, UPDATE_ID)).isInstanceOf(IllegalArgumentException.class);
    }
}

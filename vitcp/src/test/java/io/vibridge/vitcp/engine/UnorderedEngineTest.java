package io.vibridge.vitcp.engine;

import static io.vibridge.vitcp.engine.UnorderedGateTest.halfOrdered;
import static io.vibridge.vitcp.engine.UnorderedGateTest.ordered;
import static io.vibridge.vitcp.engine.UnorderedGateTest.unordered;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.EngineTest.Recv;
import io.vibridge.vitcp.engine.EngineTest.Side;
import io.vibridge.vitcp.engine.InboundAssemblerTest.Errors;
import io.vibridge.vitcp.engine.OwnerCallbacksTest.Owner;
import io.vibridge.vitcp.engine.UnorderedGateTest.Hinted;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seed 002 in the engine: the segmenter sends unordered works with types 9/10/11 as {@link UnorderedGate}
 * decides, every segment of a message with the same type, in the one message sequence; receivers handle the
 * unordered types as their ordered counterparts, also when they did not set attribute bit 6 (§9.10).
 */
class UnorderedEngineTest {

    static final int IMN = 100;

    static LocalEndpoint endpoint(ReliabilityLevel level, String disc, int imn, boolean flowControl, boolean bit6) {
        return new LocalEndpoint(ConnectionAttributes.of(level, true, level != ReliabilityLevel.UNRELIABLE_DELIVERY,
                flowControl, false, bit6), Discriminator.ofUtf8(disc), 1 << 20, 4, imn, 1000, 8, null);
    }

    static ConnectionHeader peerHeader(ReliabilityLevel level, boolean bit6) {
        return ConnectionHeader.unsigned(ConnectionAttributes.of(level, true, true, false, false, bit6),
                Discriminator.ofUtf8("peer"), 1 << 20, 2, Discriminator.EMPTY);
    }

    // ------------------------------------------------------------------ the segmenter, no connection

    final Owner owner = new Owner();
    final Errors errors = new Errors();
    final Credits credits = new Credits();
    final AckTracker acks = new AckTracker();
    final Unwritten unwritten = new Unwritten(16);
    final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    final ByteBuffer[] payload = new ByteBuffer[4];
    OutboundSegmenter out;

    void segmenter(ReliabilityLevel level, boolean bit6, boolean flowControl, int peerCredits) {
        errors.reader = new SegmentReader(new SegmentReaderTest.Recorder());
        credits.initial(3);
        credits.establish(flowControl, 8, peerCredits);
        acks.start(level == ReliabilityLevel.RELIABLE_RECEPTION, 700);
        Negotiated n = new Negotiated(peerHeader(level, bit6), level, 1 << 20, flowControl, 2, 2, IMN, 700);
        assertThat(n.peerUnderstandsUnordered()).isEqualTo(bit6);
        out = new OutboundSegmenter(owner, errors, credits, acks, unwritten, new ReadResponderWindow(2), n, 1000);
    }

    private String produced() {
        header.clear(); // as ViConnection.produce does
        int n = out.produce(header, payload, 0);
        if (n < 0) {
            return "nothing";
        }
        return SegmentType.of(SegmentHeader.typeCode(header, 0), 1) + " offset " + SegmentHeader.dataOffset(header, 0)
                + " msg " + SegmentHeader.messageNumber(header, 0);
    }

    @Test
    void everySegmentOfAnUnorderedMessage_carriesTheUnorderedType_inTheOneMessageSequence() {
        segmenter(ReliabilityLevel.RELIABLE_DELIVERY, true, false, 0);
        out.post(new Hinted(OutboundWork.OP_SEND, OrderingHint.UNORDERED, 2500, 0));
        out.post(new Hinted(OutboundWork.OP_RDMA_WRITE, OrderingHint.UNORDERED, 1500, 64));
        out.post(new Hinted(OutboundWork.OP_RDMA_READ, OrderingHint.UNORDERED, 10, 0));
        out.post(ordered(OutboundWork.OP_SEND));
        out.post(unordered(OutboundWork.OP_RDMA_WRITE));
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 0 msg 100");
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 1000 msg 100");
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 2000 msg 100");
        assertThat(produced()).isEqualTo("RDMA_WRITE_UNORDERED offset 0 msg 101");
        assertThat(RdmaHeader.address(header, SegmentHeader.LENGTH)).isEqualTo(64);
        assertThat(produced()).isEqualTo("RDMA_WRITE_UNORDERED offset 1000 msg 101");
        assertThat(produced()).isEqualTo("RDMA_READ_REQUEST_UNORDERED offset 0 msg 102");
        assertThat(RdmaHeader.length(header, SegmentHeader.LENGTH)).isEqualTo(10);
        assertThat(produced()).isEqualTo("SEND offset 0 msg 103");
        // Reliable Delivery: nothing acknowledges message 103, so later unordered works go ordered
        assertThat(produced()).isEqualTo("RDMA_WRITE offset 0 msg 104");
        assertThat(produced()).isEqualTo("nothing");
    }

    @Test
    void aSendUnordered_usesACreditLikeASend() {
        segmenter(ReliabilityLevel.RELIABLE_DELIVERY, true, true, 1);
        out.post(unordered(OutboundWork.OP_SEND));
        out.post(unordered(OutboundWork.OP_SEND));
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 0 msg 100");
        assertThat(out.hasOutput()).as("no credit left for the second Send Unordered").isFalse();
        credits.peerRxPosted(2);
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 0 msg 101");
    }

    @Test
    void atReliableReception_unorderedWorkCompletesOnTheAck_andTheAckReleasesTheUnorderedTypes() {
        segmenter(ReliabilityLevel.RELIABLE_RECEPTION, true, false, 0);
        out.post(ordered(OutboundWork.OP_SEND));
        out.post(unordered(OutboundWork.OP_RDMA_WRITE));
        assertThat(produced()).isEqualTo("SEND offset 0 msg 100");
        assertThat(produced()).isEqualTo("RDMA_WRITE offset 0 msg 101"); // 100 not acknowledged yet
        out.written();
        out.written();
        assertThat(owner.calls).noneMatch(c -> c.startsWith("completed"));
        out.acknowledged(100);
        assertThat(owner.calls).containsSubsequence("completed DONE|OP_SEND");
        out.post(unordered(OutboundWork.OP_SEND));
        assertThat(produced()).isEqualTo("SEND_UNORDERED offset 0 msg 102");
        out.written();
        out.acknowledged(102);
        assertThat(owner.calls).filteredOn(c -> c.startsWith("completed")).containsExactly("completed DONE|OP_SEND",
                "completed DONE|OP_RDMA_WRITE", "completed DONE|OP_SEND");
    }

    @Test
    void aPeerWithoutBit6_getsOrderedTypes() {
        segmenter(ReliabilityLevel.RELIABLE_RECEPTION, false, false, 0);
        out.post(unordered(OutboundWork.OP_SEND));
        out.post(unordered(OutboundWork.OP_RDMA_WRITE));
        out.post(unordered(OutboundWork.OP_RDMA_READ));
        assertThat(produced()).isEqualTo("SEND offset 0 msg 100");
        assertThat(produced()).isEqualTo("RDMA_WRITE offset 0 msg 101");
        assertThat(produced()).isEqualTo("RDMA_READ_REQUEST offset 0 msg 102");
    }

    @Test
    void aFencedUnorderedRead_stillWaitsForEarlierReads() {
        // the engine keeps VIA 6.3.1.2 whatever the hint (the provider refuses fence + unordered descriptors)
        segmenter(ReliabilityLevel.RELIABLE_DELIVERY, true, false, 0);
        out.post(unordered(OutboundWork.OP_RDMA_READ));
        out.post(new Hinted(OutboundWork.OP_SEND, OrderingHint.UNORDERED, 10, 0) {
            @Override
            public boolean queueFence() {
                return true;
            }
        });
        assertThat(produced()).isEqualTo("RDMA_READ_REQUEST_UNORDERED offset 0 msg 100");
        assertThat(produced()).isEqualTo("nothing");
    }

    // ------------------------------------------------------------------ two engines

    /** Moves everything {@code from} writes into {@code to}; returns the segment types on the wire. */
    static List<SegmentType> pump(ViConnection from, ViConnection to, Random rnd) {
        byte[] all = EngineTest.output(from);
        List<SegmentType> types = new ArrayList<>();
        for (int at = 0; at < all.length;) {
            types.add(SegmentType.of((all[at + 1] & 0xFF) >>> 3, at + 1));
            at += (all[at + 2] & 0xFF) << 8 | (all[at + 3] & 0xFF);
        }
        for (int at = 0; at < all.length;) {
            int len = Math.min(all.length - at, 1 + rnd.nextInt(200));
            to.receive(ByteBuffer.wrap(all, at, len).slice());
            at += len;
        }
        return types;
    }

    static ViConnection[] connect(Side a, Side b, ReliabilityLevel level, boolean aBit6, boolean bBit6) {
        b.accept = endpoint(level, "b", 77, false, bBit6);
        ViConnection ca = ViConnection.active(a, endpoint(level, "a", 5, false, aBit6), Discriminator.ofUtf8("b"),
                0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        Random rnd = new Random(1);
        pump(ca, cb, rnd);
        pump(cb, ca, rnd);
        assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        b.events.clear();
        return new ViConnection[] {ca, cb};
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void unorderedWorks_crossAsTypes9to11_andArriveAsTheirOrderedCounterparts(ReliabilityLevel level) {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(4000));
        b.receives.add(new Recv(10));
        ViConnection[] c = connect(a, b, level, false, true); // only the receiver's bit 6 matters (§9.10)
        assertThat(c[0].negotiated().peerUnderstandsUnordered()).isTrue();
        assertThat(c[1].negotiated().peerUnderstandsUnordered()).isFalse();
        Random rnd = new Random(2);
        byte[] text = new byte[2500];
        rnd.nextBytes(text);
        for (int i = 0; i < 1500; i++) {
            b.memory.put(20_000 + i, (byte) (i * 7));
        }
        c[0].post(new Hinted(OutboundWork.OP_SEND, OrderingHint.UNORDERED, 0, 0) {
            @Override
            public long length() {
                return text.length;
            }

            @Override
            public int gather(long offset, int length, ByteBuffer[] o, int index) {
                o[index] = ByteBuffer.wrap(text, (int) offset, length);
                return 1;
            }
        });
        Hinted write = new Hinted(OutboundWork.OP_RDMA_WRITE, OrderingHint.UNORDERED, 1200, 3000) {
            @Override
            public boolean hasImmediate() {
                return true; // immediate data 99 consumes b's second receive
            }
        };
        write.data.put(0, (byte) 1).put(1199, (byte) 2);
        c[0].post(write);
        boolean reads = level != ReliabilityLevel.UNRELIABLE_DELIVERY;
        Hinted read = new Hinted(OutboundWork.OP_RDMA_READ, OrderingHint.UNORDERED, 1500, 20_000);
        if (reads) {
            c[0].post(read);
        }
        List<SegmentType> wire = pump(c[0], c[1], rnd);
        List<SegmentType> back = pump(c[1], c[0], rnd);
        assertThat(wire).startsWith(SegmentType.SEND_UNORDERED, SegmentType.SEND_UNORDERED,
                SegmentType.SEND_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED);
        assertThat(wire.contains(SegmentType.RDMA_READ_REQUEST_UNORDERED)).isEqualTo(reads);
        assertThat(wire).noneMatch(t -> t == SegmentType.SEND || t == SegmentType.RDMA_WRITE
                || t == SegmentType.RDMA_READ_REQUEST);
        assertThat(b.events).containsExactly("recv DONE|OP_RECEIVE|IMMEDIATE 2500",
                "recv DONE|OP_REMOTE_RDMA_WRITE|IMMEDIATE 0");
        assertThat(b.memory.get(3000)).isEqualTo((byte) 1);
        assertThat(b.memory.get(4199)).isEqualTo((byte) 2);
        if (reads) {
            assertThat(back).contains(SegmentType.RDMA_READ_RESPONSE);
            for (int i = 0; i < 1500; i++) {
                assertThat(read.data.get(i)).isEqualTo((byte) (i * 7));
            }
        }
        List<Integer> expected = new ArrayList<>(List.of(Status.DONE | Status.OP_SEND, Status.DONE | Status.OP_RDMA_WRITE));
        if (reads) {
            expected.add(Status.DONE | Status.OP_RDMA_READ);
        }
        assertThat(a.completed).containsExactlyInAnyOrderElementsOf(expected);

        // a fully ordered Send, then an unordered one: ordered type while the first is not acknowledged
        b.receives.add(new Recv(100));
        b.receives.add(new Recv(100));
        c[0].post(ordered(OutboundWork.OP_SEND));
        c[0].post(unordered(OutboundWork.OP_SEND));
        assertThat(pump(c[0], c[1], rnd)).containsExactly(SegmentType.SEND, SegmentType.SEND);
        pump(c[1], c[0], rnd); // at Reliable Reception this carries the Message ACK for both
        b.receives.add(new Recv(100));
        c[0].post(unordered(OutboundWork.OP_SEND));
        assertThat(pump(c[0], c[1], rnd)).containsExactly(level == ReliabilityLevel.RELIABLE_RECEPTION
                ? SegmentType.SEND_UNORDERED : SegmentType.SEND);
        assertThat(b.events).filteredOn(e -> e.startsWith("broken")).isEmpty();
    }

    @Test
    void halfOrderedThenUnordered_goesUnorderedWithoutWaitingForTheAck() {
        Side a = new Side();
        Side b = new Side();
        for (int i = 0; i < 3; i++) {
            b.receives.add(new Recv(100));
        }
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_RECEPTION, true, true);
        c[0].post(halfOrdered(OutboundWork.OP_SEND));
        c[0].post(unordered(OutboundWork.OP_SEND));
        c[0].post(unordered(OutboundWork.OP_RDMA_WRITE));
        assertThat(pump(c[0], c[1], new Random(3))).containsExactly(SegmentType.SEND, SegmentType.SEND_UNORDERED,
                SegmentType.RDMA_WRITE_UNORDERED);
    }

    /** A data segment as a peer writes it, with an RDMA header when {@code rdma} is true. */
    private static ByteBuffer segment(SegmentType type, int flags, long offset, int msg, int payload, boolean rdma,
            long address, long rdmaLength) {
        int hl = SegmentHeader.LENGTH + (rdma ? RdmaHeader.LENGTH : 0);
        ByteBuffer s = ByteBuffer.allocate(hl + payload);
        SegmentHeader.write(s, 0, type, flags, hl + payload, offset, 42, msg, 0, 0, 0, 0);
        if (rdma) {
            RdmaHeader.write(s, SegmentHeader.LENGTH, address, 7, rdmaLength);
        }
        for (int i = 0; i < payload; i++) {
            s.put(hl + i, (byte) (offset + i));
        }
        return s;
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void aSideThatDidNotSetBit6_handlesTypes9to11AsTheirOrderedCounterparts(ReliabilityLevel level) {
        // VITCP-PROFILE §9.10 constrains senders only: a receiver over TCP keeps the order and stays correct
        Side a = new Side();
        Side b = new Side();
        Recv r1 = new Recv(100);
        Recv r2 = new Recv(10);
        b.receives.add(r1);
        b.receives.add(r2);
        for (int i = 0; i < 30; i++) {
            b.memory.put(500 + i, (byte) (100 + i));
        }
        ViConnection[] c = connect(a, b, level, false, false);
        int eom = SegmentHeader.FLAG_END_OF_MESSAGE;
        c[1].receive(segment(SegmentType.SEND_UNORDERED, 0, 0, 5, 60, false, 0, 0));
        c[1].receive(segment(SegmentType.SEND_UNORDERED, eom, 60, 5, 40, false, 0, 0));
        c[1].receive(segment(SegmentType.RDMA_WRITE_UNORDERED, 0, 0, 6, 20, true, 9000, 30));
        c[1].receive(segment(SegmentType.RDMA_WRITE_UNORDERED, eom | SegmentHeader.FLAG_IMMEDIATE, 20, 6, 10, true,
                9000, 30));
        c[1].receive(segment(SegmentType.RDMA_READ_REQUEST_UNORDERED, eom, 0, 7, 0, true, 500, 30));
        assertThat(b.events).containsExactly("recv DONE|OP_RECEIVE 100",
                "recv DONE|OP_REMOTE_RDMA_WRITE|IMMEDIATE 0");
        assertThat(r2.immediate).isEqualTo(42);
        for (int i = 0; i < 100; i++) {
            assertThat(r1.buf.get(i)).isEqualTo((byte) i);
        }
        for (int i = 0; i < 30; i++) {
            assertThat(b.memory.get(9000 + i)).isEqualTo((byte) i);
        }
        byte[] out = EngineTest.output(c[1]);
        assertThat((out[1] & 0xFF) >>> 3).isEqualTo(SegmentType.RDMA_READ_RESPONSE.code());
        assertThat(ByteBuffer.wrap(out).getInt(SegmentHeader.OFF_MESSAGE_NUMBER)).isEqualTo(7);
        for (int i = 0; i < 30; i++) {
            assertThat(out[SegmentHeader.LENGTH + i]).isEqualTo((byte) (100 + i));
        }
        if (level == ReliabilityLevel.RELIABLE_RECEPTION) {
            // the Message ACK covers the unordered messages as it would the ordered ones
            assertThat(ByteBuffer.wrap(out).getInt(SegmentHeader.OFF_MESSAGE_ACK)).isGreaterThanOrEqualTo(6);
        }
    }
}

package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.OwnerCallbacksTest.Owner;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Inbound messages header by header, without framing or a connection around them. */
class InboundAssemblerTest {

    static final int PEER_IMN = 500;

    /** Records how a collaborator ends the connection; kills the reader as ViConnection does. */
    static final class Errors implements ConnectionErrors {
        final List<String> events = new ArrayList<>();
        SegmentReader reader;

        @Override
        public void protocolError(String why) {
            events.add("protocol " + why);
            reader.kill();
        }

        @Override
        public void breakConnection(BreakCause cause, int viErrorType, int isCode) {
            events.add("break " + cause + " " + viErrorType + "/" + isCode);
            reader.kill();
        }
    }

    final Owner peer = new Owner();
    final Errors errors = new Errors();
    final SegmentReader reader = new SegmentReader(new SegmentReaderTest.Recorder());
    final Credits credits = new Credits();
    final AckTracker acks = new AckTracker();
    final ReadResponderWindow responder = new ReadResponderWindow(2);
    OutboundSegmenter outbound;
    InboundAssembler in;

    void connect(ReliabilityLevel level, boolean flowControl, int credit) {
        errors.reader = reader;
        credits.initial(credit);
        credits.establish(flowControl, 8, 0);
        acks.start(level == ReliabilityLevel.RELIABLE_RECEPTION, PEER_IMN);
        Negotiated n = new Negotiated(null, level, 1 << 20, flowControl, 2, 2, 100, PEER_IMN);
        outbound = new OutboundSegmenter(peer, errors, credits, acks, new Unwritten(16), responder, n, 1000);
        in = new InboundAssembler(errors, peer, reader, credits, acks, responder, outbound, n);
    }

    static ByteBuffer header(SegmentType type, int flags, long offset, int msg) {
        ByteBuffer b = ByteBuffer.allocate(40);
        SegmentHeader.write(b, 0, type, flags, 40, offset, 0, msg, 0, 0, 0, 0);
        return b;
    }

    /** One segment: header, payload of {@code payload} bytes of {@code fill}, end; nothing once dead, as the reader. */
    void segment(SegmentType type, int flags, long offset, int msg, int payload, byte fill) {
        if (reader.dead()) {
            return;
        }
        in.onHeader(header(type, flags, offset, msg), payload);
        if (reader.dead() || reader.awaitingAdmission()) {
            return;
        }
        byte[] b = new byte[payload];
        Arrays.fill(b, fill);
        in.place(ByteBuffer.wrap(b));
        in.segmentEnd();
    }

    @Test
    void aSendAcrossSegments_isPlacedAsItArrives_andCompletesAtItsEnd() {
        connect(ReliabilityLevel.RELIABLE_RECEPTION, false, 0);
        EngineTest.Recv r = new EngineTest.Recv(100);
        peer.receives.add(r);
        segment(SegmentType.SEND, 0, 0, PEER_IMN, 30, (byte) 1);
        assertThat(acks.completed()).isEqualTo(PEER_IMN - 1);
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 30, PEER_IMN, 20, (byte) 2);
        assertThat(peer.calls).containsExactly("admit SEND 500", "take SEND 500");
        assertThat(peer.events).containsExactly("recv DONE|OP_RECEIVE 50");
        assertThat(r.buf.get(29)).isEqualTo((byte) 1);
        assertThat(r.buf.get(30)).isEqualTo((byte) 2);
        assertThat(acks.completed()).isEqualTo(PEER_IMN); // Reliable Reception: the ACK covers it now
    }

    @Test
    void sequenceErrors_areProtocolErrors() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN + 1, 0, (byte) 0);
        assertThat(errors.events).containsExactly("protocol message 501 offset 0, expected message 500");

        InboundAssemblerTest other = new InboundAssemblerTest();
        other.connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        other.peer.receives.add(new EngineTest.Recv(100));
        other.segment(SegmentType.SEND, 0, 0, PEER_IMN, 10, (byte) 0);
        ByteBuffer w = header(SegmentType.RDMA_WRITE, SegmentHeader.FLAG_END_OF_MESSAGE, 10, PEER_IMN);
        other.in.onHeader(w, 0);
        assertThat(other.errors.events).containsExactly("protocol broken segment sequence");
    }

    @Test
    void aSendWithoutAnAnnouncedCredit_isCreditAbuse() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
        peer.receives.add(new EngineTest.Recv(100));
        peer.receives.add(new EngineTest.Recv(100));
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 0, (byte) 0);
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN + 1, 0, (byte) 0);
        assertThat(errors.events).containsExactly("protocol credit abuse: message 501 sent without a receive credit");
        assertThat(peer.calls).containsExactly("admit SEND 500", "take SEND 500"); // not even asked to admit
    }

    @Test
    void aRefusedAdmission_changesNothing_untilItIsAdmitted() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
        peer.receives.add(new EngineTest.Recv(100));
        peer.admit = false;
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        assertThat(reader.awaitingAdmission()).isTrue();
        assertThat(credits.peerWouldAbuse()).isFalse(); // the credit is not used by a refused message
        peer.admit = true;
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        assertThat(peer.calls).containsExactly("admit SEND 500 refused", "admit SEND 500 refused", "admit SEND 500",
                "take SEND 500");
        assertThat(errors.events).isEmpty();
    }

    @Test
    void noReceivePosted_dropsAtUnreliableDelivery_breaksAtReliableDelivery_reportsAtReliableReception() {
        connect(ReliabilityLevel.UNRELIABLE_DELIVERY, false, 0);
        segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        assertThat(in.dropped()).isEqualTo(1);
        assertThat(errors.events).isEmpty();

        InboundAssemblerTest rd = new InboundAssemblerTest();
        rd.connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        rd.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        rd.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN + 1, 4, (byte) 0);
        assertThat(rd.errors.events).containsExactly("break LOCAL_RECEIVE_ERROR 2/" + IsCode.RECEIVE_QUEUE_EMPTY);

        InboundAssemblerTest rr = new InboundAssemblerTest();
        rr.connect(ReliabilityLevel.RELIABLE_RECEPTION, false, 0);
        rr.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN, 4, (byte) 0);
        assertThat(rr.errors.events).isEmpty(); // reported on the next segment, then broken
        assertThat(rr.reader.dead()).isTrue();
        assertThat(rr.outbound.hasOutput()).isTrue();
    }

    @Test
    void readRequests_fillTheResponderWindow_andOneMoreIsIs7() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        for (int k = 0; k < 3; k++) {
            ByteBuffer h = header(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0, PEER_IMN + k);
            RdmaHeader.write(h, SegmentHeader.LENGTH, 64, 7, 10);
            in.onHeader(h, 0);
        }
        assertThat(peer.calls).containsExactly("admit RDMA_READ_REQUEST 500", "access 500 read 10",
                "admit RDMA_READ_REQUEST 501", "access 501 read 10");
        assertThat(responder.full()).isTrue();
        assertThat(errors.events).containsExactly("break LOCAL_RECEIVE_ERROR 2/" + IsCode.READ_WINDOW_EXCEEDED);
    }

    @Test
    void transmitErrorOnASegmentWithoutPayload_isAProtocolError() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        in.onHeader(header(SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_TRANSMIT_ERROR, 0,
                PEER_IMN - 1), 0);
        assertThat(errors.events).containsExactly("protocol Transmit Error flag on a segment without payload");
    }
}

package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.EngineTest.Recv;
import io.vibridge.vitcp.engine.EngineTest.Side;
import io.vibridge.vitcp.engine.EngineTest.Work;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.Segments;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Draft 2.2.2.2.5: a data segment with the Transmit Error flag carries padding, not data. The message
 * fails at the receiver (Transport Error, VIA 10.2 bit 6) per reliability level (VIA 2.5) instead of
 * being treated as a protocol error.
 */
class TransmitErrorTest {

    static final int TE = SegmentHeader.FLAG_TRANSMIT_ERROR;
    static final int EOM = SegmentHeader.FLAG_END_OF_MESSAGE;

    private static ViConnection[] connected(Side a, Side b, ReliabilityLevel level) {
        b.accept = EngineTest.endpoint(level, "b", 77);
        ViConnection ca = ViConnection.active(a, EngineTest.endpoint(level, "a", 5), Discriminator.ofUtf8("b"),
                0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        Random rnd = new Random(1);
        EngineTest.pump(ca, cb, rnd, 100);
        EngineTest.pump(cb, ca, rnd, 100);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        return new ViConnection[] {ca, cb};
    }

    private static ByteBuffer send(int flags, int payload, long offset, int msg, int ack) {
        ByteBuffer b = ByteBuffer.allocate(24 + payload);
        Segments.writeSend(b, 0, false, flags, payload, offset, 0, msg, ack, 0);
        return b;
    }

    @Test
    void unreliableDelivery_sendDropped_receiveCompletesTransportError_staysConnected() {
        Side a = new Side();
        Side b = new Side();
        Recv first = new Recv(100);
        Recv second = new Recv(100);
        b.receives.add(first);
        b.receives.add(second);
        ViConnection[] c = connected(a, b, ReliabilityLevel.UNRELIABLE_DELIVERY);
        // three segments; the second was padded by a sender that could not retransmit it
        c[1].receive(send(0, 10, 0, 5, 0));
        c[1].receive(send(TE, 10, 10, 5, 0));
        c[1].receive(send(EOM, 10, 20, 5, 0));
        assertThat(first.status).isEqualTo(Status.DONE | Status.TRANSPORT_ERROR | Status.OP_RECEIVE);
        assertThat(first.length).isZero();
        assertThat(c[1].droppedMessages()).isEqualTo(1);
        assertThat(c[1].state()).isEqualTo(ViConnection.State.CONNECTED);
        // the next message is delivered normally
        c[1].receive(send(EOM, 7, 0, 6, 0));
        assertThat(second.status).isEqualTo(Status.DONE | Status.OP_RECEIVE);
        assertThat(second.length).isEqualTo(7);
        assertThat(b.events).noneMatch(e -> e.startsWith("broken"));
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void reliableLevels_sendFails_viErrorAndCloseWithoutReport(ReliabilityLevel level) {
        Side a = new Side();
        Side b = new Side();
        Recv r = new Recv(100);
        b.receives.add(r);
        ViConnection[] c = connected(a, b, level);
        c[1].receive(send(EOM | TE, 10, 0, 5, level == ReliabilityLevel.RELIABLE_RECEPTION ? 76 : 0));
        assertThat(r.status).isEqualTo(Status.DONE | Status.TRANSPORT_ERROR | Status.OP_RECEIVE);
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 0/" + IsCode.REMOTE_TRANSPORT_ERROR);
        assertThat(c[1].state()).isEqualTo(ViConnection.State.ERROR);
        assertThat(c[1].closeRequested()).isTrue();
        assertThat(c[1].hasOutput()).isFalse(); // no report: the sender set the flag itself
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void readResponseWithTransmitError_readCompletesTransportError(ReliabilityLevel level) {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connected(a, b, level);
        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(2000), 0, false);
        Work send = new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false);
        c[0].post(read);
        EngineTest.pump(c[0], c[1], new Random(2), 100);
        c[0].post(send); // passes the Read; flushed when the VI breaks (Reliable Reception) or done (Delivery)
        ReadWindowEngineTest.produceUnwritten(c[0], new int[1]); // the Send leaves (not delivered: only a matters)
        // the responder's answer: first segment fine, second padded
        ByteBuffer seg1 = ByteBuffer.allocate(24 + 1000);
        Segments.writeReadResponse(seg1, 0, 0, 1000, 0, read.msg, 0, 0);
        ByteBuffer seg2 = ByteBuffer.allocate(24 + 1000);
        Segments.writeReadResponse(seg2, 0, EOM | TE, 1000, 1000, read.msg, 0, 0);
        for (int i = 24; i < 1024; i++) {
            seg1.put(i, (byte) 1);
            seg2.put(i, (byte) 2);
        }
        c[0].receive(seg1);
        c[0].receive(seg2);
        assertThat(a.completed).contains(Status.DONE | Status.TRANSPORT_ERROR | Status.OP_RDMA_READ);
        assertThat(read.data.get(1500)).isZero(); // padding is not placed
        assertThat(a.events).contains("broken LOCAL_RECEIVE_ERROR 0/" + IsCode.REMOTE_TRANSPORT_ERROR);
        assertThat(c[0].state()).isEqualTo(ViConnection.State.ERROR);
    }

    @Test
    void transmitErrorOnANop_isAProtocolError() {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        ByteBuffer nop = ByteBuffer.allocate(24);
        SegmentHeader.write(nop, 0, SegmentType.NOP, EOM | TE, 24, 0, 0, 4, 0, 0, 0, 0);
        c[1].receive(nop);
        assertThat(b.events).contains("broken PROTOCOL_ERROR 0/0");
    }
}

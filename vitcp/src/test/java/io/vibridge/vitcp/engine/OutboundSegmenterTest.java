package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.InboundAssemblerTest.Errors;
import io.vibridge.vitcp.engine.OwnerCallbacksTest.Owner;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Segments out, one produce at a time, and the completion of what was sent; no connection around it. */
class OutboundSegmenterTest {

    static final int IMN = 100;

    final Owner peer = new Owner();
    final Errors errors = new Errors();
    final Credits credits = new Credits();
    final AckTracker acks = new AckTracker();
    final Unwritten unwritten = new Unwritten(16);
    final ReadResponderWindow responder = new ReadResponderWindow(2);
    final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    final ByteBuffer[] payload = new ByteBuffer[4];
    OutboundSegmenter out;

    void connect(ReliabilityLevel level, boolean flowControl, int peerCredits) {
        errors.reader = new SegmentReader(new SegmentReaderTest.Recorder());
        credits.initial(3);
        credits.establish(flowControl, 8, peerCredits);
        acks.start(level == ReliabilityLevel.RELIABLE_RECEPTION, 700);
        Negotiated n = new Negotiated(null, level, 1 << 20, flowControl, 2, 2, IMN, 700);
        out = new OutboundSegmenter(peer, errors, credits, acks, unwritten, responder, n, 1000);
    }

    private String produced() {
        int n = out.produce(header, payload, 0);
        if (n < 0) {
            return "nothing";
        }
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += payload[i].remaining();
        }
        return SegmentType.of(SegmentHeader.typeCode(header, 0), 1) + " flags " + SegmentHeader.flags(header, 0)
                + " offset " + SegmentHeader.dataOffset(header, 0) + " msg " + SegmentHeader.messageNumber(header, 0)
                + " rx " + SegmentHeader.rxDescriptorsPosted(header, 0) + " +" + bytes;
    }

    @Test
    void aSendIsCutIntoSegments_andCompletesWhenItsLastSegmentIsWritten() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        out.post(new EngineTest.Work(OutboundWork.OP_SEND, ByteBuffer.allocate(2500), 0, false)); // immediate 99
        assertThat(produced()).isEqualTo("SEND flags 0 offset 0 msg 100 rx 3 +1000");
        assertThat(produced()).isEqualTo("SEND flags 0 offset 1000 msg 100 rx 3 +1000");
        assertThat(produced()).isEqualTo("SEND flags 3 offset 2000 msg 100 rx 3 +500");
        assertThat(SegmentHeader.immediateData(header, 0)).isEqualTo(99);
        assertThat(produced()).isEqualTo("nothing");
        out.written();
        out.written();
        assertThat(peer.calls).isEmpty();
        out.written();
        assertThat(peer.calls).containsExactly("written op 0 msg 100", "completed DONE|OP_SEND");
        assertThat(out.outstanding()).isZero();
    }

    @Test
    void atReliableReception_workCompletesOnTheAck() {
        connect(ReliabilityLevel.RELIABLE_RECEPTION, false, 0);
        out.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(10), 0, false));
        assertThat(produced()).startsWith("RDMA_WRITE flags 2 offset 0 msg 100");
        out.written();
        assertThat(peer.calls).containsExactly("written op 1 msg 100");
        out.acknowledged(99);
        assertThat(out.outstanding()).isEqualTo(1);
        out.acknowledged(100);
        assertThat(peer.calls).endsWith("completed DONE|OP_RDMA_WRITE");
    }

    @Test
    void withoutPeerCredits_sendsWait_butWritesWithoutImmediateDataGo() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, true, 0);
        out.post(new EngineTest.Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false));
        assertThat(out.hasOutput()).isFalse();
        OutboundSegmenter noSend = out;
        connect(ReliabilityLevel.RELIABLE_DELIVERY, true, 0);
        out.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(10), 0, false));
        assertThat(out.hasOutput()).isTrue();
        assertThat(noSend.outstanding()).isEqualTo(1);
    }

    @Test
    void readResponses_comeFromTheWindow_waitForTheirSource_andReportTheirLastSegmentWritten() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        responder.add(7, 0, 7, 1500);
        assertThat(produced()).isEqualTo("RDMA_READ_RESPONSE flags 0 offset 0 msg 7 rx 3 +1000");
        assertThat(produced()).isEqualTo("RDMA_READ_RESPONSE flags 2 offset 1000 msg 7 rx 3 +500");
        out.written();
        out.written();
        assertThat(peer.calls).containsExactly("response written 7");

        OutboundSegmenterTest blocked = new OutboundSegmenterTest() {
            {
                connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
            }
        };
        Owner noSource = new Owner() {
            @Override
            public ByteBuffer rdmaSource(long address, int handle, int length) {
                return null;
            }
        };
        OutboundSegmenter o = new OutboundSegmenter(noSource, blocked.errors, blocked.credits, blocked.acks,
                blocked.unwritten, blocked.responder, new Negotiated(null, ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20,
                        false, 2, 2, IMN, 700), 1000);
        blocked.responder.add(8, 0, 7, 10);
        assertThat(o.produce(header, payload, 0)).isEqualTo(-1);
        assertThat(o.hasOutput()).isFalse();
        blocked.responder.unblock();
        assertThat(o.hasOutput()).isTrue();
    }

    @Test
    void theErrorReport_goesOutOnANop_andBreaksTheConnectionOnceWritten() {
        connect(ReliabilityLevel.RELIABLE_RECEPTION, false, 0);
        out.report(701, 2, 1);
        assertThat(produced()).startsWith("NOP flags 2");
        assertThat(SegmentHeader.messageAck(header, 0)).isEqualTo(701);
        assertThat(SegmentHeader.viErrorType(header, 0)).isEqualTo(2);
        assertThat(SegmentHeader.isErrorCode(header, 0)).isEqualTo(1);
        assertThat(errors.events).isEmpty();
        out.written();
        assertThat(errors.events).containsExactly("break LOCAL_RECEIVE_ERROR 2/1");
    }

    @Test
    void flush_completesEverythingFlushed_readsWithTransportErrorWhenTheTransportWasLost() {
        connect(ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        out.post(new EngineTest.Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(10), 0, false));
        out.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(10), 0, false));
        produced(); // the Read Request: now awaiting its response
        out.flush(true);
        assertThat(peer.calls).containsExactly("completed DONE|FLUSHED|TRANSPORT|OP_RDMA_READ",
                "completed DONE|FLUSHED|OP_RDMA_WRITE");
        assertThat(out.outstanding()).isZero();
        assertThat(unwritten.isEmpty()).isTrue();
    }
}

package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The readers' buffers grow with the bytes that arrived, never with the length a header claims.
 * A peer that sends a 24-byte header claiming 65,535 bytes (then nothing) must cost a few hundred bytes,
 * not 64 KiB: thousands of such connections are otherwise an OutOfMemoryError from the network.
 */
class ClaimedLengthTest {

    /** What a reader may hold for {@code received} bytes of a unit: the first size, or twice what came. */
    private static int bound(int received) {
        return Math.max(GrowingInput.INITIAL, 2 * received) + 64;
    }

    @Test
    void connectionSegmentHeaderClaimingTheMaximum_holdsWhatArrived() {
        SegmentReaderTest.Recorder r = new SegmentReaderTest.Recorder();
        r.reader = new SegmentReader(r);
        ByteBuffer seg = ByteBuffer.allocate(SegmentHeader.MAX_SEGMENT_LENGTH);
        SegmentHeader.write(seg, 0, SegmentType.CONNECT_REQUEST, 0, SegmentHeader.MAX_SEGMENT_LENGTH, 0, 0, 1, 0, 0, 0, 0);
        new Random(29).ints(SegmentHeader.LENGTH, seg.capacity()).limit(500).forEach(i -> seg.put(i, (byte) i));

        r.reader.receive(seg.slice(0, SegmentHeader.LENGTH));
        assertThat(r.reader.heldCapacity()).as("after a header alone").isLessThanOrEqualTo(bound(SegmentHeader.LENGTH));

        // the rest in 1,000-byte reads: the buffer follows what arrived, and the segment is delivered whole
        for (int at = SegmentHeader.LENGTH; at < seg.capacity(); at += 1000) {
            int n = Math.min(1000, seg.capacity() - at);
            r.reader.receive(seg.slice(at, n));
            if (at + n < seg.capacity()) {
                assertThat(r.reader.heldCapacity()).as("after %d bytes", at + n).isLessThanOrEqualTo(bound(at + n));
            }
        }
        assertThat(r.events).containsExactly("connection " + SegmentHeader.MAX_SEGMENT_LENGTH);
    }

    @Test
    void seed004FrameClaimingTheMaximum_holdsWhatArrived() {
        SegmentReaderTest.Recorder r = new SegmentReaderTest.Recorder();
        r.reader = new SegmentReader(r);
        FrameReader frames = new FrameReader(r.reader, r);
        int payload = RdmaTcpFrame.MAX_SEGMENT_LENGTH - RdmaTcpFrame.SHORT_HEADER - SegmentHeader.LENGTH;
        ByteBuffer seg = ByteBuffer.allocate(SegmentHeader.LENGTH + payload);
        SegmentHeader.write(seg, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, seg.capacity(), 0, 0, 1, 0, 0,
                0, 0);
        byte[] data = new byte[payload];
        new Random(29).nextBytes(data);
        seg.put(SegmentHeader.LENGTH, data);
        ByteBuffer frame = RdmaTcpFrame.frame(seg, 0, seg.capacity(), 0x29L);
        assertThat(RdmaTcpFrame.segmentLength(frame, 0)).isEqualTo(RdmaTcpFrame.MAX_SEGMENT_LENGTH);

        frames.receive(frame.slice(0, RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH));
        assertThat(frames.heldCapacity()).as("after the headers alone")
                .isLessThanOrEqualTo(bound(RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH));

        for (int at = RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH; at < frame.capacity(); at += 1000) {
            int n = Math.min(1000, frame.capacity() - at);
            frames.receive(frame.slice(at, n));
            if (at + n < frame.capacity()) {
                assertThat(frames.heldCapacity()).as("after %d bytes", at + n).isLessThanOrEqualTo(bound(at + n));
            }
        }
        assertThat(frames.failure()).isNull();
        assertThat(r.events).containsExactly("header SEND 24+" + payload, "end");
        assertThat(r.payload.toByteArray()).isEqualTo(data);
    }
}

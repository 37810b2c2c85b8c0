package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.ConnectNoMatch;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Framing alone: any chunking in, headers, payload and whole connection segments out. */
class SegmentReaderTest {

    /** Records what the reader hands over; refuses the first {@code refusals} admissions. */
    static final class Recorder implements SegmentReader.Sink {
        final List<String> events = new ArrayList<>();
        final ByteArrayOutputStream payload = new ByteArrayOutputStream();
        SegmentReader reader;
        int refusals;

        @Override
        public void unsupportedVersion(int version) {
            events.add("version " + version);
            reader.kill();
        }

        @Override
        public void connectionSegment(ByteBuffer segment) {
            events.add("connection " + segment.remaining());
        }

        @Override
        public void dataHeader(ByteBuffer header, int payloadLength) {
            if (refusals > 0) {
                refusals--;
                events.add("refused");
                reader.awaitAdmission();
                return;
            }
            events.add("header " + SegmentType.of(SegmentHeader.typeCode(header, 0), 1) + " " + header.position()
                    + "+" + payloadLength);
        }

        @Override
        public void payload(ByteBuffer slice) {
            byte[] b = new byte[slice.remaining()];
            slice.get(b);
            payload.writeBytes(b);
        }

        @Override
        public void segmentEnd() {
            events.add("end");
        }

        @Override
        public void protocolError(String why) {
            events.add("error " + why);
            reader.kill();
        }

        @Override
        public void breakConnection(BreakCause cause, int viErrorType, int isCode) {
            throw new AssertionError("the reader never breaks the connection");
        }
    }

    private static Recorder recorder() {
        Recorder r = new Recorder();
        r.reader = new SegmentReader(r);
        return r;
    }

    private static byte[] send(int payload, byte fill) {
        ByteBuffer b = ByteBuffer.allocate(24 + payload);
        SegmentHeader.write(b, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 24 + payload, 0, 0, 1, 0, 0, 0, 0);
        for (int i = 24; i < b.capacity(); i++) {
            b.put(i, fill);
        }
        return b.array();
    }

    private static byte[] write(int payload) {
        ByteBuffer b = ByteBuffer.allocate(40 + payload);
        SegmentHeader.write(b, 0, SegmentType.RDMA_WRITE, SegmentHeader.FLAG_END_OF_MESSAGE, 40 + payload, 0, 0, 2, 0, 0,
                0, 0);
        RdmaHeader.write(b, 24, 0, 1, payload);
        return b.array();
    }

    private static void feed(SegmentReader reader, byte[] bytes, Random rnd) {
        for (int at = 0; at < bytes.length;) {
            int n = Math.min(bytes.length - at, 1 + rnd.nextInt(7));
            ByteBuffer chunk = ByteBuffer.wrap(bytes, at, n);
            reader.receive(chunk);
            while (chunk.hasRemaining()) {
                reader.receive(chunk); // a refused admission: the owner resumes with the rest
            }
            at += n;
        }
    }

    @Test
    void anyChunking_handsOverEachHeaderOnce_andThePayloadInOrder() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(send(30, (byte) 1));
        all.writeBytes(write(20));
        all.writeBytes(send(0, (byte) 0));
        ByteBuffer noMatch = ByteBuffer.allocate(64);
        int len = new ConnectNoMatch().encode(noMatch, 0);
        all.write(noMatch.array(), 0, len);
        Recorder r = recorder();
        feed(r.reader, all.toByteArray(), new Random(1));
        assertThat(r.events).containsExactly("header SEND 24+30", "end", "header RDMA_WRITE 40+20", "end",
                "header SEND 24+0", "end", "connection " + len);
        assertThat(r.payload.size()).isEqualTo(50);
    }

    @Test
    void refusedAdmission_keepsTheHeader_andTheNextReceiveRetriesItFirst() {
        Recorder r = recorder();
        r.refusals = 2;
        ByteBuffer in = ByteBuffer.wrap(send(10, (byte) 7));
        r.reader.receive(in);
        assertThat(in.position()).isEqualTo(24);
        assertThat(r.reader.awaitingAdmission()).isTrue();
        r.reader.receive(ByteBuffer.allocate(0)); // an empty buffer retries the admission only
        assertThat(r.events).containsExactly("refused", "refused");
        assertThat(in.position()).isEqualTo(24);
        r.reader.receive(in);
        assertThat(r.events).containsExactly("refused", "refused", "header SEND 24+10", "end");
        assertThat(r.payload.toByteArray()).containsOnly(7).hasSize(10);
    }

    @Test
    void framingErrors_areReported_andTheRestIsDropped() {
        Recorder r = recorder();
        byte[] bad = send(0, (byte) 0);
        bad[0] = 2;
        ByteBuffer in = ByteBuffer.wrap(bad);
        r.reader.receive(in);
        assertThat(r.events).containsExactly("version 2");
        assertThat(r.reader.dead()).isTrue();
        ByteBuffer more = ByteBuffer.wrap(send(5, (byte) 0));
        r.reader.receive(more);
        assertThat(more.hasRemaining()).isFalse();
        assertThat(r.events).hasSize(1);

        Recorder reserved = recorder();
        byte[] seg = send(0, (byte) 0);
        seg[1] = (byte) (12 << 3);
        reserved.reader.receive(ByteBuffer.wrap(seg));
        assertThat(reserved.events).containsExactly("error reserved type 12");

        Recorder tooShort = recorder();
        byte[] w = write(0);
        SegmentHeader.writeSegmentLength(ByteBuffer.wrap(w), 0, 30);
        tooShort.reader.receive(ByteBuffer.wrap(w));
        assertThat(tooShort.events).singleElement().asString().startsWith("error segment length 30 too short");
    }
}

package io.vibridge.iwarp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives an established engine's output side message by message and keeps what each call should have
 * produced; {@link #check} then decodes everything written with {@code FpduReader} and {@code DdpSegment}
 * and holds it to RFC 5040/5041 and to what siw does: per message, segments of the one opcode, full but for
 * the last, the L flag on the last only, MSN per untagged queue from 1 and one per message, MO from 0 and
 * TO from the given base advancing by the payload, each FPDU within maxFpdu, and {@code length(...)} equal
 * to the bytes written.
 */
final class Emitter {

    /** What one call should have put on the wire. */
    record Expected(RdmapOpcode op, int stag, long to, int invalidateStag, byte[] payload, ReadRequest readRequest,
                    TerminateCode terminate, int bytes) {
    }

    final Session session;
    final int maxFpdu;
    final int maxUlpdu;
    final List<Expected> expected = new ArrayList<>();
    private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    private int clientReadMsn = 1;

    Emitter(int maxFpdu, boolean crc) {
        this.maxFpdu = maxFpdu;
        this.maxUlpdu = new RdmapWriter(maxFpdu, crc).maxUlpdu();
        session = new Session(false, maxFpdu, crc, MpaV2Params.of(64, 64)).open(64, 64);
        if (!session.feed(Wire.send(crc, true, 1, 0, new byte[16]))) {
            throw new AssertionError("not established: " + session.engine.failure());
        }
    }

    private IwarpConnection engine() {
        return session.engine;
    }

    private ByteBuffer buffer(int predicted) {
        // some slack before and after, so that the call must honour position and write no further than predicted
        ByteBuffer b = ByteBuffer.allocate(predicted + 13);
        b.position(5);
        return b;
    }

    private void keep(ByteBuffer b, int predicted, Expected e) {
        assertThat(b.position() - 5).as("%s: length() predicted %d", e.op(), predicted).isEqualTo(predicted);
        for (int i = b.position(); i < b.capacity(); i++) {
            assertThat(b.get(i)).as("byte %d after the message", i - b.position()).isZero();
        }
        wire.write(b.array(), 5, predicted);
        expected.add(new Expected(e.op(), e.stag(), e.to(), e.invalidateStag(), e.payload(), e.readRequest(),
                e.terminate(), predicted));
    }

    void send(RdmapOpcode op, byte[] payload, int invalidateStag) {
        int n = engine().length(op, payload.length);
        ByteBuffer b = buffer(n);
        ByteBuffer src = ByteBuffer.allocate(payload.length + 3).put(3, payload);
        engine().send(b, src, 3, payload.length, op.solicited(), op.invalidates() ? invalidateStag : 0);
        keep(b, n, new Expected(op, 0, 0, op.invalidates() ? invalidateStag : 0, payload, null, null, n));
    }

    void write(int stag, long to, byte[] payload) {
        int n = engine().length(RdmapOpcode.RDMA_WRITE, payload.length);
        ByteBuffer b = buffer(n);
        engine().write(b, stag, to, ByteBuffer.wrap(payload), 0, payload.length);
        keep(b, n, new Expected(RdmapOpcode.RDMA_WRITE, stag, to, 0, payload, null, null, n));
    }

    /** The client asks for {@code payload.length} bytes; the engine answers from {@code payload}. */
    void readResponse(int sinkStag, long sinkTo, byte[] payload) {
        ReadRequest r = new ReadRequest(sinkStag, sinkTo, payload.length, 0x77, 0);
        if (!session.feed(Wire.readRequest(session.crc(), clientReadMsn++, r))) {
            throw new AssertionError("the client's Read Request failed: " + engine().failure());
        }
        int n = engine().length(RdmapOpcode.READ_RESPONSE, payload.length);
        ByteBuffer b = buffer(n);
        engine().readResponse(b, ByteBuffer.wrap(payload), 0);
        keep(b, n, new Expected(RdmapOpcode.READ_RESPONSE, sinkStag, sinkTo, 0, payload, null, null, n));
    }

    void readRequest(int length, int sourceStag, long sourceTo) {
        int n = engine().readRequestLength();
        ByteBuffer b = buffer(n);
        engine().readRequest(b, length, sourceStag, sourceTo, "t" + expected.size());
        keep(b, n, new Expected(RdmapOpcode.READ_REQUEST, 0, 0, 0, new byte[0],
                new ReadRequest(0, 0, length, sourceStag, sourceTo), null, n));
    }

    void terminate(TerminateCode code) {
        engine().terminate(code, "test");
        ByteBuffer t = engine().pollControl();
        int n = t.remaining();
        assertThat(n).isEqualTo(RdmapWriter.terminateLength(Terminate.of(code)));
        wire.write(t.array(), t.position(), n);
        expected.add(new Expected(RdmapOpcode.TERMINATE, 0, 0, 0, new byte[0], null, code, n));
    }

    /** Decodes everything written and checks it against the calls made. */
    void check() {
        List<Wire.Seg> segs = Wire.decode(wire.toByteArray(), session.crc());
        int[] msn = {1, 1, 1};
        int at = 0;
        for (Expected e : expected) {
            RdmapOpcode op = e.op();
            int per = maxUlpdu - op.headerLength();
            int count = op.carriesData() ? Math.max(1, (e.payload().length + per - 1) / per) : 1;
            assertThat(segs.size() - at).as("segments left for %s", op).isGreaterThanOrEqualTo(count);
            List<Wire.Seg> mine = segs.subList(at, at + count);
            at += count;
            assertThat(mine.stream().mapToInt(Wire.Seg::fpduLength).sum()).as("bytes of %s", op).isEqualTo(e.bytes());
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            for (int i = 0; i < count; i++) {
                Wire.Seg g = mine.get(i);
                String where = op + " segment " + i + " of " + count;
                assertThat(g.op()).as(where).isEqualTo(op);
                assertThat(g.last()).as(where + ": L").isEqualTo(i == count - 1);
                assertThat(g.fpduLength()).as(where + ": FPDU length").isLessThanOrEqualTo(maxFpdu);
                if (i < count - 1) {
                    assertThat(g.payload().length).as(where + ": full").isEqualTo(per);
                }
                if (op.tagged()) {
                    assertThat(g.stag()).as(where).isEqualTo(e.stag());
                    assertThat(g.to()).as(where + ": TO").isEqualTo(e.to() + got.size());
                } else {
                    assertThat(g.queue()).as(where).isEqualTo(op.queue());
                    assertThat(g.msn()).as(where + ": MSN").isEqualTo(msn[op.queue()]);
                    assertThat(g.mo()).as(where + ": MO").isEqualTo(op.carriesData() ? got.size() : 0);
                    assertThat(g.invalidateStag()).as(where).isEqualTo(e.invalidateStag());
                }
                got.writeBytes(g.payload());
            }
            if (!op.tagged()) {
                msn[op.queue()]++;
            }
            switch (op) {
                case READ_REQUEST -> {
                    ReadRequest r = mine.getFirst().readRequest();
                    ReadRequest w = e.readRequest();
                    assertThat(r.size()).isEqualTo(w.size());
                    assertThat(r.sourceStag()).isEqualTo(w.sourceStag());
                    assertThat(r.sourceOffset()).isEqualTo(w.sourceOffset());
                    assertThat(r.sinkOffset()).isZero();
                    assertThat(r.sinkStag()).isNotZero();
                }
                case TERMINATE -> assertThat(mine.getFirst().terminate()).isEqualTo(Terminate.of(e.terminate()));
                default -> assertThat(got.toByteArray()).as("payload of %s", op).isEqualTo(e.payload());
            }
        }
        assertThat(at).as("segments nobody asked for").isEqualTo(segs.size());
        assertThat(Fpdu.length(maxUlpdu)).isLessThanOrEqualTo(maxFpdu);
    }
}

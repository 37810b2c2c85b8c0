package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Round trips: any sequence of segments written with {@link DdpSegment} and sealed by {@link Fpdu}, fed to
 * {@link FpduReader} in arbitrary chunks (heap or direct), with or without CRC, comes out as the same
 * headers and payloads, in order, each once, also when the handler refuses some the first time.
 */
class FpduPropertiesTest {

    record Sent(RdmapOpcode op, boolean last, int a, long b, int c, int d, byte[] payload) {
    }

    @Property(tries = 300)
    void segmentsSurviveAnyChunking(@ForAll long seed, @ForAll boolean crc, @ForAll boolean direct,
            @ForAll @IntRange(min = 1, max = 20) int count) {
        Random rnd = new Random(seed);
        List<Sent> sent = new ArrayList<>();
        ByteBuffer stream = ByteBuffer.allocate(count * Fpdu.MAX_LENGTH);
        CRC32C crc32c = new CRC32C();
        RdmapOpcode[] ops = RdmapOpcode.values();
        for (int i = 0; i < count; i++) {
            RdmapOpcode op = ops[rnd.nextInt(ops.length - 1)];   // Terminate has its own tests
            int size = op.carriesData() ? (rnd.nextInt(8) == 0 ? rnd.nextInt(Fpdu.MAX_ULPDU - op.headerLength() + 1)
                    : rnd.nextInt(3000)) : 0;
            byte[] payload = new byte[size];
            rnd.nextBytes(payload);
            boolean last = op == RdmapOpcode.READ_REQUEST || rnd.nextBoolean();
            int at = stream.position();
            int h;
            Sent s;
            if (op.tagged()) {
                s = new Sent(op, last, rnd.nextInt(), rnd.nextLong(), 0, 0, payload);
                h = DdpSegment.writeTagged(stream, at + 2, op, last, s.a(), s.b());
            } else {
                s = new Sent(op, last, op.invalidates() ? rnd.nextInt() : 0, 0, rnd.nextInt(),
                        op == RdmapOpcode.READ_REQUEST ? 0 : rnd.nextInt(), payload);
                h = DdpSegment.writeUntagged(stream, at + 2, op, last, s.a(), s.c(), s.d());
            }
            if (op == RdmapOpcode.READ_REQUEST) {
                new ReadRequest(rnd.nextInt(), rnd.nextLong(), rnd.nextInt(), rnd.nextInt(), rnd.nextLong())
                        .encode(stream, at + 2 + h);
                h += ReadRequest.LENGTH;
                byte[] rr = new byte[ReadRequest.LENGTH];
                stream.get(at + 2 + DdpSegment.UNTAGGED_HEADER, rr);
                s = new Sent(op, last, s.a(), s.b(), s.c(), s.d(), rr);
            }
            stream.put(at + 2 + h, payload);
            stream.position(at + Fpdu.seal(stream, at, h + payload.length, crc ? crc32c : null));
            sent.add(s);
        }
        stream.flip();

        List<Sent> got = new ArrayList<>();
        DdpSegment seg = new DdpSegment();
        boolean[] refuse = {false};
        FpduReader reader = new FpduReader((buf, off, len) -> {
            if (refuse[0] = !refuse[0] && rnd.nextInt(4) == 0) {
                return false;
            }
            seg.wrap(buf, off, len);
            byte[] p = new byte[seg.payloadLength()];
            buf.get(seg.payloadOffset(), p);
            RdmapOpcode op = seg.opcode();
            got.add(op.tagged() ? new Sent(op, seg.last(), seg.stag(), seg.taggedOffset(), 0, 0, p)
                    : new Sent(op, seg.last(), seg.invalidateStag(), 0, seg.msn(), seg.messageOffset(), p));
            return true;
        });
        reader.crc(crc);
        ByteBuffer chunk = direct ? ByteBuffer.allocateDirect(70_000) : ByteBuffer.allocate(70_000);
        while (stream.hasRemaining()) {
            int n = Math.min(stream.remaining(), 1 + rnd.nextInt(rnd.nextBoolean() ? 64 : 70_000));
            chunk.clear().put(stream.slice(stream.position(), n)).flip();
            stream.position(stream.position() + n);
            while (!reader.receive(chunk)) {
                // refused: hand the rest again, as the engine does once it has a buffer
            }
            assertThat(chunk.hasRemaining()).isFalse();
        }
        assertThat(reader.midFpdu()).isFalse();
        assertThat(got).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            Sent w = sent.get(i);
            Sent g = got.get(i);
            assertThat(g.op()).isEqualTo(w.op());
            assertThat(g.last()).isEqualTo(w.last());
            assertThat(g.a()).isEqualTo(w.a());
            assertThat(g.b()).isEqualTo(w.b());
            assertThat(g.c()).isEqualTo(w.c());
            assertThat(g.d()).isEqualTo(w.d());
            assertThat(g.payload()).isEqualTo(w.payload());
        }
    }
}

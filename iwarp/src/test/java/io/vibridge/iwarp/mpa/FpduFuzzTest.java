package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * 100,000 frames, valid ones mutated and pure noise, with and without CRC, through the stream reader,
 * the segment view and the RDMAP header decoders, and the MPA frame decoder: nothing but
 * {@link IwarpProtocolException} may escape, and every accessor must stay inside the segment.
 */
class FpduFuzzTest {

    @Test
    void hundredThousandFramesOnlyProtocolExceptions() {
        Random rnd = new Random(20261124);
        CRC32C crc = new CRC32C();
        DdpSegment seg = new DdpSegment();
        Map<RdmapOpcode, Integer> accepted = new EnumMap<>(RdmapOpcode.class);
        int refused = 0;
        ByteBuffer b = ByteBuffer.allocate(Fpdu.MAX_LENGTH + 64);
        for (int i = 0; i < 100_000; i++) {
            boolean withCrc = rnd.nextBoolean();
            b.clear();
            int n;
            if (rnd.nextInt(4) == 0) {
                n = rnd.nextInt(200);
                for (int k = 0; k < n; k++) {
                    b.put(k, (byte) rnd.nextInt());
                }
            } else {
                RdmapOpcode op = RdmapOpcode.values()[rnd.nextInt(8)];
                int h = op.tagged() ? DdpSegment.writeTagged(b, 2, op, rnd.nextBoolean(), rnd.nextInt(), rnd.nextLong())
                        : DdpSegment.writeUntagged(b, 2, op, true, rnd.nextInt(), rnd.nextInt(), 0);
                int extra = op == RdmapOpcode.READ_REQUEST ? 28 : op == RdmapOpcode.TERMINATE ? 4 + rnd.nextInt(40)
                        : rnd.nextInt(100);
                for (int k = 0; k < extra; k++) {
                    b.put(2 + h + k, (byte) rnd.nextInt());
                }
                n = Fpdu.seal(b, 0, h + extra, withCrc ? crc : null);
                for (int flips = rnd.nextInt(4); flips > 0; flips--) {
                    int at = rnd.nextInt(n);
                    b.put(at, (byte) (b.get(at) ^ (1 << rnd.nextInt(8))));
                }
                if (rnd.nextInt(10) == 0) {
                    n = rnd.nextInt(n + 1);     // cut short
                }
            }
            b.limit(n);
            FpduReader reader = new FpduReader((buf, off, len) -> {
                seg.wrap(buf, off, len);
                assertThat(seg.payloadOffset() + seg.payloadLength()).isEqualTo(off + len);
                assertThat(seg.payloadLength()).isNotNegative();
                switch (seg.opcode()) {
                    case READ_REQUEST -> seg.readRequest();
                    case TERMINATE -> seg.terminate().toString();
                    default -> {
                    }
                }
                accepted.merge(seg.opcode(), 1, Integer::sum);
                return true;
            });
            reader.crc(withCrc);
            try {
                reader.receive(b);
                if (rnd.nextBoolean()) {
                    MpaFrame.decode(b, 0, n, rnd.nextBoolean() ? MpaKey.REQUEST : MpaKey.REPLY);
                }
            } catch (IwarpProtocolException e) {
                refused++;
                assertThat(e.offset()).isBetween(-2, n);
            }
        }
        assertThat(refused).isGreaterThan(10_000);
        assertThat(accepted).containsOnlyKeys(RdmapOpcode.values());
    }
}

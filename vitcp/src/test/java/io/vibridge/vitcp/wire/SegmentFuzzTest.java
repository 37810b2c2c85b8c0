package io.vibridge.vitcp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fixed-seed fuzzing of the three decoders ({@link SegmentView#wrap}, {@link SegmentView#frameLength},
 * {@link ControlSegment#decode}) with random and mutated valid segments: bit flips, truncation,
 * length-field tampering, CE-length tampering, random bytes. Only {@link ProtocolException} may escape,
 * and every accepted input must re-validate to the same fields elsewhere.
 */
class SegmentFuzzTest {

    private static final int ITERATIONS = 120_000;
    private static final long SEED = 0x5EED_F00DL;

    private final Random rnd = new Random(SEED);
    private final SegmentView view = new SegmentView();
    private final SegmentView again = new SegmentView();
    private int accepted;
    private int rejected;

    @Test
    void onlyProtocolExceptionsEscapeAndAcceptedInputsAreConsistent() {
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input = mutate(validSegment());
            int at = rnd.nextInt(8);
            ByteBuffer bb = ByteBuffer.allocate(at + input.length + rnd.nextInt(4))
                    .order(rnd.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            bb.put(at, input);
            check(bb, at, input.length, input, i);
        }
        // the mutations must exercise both outcomes, or the fuzzer proves nothing
        assertThat(accepted).isGreaterThan(ITERATIONS / 20);
        assertThat(rejected).isGreaterThan(ITERATIONS / 4);
    }

    private void check(ByteBuffer bb, int at, int available, byte[] input, int iteration) {
        try {
            int frame = SegmentView.frameLength(bb, at, rnd.nextInt(available + 1));
            assertThat(frame).isGreaterThanOrEqualTo(-1);
        } catch (ProtocolException expected) {
            // fine
        } catch (RuntimeException e) {
            fail("frameLength threw " + e + " on iteration " + iteration + ": " + hex(input), e);
        }
        boolean ok;
        try {
            view.wrap(bb, at, available);
            ok = true;
            accepted++;
        } catch (ProtocolException e) {
            ok = false;
            rejected++;
            assertThat(e.offset()).isBetween(at, at + available);
            assertThat(view.isValid()).isFalse();
        } catch (RuntimeException e) {
            throw new AssertionError("wrap threw " + e + " on iteration " + iteration + ": " + hex(input), e);
        }
        ControlSegment control = null;
        try {
            control = ControlSegment.decode(bb, at, available);
            assertThat(ok).as("control decoder accepted what wrap refused").isTrue();
        } catch (ProtocolException e) {
            assertThat(!ok || !view.type().isConnectionSetup()).as("control decoder refused a valid setup segment: %s", e)
                    .isTrue();
        } catch (RuntimeException e) {
            throw new AssertionError("ControlSegment.decode threw " + e + " on iteration " + iteration + ": "
                    + hex(input), e);
        }
        if (ok) {
            checkConsistent(bb, at, available, input, control);
        }
    }

    private void checkConsistent(ByteBuffer bb, int at, int available, byte[] input, ControlSegment control) {
        assertThat(view.segmentLength()).isBetween(24, available);
        assertThat(view.payloadOffset() + view.payloadLength()).isEqualTo(at + view.segmentLength());
        assertThat(view.payloadLength()).isNotNegative();
        assertThat(SegmentView.frameLength(bb, at, available)).isEqualTo(view.segmentLength());
        // the exact segment alone, elsewhere, in the other byte order, validates to the same fields
        int len = view.segmentLength();
        ByteBuffer copy = ByteBuffer.allocate(len + 3)
                .order(bb.order() == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        copy.put(3, input, 0, len);
        again.wrap(copy, 3, len);
        assertThat(again.type()).isEqualTo(view.type());
        assertThat(again.flags()).isEqualTo(view.flags());
        assertThat(again.dataOffset()).isEqualTo(view.dataOffset());
        assertThat(again.messageNumber()).isEqualTo(view.messageNumber());
        assertThat(again.messageAck()).isEqualTo(view.messageAck());
        assertThat(again.rxDescriptorsPosted()).isEqualTo(view.rxDescriptorsPosted());
        assertThat(again.rdmaLength()).isEqualTo(view.rdmaLength());
        assertThat(again.payloadLength()).isEqualTo(view.payloadLength());
        if (control != null) {
            ByteBuffer out = ByteBuffer.allocate(control.encodedLength());
            int n = control.encode(out, 0);
            assertThat(ControlSegment.decode(out, 0, n)).isEqualTo(control);
            if (control instanceof ConnectRequest || control instanceof ConnectAccept) {
                assertThat(n).isEqualTo(len); // CE header re-encodes to the same size
            }
        }
    }

    private byte[] validSegment() {
        ByteBuffer bb = ByteBuffer.allocate(512);
        int n;
        switch (rnd.nextInt(8)) {
            case 0 -> {
                int pl = rnd.nextInt(64);
                n = Segments.writeSend(bb, 0, rnd.nextBoolean(), SegmentHeader.FLAG_END_OF_MESSAGE
                        | (rnd.nextBoolean() ? SegmentHeader.FLAG_IMMEDIATE : 0), pl, rnd.nextInt(1 << 16),
                        rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt(1 << 16)) + pl;
            }
            case 1 -> {
                int pl = rnd.nextInt(64);
                long dOff = rnd.nextInt(1000);
                n = Segments.writeRdmaWrite(bb, 0, rnd.nextBoolean(), rnd.nextInt(3) & 2, pl, dOff, 0, rnd.nextInt(),
                        0, rnd.nextInt(1 << 16), rnd.nextLong(), rnd.nextInt(), dOff + pl + rnd.nextInt(100)) + pl;
            }
            case 2 -> n = Segments.writeRdmaReadRequest(bb, 0, rnd.nextBoolean(), rnd.nextInt(), 0, 3, rnd.nextLong(),
                    rnd.nextInt(), rnd.nextInt() & 0xFFFFFFFFL);
            case 3 -> {
                int pl = rnd.nextInt(64);
                n = Segments.writeReadResponse(bb, 0, rnd.nextInt(4) & 2, pl, rnd.nextInt(5000), rnd.nextInt(), 0, 1)
                        + pl;
            }
            case 4 -> n = Segments.writeNop(bb, 0, rnd.nextInt(), rnd.nextInt(), rnd.nextInt(1 << 16), rnd.nextInt(3),
                    rnd.nextInt(17));
            case 5 -> n = new ConnectReject(rnd.nextInt(17)).encode(bb, 0);
            case 6 -> n = new ConnectNoMatch().encode(bb, 0);
            default -> {
                byte[] info = new byte[rnd.nextBoolean() ? 0 : 40];
                rnd.nextBytes(info);
                ConnectionHeader h = new ConnectionHeader(new ConnectionAttributes(rnd.nextInt(128)),
                        discriminator(), rnd.nextInt() & 0xFFFFFFFFL, rnd.nextInt(1 << 16), discriminator(),
                        info.length == 0 ? 0 : 1, info);
                ControlSegment c = rnd.nextBoolean() ? new ConnectRequest(rnd.nextInt(), rnd.nextInt(1 << 16), h)
                        : new ConnectAccept(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(1 << 16), h);
                n = c.encode(bb, 0);
            }
        }
        for (int i = 24; i < n; i++) {
            if (bb.get(i) == 0 && rnd.nextInt(8) == 0 && !isControl(bb)) {
                bb.put(i, (byte) rnd.nextInt()); // vary payload bytes
            }
        }
        return Arrays.copyOf(bb.array(), n);
    }

    private static boolean isControl(ByteBuffer bb) {
        return SegmentHeader.typeCode(bb, 0) >= 4;
    }

    private Discriminator discriminator() {
        byte[] b = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(65)];
        rnd.nextBytes(b);
        return Discriminator.of(b);
    }

    private byte[] mutate(byte[] s) {
        switch (rnd.nextInt(10)) {
            case 0, 1 -> {
                return s; // unmodified
            }
            case 2, 3 -> { // 1..4 bit flips
                for (int k = rnd.nextInt(4); k >= 0; k--) {
                    int i = rnd.nextInt(s.length);
                    s[i] ^= (byte) (1 << rnd.nextInt(8));
                }
                return s;
            }
            case 4 -> { // truncation
                return Arrays.copyOf(s, rnd.nextInt(s.length + 1));
            }
            case 5 -> { // Segment Length tampering
                int len = rnd.nextBoolean() ? rnd.nextInt(65536) : Math.max(0, s.length + rnd.nextInt(17) - 8);
                s[2] = (byte) (len >>> 8);
                s[3] = (byte) len;
                return s;
            }
            case 6 -> { // extension with trailing bytes and a matching length
                byte[] longer = Arrays.copyOf(s, s.length + 1 + rnd.nextInt(12));
                longer[2] = (byte) (longer.length >>> 8);
                longer[3] = (byte) longer.length;
                return longer;
            }
            case 7 -> { // tamper one u16 inside the CE/RDMA area (discriminator/security lengths)
                if (s.length > 28) {
                    int i = 24 + 2 * rnd.nextInt((s.length - 24) / 2);
                    int v = rnd.nextBoolean() ? rnd.nextInt(70) : rnd.nextInt(65536);
                    s[i] = (byte) (v >>> 8);
                    s[i + 1] = (byte) v;
                }
                return s;
            }
            case 8 -> { // type/flags byte replaced
                s[1] = (byte) rnd.nextInt(256);
                return s;
            }
            default -> { // random bytes with a plausible start
                byte[] r = new byte[rnd.nextInt(100)];
                rnd.nextBytes(r);
                if (r.length > 0 && rnd.nextBoolean()) {
                    r[0] = 1;
                }
                return r;
            }
        }
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}

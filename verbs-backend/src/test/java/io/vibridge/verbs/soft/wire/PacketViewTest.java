package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PacketViewTest {

    private final PacketView view = new PacketView();
    private final PacketWriter writer = new PacketWriter();

    @Test
    void parsesVectorB() {
        byte[] d = IcrcTest.VECTOR_B;
        ByteBuffer b = ByteBuffer.wrap(d);
        view.wrap(b, 28, d.length - 28);
        assertThat(view.opcode()).isEqualTo(Opcode.SEND_ONLY);
        assertThat(view.destQp()).isEqualTo(0x11);
        assertThat(view.psn()).isEqualTo(1);
        assertThat(view.ackRequest()).isTrue();
        assertThat(view.pkey()).isEqualTo(0xFFFF);
        assertThat(view.padCount()).isZero();
        assertThat(view.payloadOffset()).isEqualTo(40);
        assertThat(view.payloadLength()).isEqualTo(12);
        assertThat(view.icrc()).isEqualTo(0xF263CB47);
        assertThat(view.icrcOffset()).isEqualTo(52);
    }

    @Test
    void parsesVectorC_ack() {
        byte[] d = IcrcTest.VECTOR_C;
        view.wrap(ByteBuffer.wrap(d), 28, d.length - 28);
        assertThat(view.opcode()).isEqualTo(Opcode.ACKNOWLEDGE);
        assertThat(view.aethSyndrome()).isEqualTo(0x1F);
        assertThat(Aeth.kind(view.aethSyndrome())).isEqualTo(AethKind.ACK);
        assertThat(view.aethMsn()).isEqualTo(1);
        assertThat(view.payloadLength()).isZero();
    }

    @Test
    void writerReproducesVectorB() {
        byte[] expected = IcrcTest.VECTOR_B;
        ByteBuffer out = ByteBuffer.allocate(64);
        byte[] hello = "Hello, RoCE!".getBytes(StandardCharsets.US_ASCII);
        int len = writer.begin(out, 0, Opcode.SEND_ONLY, false, 0xFFFF, 0x11, true, 1, hello.length)
            .payload(hello, 0).finish();
        new Icrc().sealIpv4(0x0A00_0001, 0x0A00_0002, 0xC123, 4791, out, 0, len);
        // Vector B has IP ID 0x1234; our sender uses ID 0, so compare all but the trailer, then
        // check the trailer against the ID-0 reference.
        byte[] got = new byte[len];
        out.get(0, got);
        byte[] exp = Arrays.copyOfRange(expected, 28, expected.length);
        assertThat(Arrays.copyOf(got, len - 4)).isEqualTo(Arrays.copyOf(exp, len - 4));
        byte[] dgram = expected.clone();
        dgram[4] = 0;
        dgram[5] = 0;
        System.arraycopy(got, 0, dgram, 28, len);
        assertThat(ReferenceIcrc.compute(dgram)).isEqualTo(ReferenceIcrc.trailer(dgram));
    }

    @Test
    void writerLaysOutPadAndHeaders() {
        ByteBuffer out = ByteBuffer.allocate(64);
        for (int i = 0; i < 64; i++) {
            out.put(i, (byte) 0xEE);
        }
        int len = writer.begin(out, 4, Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE, true, 0xFFFF, 0x42, true, 7, 5)
            .reth(0x1000, 0x77, 5).immDt(0x01020304).payload(new byte[] {1, 2, 3, 4, 5}, 0).finish();
        assertThat(len).isEqualTo(12 + 16 + 4 + 5 + 3 + 4);
        byte[] got = new byte[len];
        out.get(4, got);
        assertThat(got).isEqualTo(Hex.bytes("0b b0 ff ff 00 00 00 42 80 00 00 07"
            + "00 00 00 00 00 00 10 00 00 00 00 77 00 00 00 05" + "01 02 03 04" + "01 02 03 04 05 00 00 00"
            + "00 00 00 00"));
        view.wrap(out, 4, len);
        assertThat(view.padCount()).isEqualTo(3);
        assertThat(view.payloadLength()).isEqualTo(5);
        assertThat(view.solicitedEvent()).isTrue();
        assertThat(view.immDt()).isEqualTo(0x01020304);
        assertThat(view.rethDmaLength()).isEqualTo(5);
        assertThatThrownBy(() -> view.aethMsn()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> writer.begin(out, 0, Opcode.SEND_FIRST, false, 0xFFFF, 1, false, 0, 5))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> writer.begin(out, 0, Opcode.ACKNOWLEDGE, false, 0xFFFF, 1, false, 0, 4))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> writer.begin(out, 0, Opcode.ACKNOWLEDGE, false, 0xFFFF, 1, false, 0, 0).reth(0, 0, 0))
            .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void malformedPackets() {
        assertMalformed("", "bth", 0);
        assertMalformed("04 00 ff ff 00 00 00 01 00 00 00 00 00 00 00", "bth", 0);
        assertMalformed("15 00 ff ff 00 00 00 01 00 00 00 00 00 00 00 00", "bth.opcode", 0);
        assertMalformed("04 01 ff ff 00 00 00 01 00 00 00 00 00 00 00 00", "bth.tver", 1);
        // ACK needs an AETH
        assertMalformed("11 00 ff ff 00 00 00 01 00 00 00 00 00 00 00 00", "length", 16);
        // ACK with trailing bytes
        assertMalformed("11 00 ff ff 00 00 00 01 00 00 00 00 1f 00 00 00 00 00 00 00 00 00 00 00", "length", 16);
        // READ request with a pad count
        assertMalformed("0c 10 ff ff 00 00 00 01 00 00 00 00" + "00".repeat(16) + "00 00 00 00", "bth.padcnt", 1);
        // SEND Only: payload + pad not a multiple of 4
        assertMalformed("04 00 ff ff 00 00 00 01 00 00 00 00 01 02 00 00 00 00", "length", 12);
        // SEND Only: pad 3 but no payload bytes
        assertMalformed("04 30 ff ff 00 00 00 01 00 00 00 00 00 00 00 00", "bth.padcnt", 1);
        // SEND First with a pad count
        assertMalformed("00 10 ff ff 00 00 00 01 00 00 00 00 01 02 03 00 00 00 00 00", "bth.padcnt", 1);
        // pad count 3, 4 bytes: 1 payload byte
        view.wrap(ByteBuffer.wrap(Hex.bytes("04 30 ff ff 00 00 00 01 00 00 00 00 01 00 00 00 00 00 00 00")), 0, 20);
        assertThat(view.payloadLength()).isEqualTo(1);
    }

    private void assertMalformed(String hex, String field, int offset) {
        byte[] d = Hex.bytes(hex);
        assertThatThrownBy(() -> view.wrap(ByteBuffer.wrap(d), 0, d.length))
            .isInstanceOfSatisfying(MalformedPacketException.class, e -> {
                assertThat(e.field()).isEqualTo(field);
                assertThat(e.offset()).isEqualTo(offset);
                assertThat(e.getMessage()).contains(field);
            });
    }

    @Property(tries = 1000, seed = "21")
    void writerViewRoundTrip(@ForAll @IntRange(max = 24) int opIndex, @ForAll boolean se,
                             @ForAll @IntRange(max = 0xFFFF) int pkey, @ForAll @IntRange(max = 0xFFFFFF) int qp,
                             @ForAll boolean ack, @ForAll @IntRange(max = 0xFFFFFF) int psn,
                             @ForAll @IntRange(max = 300) int payload, @ForAll long va, @ForAll int key,
                             @ForAll int word, @ForAll @IntRange(max = 7) int off, @ForAll boolean direct) {
        Opcode op = Opcode.values()[opIndex];
        int plen = !op.hasPayload() ? 0 : op.isEnd() ? payload : payload & ~3;
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(400) : ByteBuffer.allocate(400);
        byte[] data = new byte[plen];
        new Random(va).nextBytes(data);
        writer.begin(b, off, op, se, pkey, qp, ack, psn, plen);
        if (op.hasReth()) {
            writer.reth(va, key, word & 0xFFFF_FFFFL);
        }
        if (op.hasAeth()) {
            writer.aeth(word >>> 24, word & 0xFFFFFF);
        }
        if (op.hasImmDt()) {
            writer.immDt(word);
        }
        if (op.hasIeth()) {
            writer.ieth(key);
        }
        if (op.hasDeth()) {
            writer.deth(word, qp);
        }
        if (op.hasAtomicEth()) {
            writer.atomicEth(va, key, va ^ word, ~va);
        }
        if (op.hasAtomicAckEth()) {
            writer.atomicAckEth(va);
        }
        int len = writer.payload(data, 0).finish();
        assertThat(len).isEqualTo(PacketWriter.packetLength(op, plen)).isEqualTo(op.headerLength() + ((plen + 3) & ~3) + 4);
        view.wrap(b, off, len);
        assertThat(view.opcode()).isEqualTo(op);
        assertThat(view.solicitedEvent()).isEqualTo(se);
        assertThat(view.pkey()).isEqualTo(pkey);
        assertThat(view.destQp()).isEqualTo(qp);
        assertThat(view.ackRequest()).isEqualTo(ack);
        assertThat(view.psn()).isEqualTo(psn);
        assertThat(view.payloadLength()).isEqualTo(plen);
        assertThat(view.padCount()).isEqualTo(-plen & 3);
        byte[] back = new byte[plen];
        b.get(view.payloadOffset(), back);
        assertThat(back).isEqualTo(data);
        if (op.hasReth()) {
            assertThat(view.rethVirtualAddress()).isEqualTo(va);
            assertThat(view.rethRkey()).isEqualTo(key);
            assertThat(view.rethDmaLength()).isEqualTo(word & 0xFFFF_FFFFL);
        }
        if (op.hasAeth()) {
            assertThat(view.aethSyndrome()).isEqualTo(word >>> 24);
            assertThat(view.aethMsn()).isEqualTo(word & 0xFFFFFF);
        }
        if (op.hasImmDt()) {
            assertThat(view.immDt()).isEqualTo(word);
        }
        if (op.hasIeth()) {
            assertThat(view.iethRkey()).isEqualTo(key);
        }
        if (op.hasDeth()) {
            assertThat(view.dethQkey()).isEqualTo(word);
            assertThat(view.dethSrcQp()).isEqualTo(qp);
        }
        if (op.hasAtomicEth()) {
            assertThat(view.atomicVirtualAddress()).isEqualTo(va);
            assertThat(view.atomicRkey()).isEqualTo(key);
            assertThat(view.atomicSwapOrAdd()).isEqualTo(va ^ word);
            assertThat(view.atomicCompare()).isEqualTo(~va);
        }
        if (op.hasAtomicAckEth()) {
            assertThat(view.atomicAckOriginalValue()).isEqualTo(va);
        }
        for (int i = view.payloadOffset() + plen; i < off + len; i++) {
            assertThat(b.get(i)).as("pad/ICRC placeholder byte %d", i).isZero();
        }
    }

    /** 100,000 random and mutated inputs: only MalformedPacketException escapes; accepted ones are consistent. */
    @Test
    void fuzz() {
        Random rnd = new Random(0x4791);
        ByteBuffer b = ByteBuffer.allocate(2048);
        int accepted = 0;
        for (int i = 0; i < 100_000; i++) {
            int len;
            if (i % 2 == 0) {
                len = rnd.nextInt(rnd.nextBoolean() ? 64 : 1200);
                for (int k = 0; k < len; k++) {
                    b.put(k, (byte) rnd.nextInt(256));
                }
                if (rnd.nextBoolean()) {
                    b.put(0, (byte) Opcode.values()[rnd.nextInt(Opcode.values().length)].code());
                    b.put(1, (byte) (b.get(1) & 0xF0));
                }
            } else {
                Opcode op = Opcode.values()[rnd.nextInt(Opcode.values().length)];
                int plen = !op.hasPayload() ? 0 : op.isEnd() ? rnd.nextInt(300) : rnd.nextInt(75) * 4;
                len = writer.begin(b, 0, op, rnd.nextBoolean(), 0xFFFF, rnd.nextInt(1 << 24), rnd.nextBoolean(),
                    rnd.nextInt(1 << 24), plen).finish();
                switch (rnd.nextInt(4)) {
                    case 0 -> len = rnd.nextInt(len + 1);                          // truncate
                    case 1 -> len = Math.min(2048, len + 1 + rnd.nextInt(8));       // extend
                    case 2 -> b.put(rnd.nextInt(12), (byte) (b.get(0) ^ (1 << rnd.nextInt(8)))); // flip in BTH
                    default -> b.put(1, (byte) (b.get(1) ^ (rnd.nextInt(4) << 4))); // pad count
                }
            }
            try {
                view.wrap(b, 0, len);
                accepted++;
                assertThat(view.payloadOffset() + view.payloadLength() + view.padCount() + 4).isEqualTo(len);
                assertThat(view.payloadLength()).isNotNegative();
                if (!view.opcode().hasPayload()) {
                    assertThat(view.payloadLength()).isZero();
                }
            } catch (MalformedPacketException expected) {
                assertThat(expected.field()).isNotBlank();
            } catch (RuntimeException e) {
                fail("input " + i + " escaped with " + e, e);
            }
        }
        assertThat(accepted).isBetween(1_000, 99_000);
    }
}

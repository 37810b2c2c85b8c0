package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class IcrcTest {

    private final Icrc icrc = new Icrc();

    /** REF §1.5 vector A: ConnectX-4 Lx CNP capture (ID 0x718c, DF, BECN set). */
    static final byte[] VECTOR_A = Hex.bytes("""
        45 c2 00 3c 71 8c 40 00 40 11 91 61 0a 00 11 01 0a 00 12 01
        00 00 12 b7 00 28 00 00
        81 00 ff ff 40 00 01 18 00 00 00 00
        00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        82 fd 00 2a""");

    static final byte[] VECTOR_B = Hex.bytes("""
        0000: 45 00 00 38 12 34 40 00 40 11 14 7f 0a 00 00 01
        0010: 0a 00 00 02 c1 23 12 b7 00 24 00 00 04 00 ff ff
        0020: 00 00 00 11 80 00 00 01 48 65 6c 6c 6f 2c 20 52
        0030: 6f 43 45 21 47 cb 63 f2""");

    static final byte[] VECTOR_C = Hex.bytes("""
        0000: 45 00 00 30 00 01 40 00 40 11 26 ba 0a 00 00 02
        0010: 0a 00 00 01 c4 56 12 b7 00 1c 00 00 11 00 ff ff
        0020: 00 00 00 22 00 00 00 01 1f 00 00 01 ff 7c 9a 44""");

    static final byte[] VECTOR_D = Hex.bytes("""
        0000: 60 00 00 00 00 20 11 40 fd 00 00 00 00 00 00 00
        0010: 00 00 00 00 00 00 00 01 fd 00 00 00 00 00 00 00
        0020: 00 00 00 00 00 00 00 02 c1 23 12 b7 00 20 00 00
        0030: 04 30 ff ff 00 00 00 11 80 00 00 02 41 42 43 44
        0040: 45 00 00 00 9b 81 31 c9""");

    /** scapy test/contrib/roce.uts "RoCE layer": UC SEND Only, TOS 1, ID 1144, trailer 78 f3 53 f3. */
    static final byte[] VECTOR_SCAPY_UC = Hex.bytes("""
        45 01 00 40 04 78 40 00 40 11 b4 d5 c0 a8 00 07 c0 a8 00 07
        c0 00 12 b7 00 2c ac a2
        24 60 ff ff 00 00 00 d3 00 cf 17 10
        46 30 81 8b e2 89 35 d9 0e 9a 95 50 54 01 be 88 5e 50 00 00
        78 f3 53 f3""");

    @Test
    void vectorA_hardwareCnp() {
        assertIpv4Vector(VECTOR_A, 0x2A00FD82);
    }

    @Test
    void vectorB_sendOnly() {
        assertIpv4Vector(VECTOR_B, 0xF263CB47);
    }

    @Test
    void vectorC_acknowledge() {
        assertIpv4Vector(VECTOR_C, 0x449A7CFF);
    }

    @Test
    void vectorScapyUc() {
        assertIpv4Vector(VECTOR_SCAPY_UC, 0xF353F378);
    }

    @Test
    void vectorD_ipv6() {
        byte[] d = VECTOR_D;
        ByteBuffer buf = ByteBuffer.wrap(d);
        Gid src = Gid.read(buf, 8);
        Gid dst = Gid.read(buf, 24);
        int len = d.length - 48;
        assertThat(icrc.computeIpv6(src, dst, 0xC123, 4791, buf, 48, len)).isEqualTo(0xC931819B);
        assertThat(ReferenceIcrc.compute(d)).isEqualTo(0xC931819B);
        assertThat(icrc.verifyIpv6(src, dst, 0xC123, 4791, buf, 48, len)).isEqualTo(IcrcCheck.VALID);
        byte[] sealed = d.clone();
        ByteBuffer sb = ByteBuffer.wrap(sealed);
        sb.putInt(sealed.length - 4, 0);
        icrc.sealIpv6(src, dst, 0xC123, 4791, sb, 48, len);
        assertThat(sealed).isEqualTo(d);
        byte[] flipped = d.clone();
        flipped[48 + 11] ^= 1; // PSN is covered
        assertThat(icrc.computeIpv6(src, dst, 0xC123, 4791, ByteBuffer.wrap(flipped), 48, len))
            .isNotEqualTo(0xC931819B);
        flipped = d.clone();
        flipped[1] ^= 0x0F; // traffic class / flow label are masked
        flipped[7] = 1;     // hop limit is masked
        flipped[48 + 4] = (byte) 0xC0; // FECN/BECN masked
        assertThat(ReferenceIcrc.compute(flipped)).isEqualTo(0xC931819B);
        assertThat(icrc.computeIpv6(src, dst, 0xC123, 4791, ByteBuffer.wrap(flipped), 48, len))
            .isEqualTo(0xC931819B);
    }

    /** Recomputes with the socket-level values of the datagram and checks seal/verify paths. */
    private void assertIpv4Vector(byte[] dgram, int expected) {
        ByteBuffer ip = ByteBuffer.wrap(dgram);
        int id = ip.getShort(4) & 0xFFFF;
        boolean df = (ip.get(6) & 0x40) != 0;
        int src = ip.getInt(12);
        int dst = ip.getInt(16);
        int sport = ip.getShort(20) & 0xFFFF;
        int dport = ip.getShort(22) & 0xFFFF;
        int len = dgram.length - 28;
        assertThat(ReferenceIcrc.compute(dgram)).isEqualTo(expected);
        assertThat(ReferenceIcrc.trailer(dgram)).isEqualTo(expected);
        assertThat(icrc.computeIpv4(src, dst, id, df, sport, dport, ip, 28, len)).isEqualTo(expected);
        assertThat(Icrc.trailer(ip, 28, len)).isEqualTo(expected);
        // Direct buffers take the ByteBuffer path of CRC32 and must leave position/limit alone.
        ByteBuffer direct = ByteBuffer.allocateDirect(dgram.length + 7);
        direct.put(3, dgram);
        direct.position(5).limit(direct.capacity() - 2);
        assertThat(icrc.computeIpv4(src, dst, id, df, sport, dport, direct, 31, len)).isEqualTo(expected);
        assertThat(direct.position()).isEqualTo(5);
        assertThat(direct.limit()).isEqualTo(direct.capacity() - 2);
        // Receive side: the ID is unknown; the fallback finds it (unless it is 0 already).
        IcrcCheck check = icrc.verifyIpv4(src, dst, sport, dport, ip, 28, len, true);
        if (id == 0 && df) {
            assertThat(check).isEqualTo(IcrcCheck.VALID);
        } else if (df) {
            assertThat(check).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);
            assertThat(icrc.verifyAnyIpId(src, dst, sport, dport, ip, 28, len)).isEqualTo(id);
            assertThat(icrc.verifyIpv4(src, dst, sport, dport, ip, 28, len, false)).isEqualTo(IcrcCheck.INVALID);
        }
    }

    /** REF §1.5 "How to test" (3): masked fields do not change the ICRC, unmasked bytes do. */
    @Property(tries = 300, seed = "4791")
    void maskedFieldsDoNotMatterUnmaskedDo(@ForAll("datagrams") byte[] dgram, @ForAll @IntRange(max = 255) int tos,
                                           @ForAll @IntRange(max = 255) int ttl, @ForAll int checksums,
                                           @ForAll @IntRange(max = 3) int ecn) {
        int base = ReferenceIcrc.compute(dgram);
        byte[] m = dgram.clone();
        m[1] = (byte) tos;
        m[8] = (byte) ttl;
        m[10] = (byte) (checksums >> 24);
        m[11] = (byte) (checksums >> 16);
        m[26] = (byte) (checksums >> 8);
        m[27] = (byte) checksums;
        m[28 + 4] = (byte) ((ecn << 6) | (checksums & 0x3F)); // FECN, BECN, Resv6a
        assertThat(ReferenceIcrc.compute(m)).isEqualTo(base);
        // Our implementation never sees those fields: it must agree with the reference on both.
        ByteBuffer b = ByteBuffer.wrap(m);
        int len = m.length - 28;
        int id = b.getShort(4) & 0xFFFF;
        assertThat(icrc.computeIpv4(b.getInt(12), b.getInt(16), id, true, b.getShort(20) & 0xFFFF,
            b.getShort(22) & 0xFFFF, b, 28, len)).isEqualTo(base);
        // Unmasked: IP ID, an address, the PSN, a payload byte.
        for (int at : new int[] {4, 5, 15, 19, 28 + 11, m.length - 5}) {
            byte[] f = dgram.clone();
            f[at] ^= 0x10;
            assertThat(ReferenceIcrc.compute(f)).as("byte %d", at).isNotEqualTo(base);
        }
        assertThat(icrc.computeIpv4(b.getInt(12), b.getInt(16), id ^ 1, true, b.getShort(20) & 0xFFFF,
            b.getShort(22) & 0xFFFF, b, 28, len)).isNotEqualTo(base);
    }

    /** The any-ID fallback recovers exactly the ID used, for many lengths and IDs. */
    @Property(tries = 500, seed = "4791")
    void anyIdFallbackRecoversTheId(@ForAll("datagrams") byte[] dgram) {
        ByteBuffer b = ByteBuffer.wrap(dgram);
        int id = b.getShort(4) & 0xFFFF;
        int len = dgram.length - 28;
        Icrc.writeTrailer(b, 28, len, ReferenceIcrc.compute(dgram));
        int src = b.getInt(12);
        int dst = b.getInt(16);
        int sp = b.getShort(20) & 0xFFFF;
        int dp = b.getShort(22) & 0xFFFF;
        assertThat(icrc.verifyAnyIpId(src, dst, sp, dp, b, 28, len)).isEqualTo(id);
        assertThat(icrc.verifyIpv4(src, dst, sp, dp, b, 28, len, true))
            .isEqualTo(id == 0 ? IcrcCheck.VALID : IcrcCheck.VALID_SOME_IP_ID);
        // A corrupted trailer is refused by both paths unless it lands on another ID's CRC (2^-16).
        Icrc.writeTrailer(b, 28, len, ReferenceIcrc.compute(dgram) ^ 0x0001_0000);
        int other = icrc.verifyAnyIpId(src, dst, sp, dp, b, 28, len);
        if (other >= 0) {
            b.putShort(4, (short) other);
            assertThat(ReferenceIcrc.compute(dgram)).isEqualTo(Icrc.trailer(b, 28, len));
        }
    }

    @Test
    void anyIdFallbackRejectsPayloadCorruption() {
        Random rnd = new Random(7);
        int accepted = 0;
        for (int i = 0; i < 2000; i++) {
            byte[] d = randomDatagram(rnd);
            ByteBuffer b = ByteBuffer.wrap(d);
            int len = d.length - 28;
            Icrc.writeTrailer(b, 28, len, ReferenceIcrc.compute(d));
            d[28 + 12 + rnd.nextInt(len - 16)] ^= (byte) (1 + rnd.nextInt(255));
            if (icrc.verifyAnyIpId(b.getInt(12), b.getInt(16), b.getShort(20) & 0xFFFF, b.getShort(22) & 0xFFFF,
                    b, 28, len) >= 0) {
                accepted++;
            }
        }
        // Expected about 2000 / 65536; a few at most.
        assertThat(accepted).isLessThanOrEqualTo(3);
    }

    @Test
    void tooShortPacketsAreInvalidNotExceptions() {
        ByteBuffer b = ByteBuffer.allocate(64);
        assertThat(icrc.verifyIpv4(1, 2, 3, 4791, b, 0, 15, true)).isEqualTo(IcrcCheck.INVALID);
        assertThat(icrc.verifyAnyIpId(1, 2, 3, 4791, b, 0, 0)).isEqualTo(-1);
        assertThat(icrc.verifyIpv6(Gid.ZERO, Gid.ZERO, 3, 4791, b, 0, 8)).isEqualTo(IcrcCheck.INVALID);
        assertThatThrownBy(() -> icrc.computeIpv4(1, 2, 3, 4791, b, 0, 15))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void polynomialArithmetic() {
        assertThat(Icrc.multModP(1 << 31, 0x1234_5678)).isEqualTo(0x1234_5678); // x^0 * a = a
        assertThat(Icrc.multModP(0x1234_5678, 0x9ABC_DEF0)).isEqualTo(Icrc.multModP(0x9ABC_DEF0, 0x1234_5678));
        int p = 1 << 31;
        for (int n = 0; n <= 1300; n++) {
            assertThat(Icrc.x8nModP(n)).as("x^(8*%d)", n).isEqualTo(p);
            for (int k = 0; k < 8; k++) {
                p = Icrc.mulX(p);
            }
        }
        assertThat(Icrc.x8nModP(65535)).isEqualTo(Icrc.multModP(Icrc.x8nModP(65535 - 1300), Icrc.x8nModP(1300)));
    }

    @Provide
    Arbitrary<byte[]> datagrams() {
        return Arbitraries.longs().map(seed -> randomDatagram(new Random(seed)));
    }

    /** A random IPv4 RoCE datagram (ID random, DF) with a correct reference ICRC trailer. */
    static byte[] randomDatagram(Random rnd) {
        int payload = rnd.nextInt(3) == 0 ? rnd.nextInt(8) * 4 : rnd.nextInt(1100) & ~3;
        int udpPayload = 12 + 4 + payload + 4;
        byte[] d = new byte[28 + udpPayload];
        ByteBuffer b = ByteBuffer.wrap(d);
        b.put(0, (byte) 0x45).put(1, (byte) rnd.nextInt(256)).putShort(2, (short) d.length)
            .putShort(4, (short) rnd.nextInt(65536)).put(6, (byte) 0x40).put(8, (byte) 64).put(9, (byte) 17)
            .putInt(12, 0x7F00_0000 | rnd.nextInt(1 << 24)).putInt(16, 0x7F00_0000 | rnd.nextInt(1 << 24))
            .putShort(20, (short) rnd.nextInt(65536)).putShort(22, (short) 4791)
            .putShort(24, (short) (udpPayload + 8));
        for (int i = 28; i < d.length - 4; i++) {
            d[i] = (byte) rnd.nextInt(256);
        }
        Icrc.writeTrailer(b, 28, udpPayload, ReferenceIcrc.compute(d));
        return d;
    }
}

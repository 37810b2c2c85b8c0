package io.vibridge.cm.hello;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static io.vibridge.cm.testutil.Bytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HelloTest {

    private static final InetAddress CLIENT4 = InetAddress.ofLiteral("192.168.1.10");
    private static final InetAddress TARGET4 = InetAddress.ofLiteral("192.168.1.20");
    private static final InetAddress CLIENT6 = InetAddress.ofLiteral("2001:db8::1");
    private static final InetAddress TARGET6 = InetAddress.ofLiteral("fe80::abcd:1");

    // Hand-computed per CM-MAPPING §2.
    static final byte[] GOLDEN_V4 = cat(
            b(0x00),                   // 0  MID = 0 (Hello)
            b(0x00),                   // 1  reserved
            b(0x00, 0x40),             // 2  bufs = 64
            b(0x00, 0x00, 0x00, 0x5C), // 4  len = 92
            zeros(8),                  // 8  reserved
            b(0x22),                   // 16 MajVer 2, MinVer 2
            b(0x40),                   // 17 IPVer 4, FlowC 0
            b(0x00, 0x00),             // 18 reserved
            b(0x00, 0x01, 0x00, 0x00), // 20 DesRemRcvSz = 65536
            b(0x00, 0x00, 0x80, 0x00), // 24 LocalRcvSz = 32768
            b(0x9C, 0x40),             // 28 Local Port = 40000
            b(0x00, 0x00),             // 30 reserved
            zeros(12), b(0xC0, 0xA8, 0x01, 0x0A), // 32 Src IP 192.168.1.10, zero-padded
            zeros(12), b(0xC0, 0xA8, 0x01, 0x14), // 48 Dst IP 192.168.1.20, zero-padded
            zeros(28));                // 64 reserved

    static final byte[] GOLDEN_V6 = cat(
            b(0x00),                   // 0  MID = 0
            b(0x00),                   // 1  reserved
            b(0xFF, 0xFF),             // 2  bufs = 65535
            b(0x00, 0x00, 0x00, 0x5C), // 4  len = 92
            zeros(8),                  // 8  reserved
            b(0x22),                   // 16 MajVer 2, MinVer 2
            b(0x61),                   // 17 IPVer 6, FlowC 1
            b(0x00, 0x00),             // 18 reserved
            b(0xFF, 0xFF, 0xFF, 0xFF), // 20 DesRemRcvSz = 4294967295
            b(0x00, 0x00, 0x10, 0x00), // 24 LocalRcvSz = 4096
            b(0x00, 0x01),             // 28 Local Port = 1
            b(0x00, 0x00),             // 30 reserved
            b(0x20, 0x01, 0x0D, 0xB8), zeros(11), b(0x01),             // 32 Src 2001:db8::1
            b(0xFE, 0x80), zeros(10), b(0xAB, 0xCD, 0x00, 0x01),     // 48 Dst fe80::abcd:1
            zeros(28));                // 64 reserved

    static final Hello HELLO_V4 = Hello.of(64, FlowControl.TRANSPORT, 65536, 32768, 40000, CLIENT4, TARGET4);
    static final Hello HELLO_V6 = Hello.of(65535, FlowControl.APPLICATION, 0xFFFF_FFFFL, 4096, 1, CLIENT6, TARGET6);

    @Test
    void goldenVectorsHaveTheSpecLength() {
        assertThat(GOLDEN_V4).hasSize(92);
        assertThat(GOLDEN_V6).hasSize(92);
    }

    @Test
    void encodesIpv4Golden() {
        assertThat(HELLO_V4.toBytes()).isEqualTo(GOLDEN_V4);
    }

    @Test
    void encodesIpv6Golden() {
        assertThat(HELLO_V6.toBytes()).isEqualTo(GOLDEN_V6);
    }

    @Test
    void decodesGoldens() {
        assertThat(Hello.fromBytes(GOLDEN_V4)).isEqualTo(HELLO_V4);
        Hello v6 = Hello.fromBytes(GOLDEN_V6);
        assertThat(v6).isEqualTo(HELLO_V6);
        assertThat(v6.ipVersion()).isEqualTo(6);
        assertThat(v6.desiredRemoteReceiveSize()).isEqualTo(4294967295L);
    }

    @Test
    void encodeWritesAtPositionAndAdvances() {
        ByteBuffer buf = ByteBuffer.allocate(100);
        buf.put((byte) 7);
        HELLO_V4.encode(buf);
        assertThat(buf.position()).isEqualTo(93);
        byte[] written = Arrays.copyOfRange(buf.array(), 1, 93);
        assertThat(written).isEqualTo(GOLDEN_V4);
        assertThat(buf.array()[0]).isEqualTo((byte) 7);
    }

    @Test
    void encodeOverwritesDirtyBufferWithZeroReserved() {
        ByteBuffer buf = ByteBuffer.allocate(92);
        Arrays.fill(buf.array(), (byte) 0x5A);
        HELLO_V4.encode(buf);
        assertThat(buf.array()).isEqualTo(GOLDEN_V4);
    }

    @Test
    void encodeIntoTooSmallBufferWritesNothing() {
        ByteBuffer buf = ByteBuffer.allocate(91);
        assertThatThrownBy(() -> HELLO_V4.encode(buf)).isInstanceOf(BufferOverflowException.class);
        assertThat(buf.position()).isZero();
        assertThat(buf.array()).containsOnly(0);
    }

    @Test
    void decodeAdvancesPastPrivateData() {
        ByteBuffer buf = ByteBuffer.wrap(cat(GOLDEN_V4, b(1, 2, 3)));
        Hello.decode(buf);
        assertThat(buf.position()).isEqualTo(92);
        ByteBuffer shortBuf = ByteBuffer.wrap(Arrays.copyOf(GOLDEN_V4, 64));
        assertThat(Hello.decode(shortBuf)).isEqualTo(HELLO_V4);
        assertThat(shortBuf.position()).isEqualTo(64);
    }

    @Test
    void ipv4MappedIpv6StaysIpv6() {
        InetAddress mapped = Inet6AddressOf("::ffff:10.0.0.1");
        Hello h = Hello.of(1, FlowControl.APPLICATION, 1, 1, 1, mapped, TARGET6);
        Hello back = Hello.fromBytes(h.toBytes());
        assertThat(back.sourceAddress()).isInstanceOf(Inet6Address.class).isEqualTo(mapped);
        assertThat(back.ipVersion()).isEqualTo(6);
    }

    private static InetAddress Inet6AddressOf(String literal) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xFF;
        b[11] = (byte) 0xFF;
        b[12] = 10;
        b[15] = 1;
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(literal, e);
        }
    }

    // ---- the receiver's rejection rules, CM-MAPPING §3 ----

    private static byte[] withByte(byte[] src, int offset, int value) {
        byte[] copy = src.clone();
        copy[offset] = (byte) value;
        return copy;
    }

    private static void assertRejected(byte[] bytes, String field, int offset) {
        assertThatThrownBy(() -> Hello.fromBytes(bytes))
                .isInstanceOfSatisfying(CmFormatException.class, e -> {
                    assertThat(e.message()).isEqualTo("Hello");
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.offset()).isEqualTo(offset);
                    assertThat(e.cmRejectReason()).isEqualTo(28);
                    assertThat(e.getMessage()).contains("Hello." + field);
                });
    }

    @Test
    void rejectsMidNotZero() {
        assertRejected(withByte(GOLDEN_V4, 0, 1), "MID", 0);
        assertRejected(withByte(GOLDEN_V4, 0, 0xFF), "MID", 0);
    }

    @Test
    void rejectsMajorVersionNotTwo() {
        assertRejected(withByte(GOLDEN_V4, 16, 0x12), "MajVer", 16);
        assertRejected(withByte(GOLDEN_V4, 16, 0x32), "MajVer", 16);
    }

    @Test
    void rejectsLenBelow64() {
        byte[] bytes = GOLDEN_V4.clone();
        bytes[7] = 63;
        assertRejected(bytes, "len", 4);
        bytes[7] = 0;
        assertRejected(bytes, "len", 4);
    }

    @Test
    void acceptsLenOf64AndAbove92() {
        byte[] bytes = GOLDEN_V4.clone();
        bytes[7] = 64;
        assertThat(Hello.fromBytes(bytes)).isEqualTo(HELLO_V4);
        bytes[4] = (byte) 0x80; // len = 0x8000005C, large unsigned
        assertThat(Hello.fromBytes(bytes)).isEqualTo(HELLO_V4);
    }

    @Test
    void rejectsIpVersionOtherThan4Or6() {
        for (int ipVer : new int[] {0, 1, 5, 7, 15}) {
            assertRejected(withByte(GOLDEN_V4, 17, ipVer << 4), "IPVer", 17);
        }
    }

    @Test
    void rejectsFlowCOtherThan0Or1() {
        for (int flowC = 2; flowC <= 15; flowC++) {
            assertRejected(withByte(GOLDEN_V4, 17, 0x40 | flowC), "FlowC", 17);
        }
    }

    @Test
    void reasonsNameTheRuleAndTheValueReceived() {
        assertThatThrownBy(() -> Hello.fromBytes(withByte(GOLDEN_V4, 0, 1)))
                .hasMessage("Hello.MID (offset 0): must be 0 (Hello), got 1");
        assertThatThrownBy(() -> Hello.fromBytes(withByte(GOLDEN_V4, 7, 63)))
                .hasMessage("Hello.len (offset 4): must be at least 64, got 63");
        assertThatThrownBy(() -> Hello.decodeShort(ByteBuffer.wrap(withByte(GOLDEN_V4, 7, 47)),
                InetAddress.ofLiteral("10.0.0.2")))
                .hasMessage("Hello.len (offset 4): must be at least 48, got 47");
        assertThatThrownBy(() -> Hello.fromBytes(withByte(GOLDEN_V4, 16, 0x32)))
                .hasMessage("Hello.MajVer (offset 16): must be 2, got 3");
        assertThatThrownBy(() -> Hello.fromBytes(withByte(GOLDEN_V4, 17, 0x50)))
                .hasMessage("Hello.IPVer (offset 17): must be 4 or 6, got 5");
        assertThatThrownBy(() -> Hello.fromBytes(Arrays.copyOf(GOLDEN_V4, 63)))
                .hasMessage("Hello.length: needs at least 64 bytes, got 63");
    }

    @Test
    void rejectsShortInput() {
        assertThatThrownBy(() -> Hello.fromBytes(Arrays.copyOf(GOLDEN_V4, 63)))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("length"));
        assertThatThrownBy(() -> Hello.fromBytes(new byte[0])).isInstanceOf(CmFormatException.class);
    }

    @Test
    void failedDecodeLeavesPositionAlone() {
        ByteBuffer buf = ByteBuffer.wrap(withByte(GOLDEN_V4, 0, 9));
        assertThatThrownBy(() -> Hello.decode(buf)).isInstanceOf(CmFormatException.class);
        assertThat(buf.position()).isZero();
    }

    @Test
    void toleratesNonZeroReservedBytesAndIpv4Padding() {
        byte[] bytes = GOLDEN_V4.clone();
        for (int off : new int[] {1, 8, 15, 18, 19, 30, 31, 32, 43, 48, 59, 64, 91}) {
            bytes[off] = (byte) 0xA5;
        }
        assertThat(Hello.fromBytes(bytes)).isEqualTo(HELLO_V4);
    }

    @Test
    void keepsTheMinorVersionAsReceived() {
        assertThat(Hello.fromBytes(withByte(GOLDEN_V4, 16, 0x2F)).minorVersion()).isEqualTo(15);
    }

    @Test
    void constructorRefusesMixedFamiliesAndOutOfRangeValues() {
        assertThatThrownBy(() -> Hello.of(1, FlowControl.TRANSPORT, 1, 1, 1, CLIENT4, TARGET6))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same IP version");
        assertThatThrownBy(() -> Hello.of(65536, FlowControl.TRANSPORT, 1, 1, 1, CLIENT4, TARGET4))
                .hasMessageContaining("bufs");
        assertThatThrownBy(() -> Hello.of(1, FlowControl.TRANSPORT, -1, 1, 1, CLIENT4, TARGET4))
                .hasMessageContaining("desiredRemoteReceiveSize");
        assertThatThrownBy(() -> Hello.of(1, FlowControl.TRANSPORT, 1, 1L << 32, 1, CLIENT4, TARGET4))
                .hasMessageContaining("localReceiveSize");
        assertThatThrownBy(() -> Hello.of(1, FlowControl.TRANSPORT, 1, 1, 65536, CLIENT4, TARGET4))
                .hasMessageContaining("sourcePort");
        assertThatThrownBy(() -> new Hello(1, 16, FlowControl.TRANSPORT, 1, 1, 1, CLIENT4, TARGET4))
                .hasMessageContaining("minorVersion");
    }
}

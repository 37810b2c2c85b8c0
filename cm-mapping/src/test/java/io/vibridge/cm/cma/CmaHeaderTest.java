package io.vibridge.cm.cma;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static io.vibridge.cm.testutil.Bytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CmaHeaderTest {

    // IB-WIRE-REFERENCE §6.2's own example: 192.168.1.10 port 40000 -> 192.168.1.20.
    static final byte[] GOLDEN_V4 = cat(
            b(0x00),                              // 0  cma_version = 0
            b(0x40),                              // 1  ip_version 4 in bits 7:4
            b(0x9C, 0x40),                        // 2  source port 40000
            zeros(12), b(0xC0, 0xA8, 0x01, 0x0A), // 4  src_addr 192.168.1.10, zero-padded
            zeros(12), b(0xC0, 0xA8, 0x01, 0x14)); // 20 dst_addr 192.168.1.20

    static final byte[] GOLDEN_V6 = cat(
            b(0x00),                              // 0  cma_version = 0
            b(0x60),                              // 1  ip_version 6
            b(0xFF, 0xFF),                        // 2  source port 65535
            zeros(15), b(0x01),                   // 4  src_addr ::1
            b(0x20, 0x01, 0x0D, 0xB8, 0x00, 0x01), zeros(8), b(0x00, 0x02)); // 20 dst 2001:db8:1::2

    static final CmaHeader V4 = new CmaHeader(40000,
            InetAddress.ofLiteral("192.168.1.10"), InetAddress.ofLiteral("192.168.1.20"));
    static final CmaHeader V6 = new CmaHeader(65535,
            InetAddress.ofLiteral("::1"), InetAddress.ofLiteral("2001:db8:1::2"));

    @Test
    void encodesGoldens() {
        assertThat(GOLDEN_V4).hasSize(36);
        assertThat(GOLDEN_V6).hasSize(36);
        assertThat(V4.toBytes()).isEqualTo(GOLDEN_V4);
        assertThat(V6.toBytes()).isEqualTo(GOLDEN_V6);
    }

    @Test
    void decodesGoldensAndStopsAtUserData() {
        ByteBuffer buf = ByteBuffer.wrap(cat(GOLDEN_V6, b(0xAA, 0xBB)));
        assertThat(CmaHeader.decode(buf)).isEqualTo(V6);
        assertThat(buf.position()).isEqualTo(36);
        assertThat(buf.get()).isEqualTo((byte) 0xAA);
        assertThat(CmaHeader.fromBytes(GOLDEN_V4)).isEqualTo(V4);
    }

    @Test
    void privateDataIsHeaderThenUserDataThenZeros() {
        byte[] pd = V4.toPrivateData(b(1, 2, 3));
        assertThat(pd).hasSize(92);
        assertThat(Arrays.copyOf(pd, 36)).isEqualTo(GOLDEN_V4);
        assertThat(Arrays.copyOfRange(pd, 36, 39)).isEqualTo(b(1, 2, 3));
        assertThat(Arrays.copyOfRange(pd, 39, 92)).containsOnly(0);
        assertThat(V4.toPrivateData(new byte[56])).hasSize(92);
        assertThatThrownBy(() -> V4.toPrivateData(new byte[57])).hasMessageContaining("56");
    }

    private static void assertRejected(byte[] bytes, String field, int offset) {
        assertThatThrownBy(() -> CmaHeader.fromBytes(bytes))
                .isInstanceOfSatisfying(CmFormatException.class, e -> {
                    assertThat(e.message()).isEqualTo("CmaHeader");
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.offset()).isEqualTo(offset);
                });
    }

    @Test
    void rejectsVersionAndIpVersion() {
        byte[] v = GOLDEN_V4.clone();
        v[0] = 1;
        assertRejected(v, "cma_version", 0);
        for (int ipVer : new int[] {0, 2, 5, 15}) {
            byte[] ip = GOLDEN_V4.clone();
            ip[1] = (byte) (ipVer << 4);
            assertRejected(ip, "ip_version", 1);
        }
        assertRejected(Arrays.copyOf(GOLDEN_V4, 35), "length", -1);
    }

    @Test
    void reasonsNameTheRuleAndTheValueReceived() {
        byte[] bytes = GOLDEN_V4.clone();
        bytes[1] = 0x50;
        assertThatThrownBy(() -> CmaHeader.fromBytes(bytes))
                .hasMessage("CmaHeader.ip_version (offset 1): must be 4 or 6, got 5");
        assertThatThrownBy(() -> new CmaHeader(1, InetAddress.ofLiteral("::1"), InetAddress.ofLiteral("1.2.3.4")))
                .hasMessage("source /0:0:0:0:0:0:0:1 and destination /1.2.3.4 must be of the same IP version"
                        + " (one ip_version field)");
    }

    @Test
    void ignoresLowNibbleAndIpv4PaddingAsLinuxDoes() {
        byte[] bytes = GOLDEN_V4.clone();
        bytes[1] = 0x4F;
        bytes[4] = 0x11;
        bytes[31] = 0x22;
        assertThat(CmaHeader.fromBytes(bytes)).isEqualTo(V4);
    }

    @Test
    void constructorRefusesMixedFamilies() {
        assertThatThrownBy(() -> new CmaHeader(1, InetAddress.ofLiteral("::1"), InetAddress.ofLiteral("1.2.3.4")))
                .hasMessageContaining("same IP version");
        assertThatThrownBy(() -> new CmaHeader(-1, InetAddress.ofLiteral("::1"), InetAddress.ofLiteral("::2")))
                .hasMessageContaining("sourcePort");
    }
}

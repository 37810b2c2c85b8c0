package io.vibridge.cm.hello;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static io.vibridge.cm.testutil.Bytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HelloReplyTest {

    // Hand-computed per CM-MAPPING §3.
    static final byte[] GOLDEN = cat(
            b(0x01),                   // 0  MID = 1 (HelloReply)
            b(0x00),                   // 1  reserved
            b(0x00, 0x10),             // 2  bufs = 16
            b(0x00, 0x00, 0x00, 0xC4), // 4  len = 196
            zeros(8),                  // 8  reserved
            b(0x22),                   // 16 MajVer 2, MinVer 2
            b(0x00, 0x00, 0x00),       // 17 reserved
            b(0x00, 0x01, 0x00, 0x00), // 20 ActRcvSz = 65536
            zeros(172));               // 24 reserved

    static final HelloReply REPLY = HelloReply.of(16, 65536);

    @Test
    void encodesGolden() {
        assertThat(GOLDEN).hasSize(196);
        assertThat(REPLY.toBytes()).isEqualTo(GOLDEN);
    }

    @Test
    void decodesGolden() {
        ByteBuffer buf = ByteBuffer.wrap(GOLDEN);
        assertThat(HelloReply.decode(buf)).isEqualTo(REPLY);
        assertThat(buf.position()).isEqualTo(196);
    }

    @Test
    void decodesTheDefined24BytesAlone() {
        assertThat(HelloReply.fromBytes(Arrays.copyOf(GOLDEN, 24))).isEqualTo(REPLY);
        assertThatThrownBy(() -> HelloReply.fromBytes(Arrays.copyOf(GOLDEN, 23)))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("length"));
    }

    @Test
    void maximalValues() {
        HelloReply max = new HelloReply(65535, 15, 0xFFFF_FFFFL);
        assertThat(HelloReply.fromBytes(max.toBytes())).isEqualTo(max);
    }

    private static void assertRejected(int offset, int value, String field) {
        byte[] bytes = GOLDEN.clone();
        bytes[offset] = (byte) value;
        assertThatThrownBy(() -> HelloReply.fromBytes(bytes))
                .isInstanceOfSatisfying(CmFormatException.class, e -> {
                    assertThat(e.message()).isEqualTo("HelloReply");
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.offset()).isEqualTo(offset == 7 ? 4 : offset);
                });
    }

    @Test
    void rejectsPerSpec() {
        assertRejected(0, 0, "MID");
        assertRejected(0, 2, "MID");
        assertRejected(16, 0x12, "MajVer");
        assertRejected(16, 0x02, "MajVer");
        assertRejected(7, 23, "len");
        assertRejected(7, 0, "len");
    }

    @Test
    void reasonsNameTheRuleAndTheValueReceived() {
        byte[] mid = GOLDEN.clone();
        mid[0] = 0;
        assertThatThrownBy(() -> HelloReply.fromBytes(mid))
                .hasMessage("HelloReply.MID (offset 0): must be 1 (HelloReply), got 0");
        byte[] len = GOLDEN.clone();
        len[7] = 23;
        assertThatThrownBy(() -> HelloReply.fromBytes(len))
                .hasMessage("HelloReply.len (offset 4): must be at least 24, got 23");
        byte[] version = GOLDEN.clone();
        version[16] = 0x12;
        assertThatThrownBy(() -> HelloReply.fromBytes(version))
                .hasMessage("HelloReply.MajVer (offset 16): must be 2, got 1");
        assertThatThrownBy(() -> HelloReply.fromBytes(Arrays.copyOf(GOLDEN, 23)))
                .hasMessage("HelloReply.length: needs at least 24 bytes, got 23");
    }

    @Test
    void toleratesReservedBytesSuchAsSdpExtMaxAdverts() {
        byte[] bytes = GOLDEN.clone();
        bytes[19] = 1; // SDP HAH ExtMaxAdverts
        bytes[17] = 0x40;
        bytes[1] = 9;
        bytes[195] = 9;
        bytes[7] = 24; // len 24 is the minimum accepted
        assertThat(HelloReply.fromBytes(bytes)).isEqualTo(REPLY);
    }

    @Test
    void constructorChecksRanges() {
        assertThatThrownBy(() -> HelloReply.of(-1, 1)).hasMessageContaining("bufs");
        assertThatThrownBy(() -> HelloReply.of(1, 1L << 32)).hasMessageContaining("actualReceiveSize");
    }
}

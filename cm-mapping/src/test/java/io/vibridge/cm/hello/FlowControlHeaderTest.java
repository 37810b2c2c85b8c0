package io.vibridge.cm.hello;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class FlowControlHeaderTest {

    // Hand-computed per CM-MAPPING §4.
    static final byte[] GOLDEN = cat(
            b(0xFF),                   // 0  MID = 0xFF (data)
            b(0x00),                   // 1  flags
            b(0x00, 0x40),             // 2  bufs = 64
            b(0x00, 0x00, 0x04, 0x10), // 4  len = 1040 (16 + 1024 payload)
            b(0x00, 0x00, 0x00, 0x01), // 8  mseq = 1
            b(0xFF, 0xFF, 0xFF, 0xFF)); // 12 mseqack = 4294967295 (wrapped)

    static final FlowControlHeader HEADER = new FlowControlHeader(0, 64, 1040, 1, 0xFFFF_FFFF);

    // Project rule: flags 0x80 on a header-only Send = a zero-length application message.
    static final byte[] GOLDEN_EMPTY = cat(
            b(0xFF),                   // 0  MID = 0xFF (data)
            b(0x80),                   // 1  flags = empty message
            b(0x00, 0x03),             // 2  bufs = 3
            b(0x00, 0x00, 0x00, 0x10), // 4  len = 16 (header only)
            b(0x00, 0x00, 0x00, 0x07), // 8  mseq = 7
            b(0x00, 0x00, 0x00, 0x05)); // 12 mseqack = 5

    @Test
    void emptyMessageFlagGoldenVector() {
        FlowControlHeader empty = new FlowControlHeader(FlowControlHeader.FLAG_EMPTY_MESSAGE, 3, 16, 7, 5);
        assertThat(empty.toBytes()).isEqualTo(GOLDEN_EMPTY);
        assertThat(FlowControlHeader.fromBytes(GOLDEN_EMPTY)).isEqualTo(empty);
        assertThat(empty.emptyMessage()).isTrue();
        assertThat(empty.creditUpdate()).isFalse();
        ByteBuffer buf = ByteBuffer.allocate(32);
        FlowControlHeader.write(buf, 4, FlowControlHeader.FLAG_EMPTY_MESSAGE, 3, 16, 7, 5);
        byte[] out = new byte[16];
        buf.get(4, out);
        assertThat(out).isEqualTo(GOLDEN_EMPTY);
        assertThat(FlowControlHeader.isEmptyMessage(buf, 4)).isTrue();
        FlowControlHeader.validate(buf, 4, 16);
        // without the flag: a pure credit update
        FlowControlHeader.write(buf, 4, 0, 3, 16, 7, 5);
        assertThat(FlowControlHeader.isEmptyMessage(buf, 4)).isFalse();
        assertThat(new FlowControlHeader(0, 3, 16, 7, 5).creditUpdate()).isTrue();
        // the flag means nothing on a Send with payload
        FlowControlHeader.write(buf, 4, FlowControlHeader.FLAG_EMPTY_MESSAGE, 3, 17, 7, 5);
        assertThat(FlowControlHeader.isEmptyMessage(buf, 4)).isFalse();
        assertThat(new FlowControlHeader(0x80, 3, 17, 7, 5).emptyMessage()).isFalse();
        assertThat(new FlowControlHeader(0x80, 3, 17, 7, 5).creditUpdate()).isFalse();
    }

    @Test
    void recordEncodesAndDecodesGolden() {
        assertThat(HEADER.toBytes()).isEqualTo(GOLDEN);
        assertThat(FlowControlHeader.fromBytes(GOLDEN)).isEqualTo(HEADER);
    }

    @Test
    void flyweightWritesGoldenAtIndexWithoutMovingPosition() {
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        buf.position(3);
        FlowControlHeader.write(buf, 10, 0, 64, 1040, 1, -1);
        assertThat(buf.position()).isEqualTo(3);
        byte[] out = new byte[16];
        buf.get(10, out);
        assertThat(out).isEqualTo(GOLDEN);
        assertThat(FlowControlHeader.readMid(buf, 10)).isEqualTo(0xFF);
        assertThat(FlowControlHeader.readFlags(buf, 10)).isZero();
        assertThat(FlowControlHeader.readBufs(buf, 10)).isEqualTo(64);
        assertThat(FlowControlHeader.readLength(buf, 10)).isEqualTo(1040);
        assertThat(FlowControlHeader.readMseq(buf, 10)).isEqualTo(1);
        assertThat(FlowControlHeader.readMseqAck(buf, 10)).isEqualTo(0xFFFF_FFFF);
    }

    @Test
    void validateAcceptsAMessageOfTheAnnouncedLength() {
        ByteBuffer buf = ByteBuffer.allocate(1040);
        buf.put(0, GOLDEN);
        FlowControlHeader.validate(buf, 0, 1040);
    }

    private static void assertValidateRejects(byte[] header, int messageLength, String field) {
        ByteBuffer buf = ByteBuffer.allocate(Math.max(header.length, 16));
        buf.put(0, header);
        assertThatThrownBy(() -> FlowControlHeader.validate(buf, 0, messageLength))
                .isInstanceOfSatisfying(CmFormatException.class, e -> {
                    assertThat(e.message()).isEqualTo("FlowControlHeader");
                    assertThat(e.field()).isEqualTo(field);
                });
    }

    @Test
    void validateRejectsBadMidLenAndShortMessages() {
        byte[] badMid = GOLDEN.clone();
        badMid[0] = 0;
        assertValidateRejects(badMid, 1040, "MID");
        assertValidateRejects(GOLDEN, 1041, "len");
        assertValidateRejects(GOLDEN, 1039, "len");
        assertValidateRejects(GOLDEN, 15, "length");
        assertThatThrownBy(() -> FlowControlHeader.validate(ByteBuffer.allocate(20), 5, 16))
                .isInstanceOf(CmFormatException.class);
        assertThatThrownBy(() -> FlowControlHeader.validate(ByteBuffer.allocate(20), -1, 16))
                .isInstanceOf(CmFormatException.class);
    }

    @Test
    void decodeRejectsBadMidAndLen() {
        byte[] bad = GOLDEN.clone();
        bad[0] = 0x01;
        assertThatThrownBy(() -> FlowControlHeader.fromBytes(bad))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.offset()).isZero());
        byte[] shortLen = GOLDEN.clone();
        shortLen[6] = 0;
        shortLen[7] = 15;
        assertThatThrownBy(() -> FlowControlHeader.fromBytes(shortLen))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("len"));
        byte[] hugeLen = GOLDEN.clone();
        hugeLen[4] = (byte) 0x80;
        assertThatThrownBy(() -> FlowControlHeader.fromBytes(hugeLen))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.offset()).isEqualTo(4));
        assertThatThrownBy(() -> FlowControlHeader.fromBytes(new byte[15]))
                .isInstanceOfSatisfying(CmFormatException.class, e -> assertThat(e.field()).isEqualTo("length"));
    }

    @Test
    void flagsAreCarriedNotInterpreted() {
        byte[] flagged = GOLDEN.clone();
        flagged[1] = (byte) 0x83;
        assertThat(FlowControlHeader.fromBytes(flagged).flags()).isEqualTo(0x83);
    }

    @Test
    void constructorAndWriteCheckRanges() {
        assertThatThrownBy(() -> new FlowControlHeader(0, 0, 15, 0, 0)).hasMessageContaining("length");
        assertThatThrownBy(() -> new FlowControlHeader(256, 0, 16, 0, 0)).hasMessageContaining("flags");
        assertThatThrownBy(() -> new FlowControlHeader(0, 65536, 16, 0, 0)).hasMessageContaining("bufs");
        assertThatThrownBy(() -> FlowControlHeader.write(ByteBuffer.allocate(16), 0, 0, 0, 3, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

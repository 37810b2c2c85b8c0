package io.vibridge.vitcp.wire;

import static io.vibridge.vitcp.wire.WireTestSupport.PREFIX;
import static io.vibridge.vitcp.wire.WireTestSupport.placed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Every rule {@link SegmentView#wrap} and {@link ConnectionHeader#decode} enforce, one at a time. */
class SegmentValidationTest {

    private final SegmentView view = new SegmentView();

    private static byte[] send(int flags, int payload) {
        ByteBuffer bb = ByteBuffer.allocate(24 + payload);
        Segments.writeSend(bb, 0, false, flags, payload, 0, 0, 1, 0, 0);
        return bb.array();
    }

    private static byte[] nop() {
        ByteBuffer bb = ByteBuffer.allocate(24);
        Segments.writeNop(bb, 0, 1, 0, 0, 0, 0);
        return bb.array();
    }

    private static byte[] rdmaWrite(int payload, long dataOffset, long rdmaLength) {
        ByteBuffer bb = ByteBuffer.allocate(40 + payload);
        Segments.writeRdmaWrite(bb, 0, false, SegmentHeader.FLAG_END_OF_MESSAGE, payload, dataOffset, 0, 1, 0, 0,
                0x1000, 7, rdmaLength);
        return bb.array();
    }

    private static byte[] request(String calling, String called) {
        ConnectRequest r = new ConnectRequest(5, 4, ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false, false),
                Discriminator.ofUtf8(calling), 65536, 2, Discriminator.ofUtf8(called)));
        ByteBuffer bb = ByteBuffer.allocate(r.encodedLength());
        r.encode(bb, 0);
        return bb.array();
    }

    private void assertRejected(byte[] segment, int available, String field, int relativeOffset) {
        ThrowingCallable call = () -> view.wrap(placed(segment), PREFIX, available);
        assertThatThrownBy(call).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.offset()).isEqualTo(PREFIX + relativeOffset);
            assertThat(e.getMessage()).contains(field).contains("offset " + (PREFIX + relativeOffset));
        });
        assertThat(view.isValid()).isFalse();
    }

    private void assertRejected(byte[] segment, String field, int relativeOffset) {
        assertRejected(segment, segment.length, field, relativeOffset);
    }

    @Test
    void truncatedHeader() {
        assertRejected(send(2, 0), 23, "Segment Header", 0);
    }

    @Test
    void availableBeyondTheBufferIsACallerBug() {
        byte[] s = send(2, 0);
        assertThatThrownBy(() -> view.wrap(ByteBuffer.wrap(s), 0, 25)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> SegmentView.frameLength(ByteBuffer.wrap(s), 22, 4))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void badVersion() {
        byte[] s = send(2, 0);
        s[0] = 2;
        assertRejected(s, "Version", 0);
        s[0] = 0;
        assertRejected(s, "Version", 0);
        assertThatThrownBy(() -> view.wrap(placed(s), PREFIX, 24)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.isVersionMismatch()).isTrue());
        s[0] = 1;
        s[1] = (byte) (13 << 3);
        assertThatThrownBy(() -> view.wrap(placed(s), PREFIX, 24)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.isVersionMismatch()).isFalse());
    }

    @Test
    void reservedTypes() {
        for (int code = 12; code < 32; code++) {
            byte[] s = send(2, 0);
            s[1] = (byte) ((code << 3) | 2);
            assertRejected(s, "Type", 1);
        }
    }

    @Test
    void segmentLengthBounds() {
        byte[] s = send(2, 4);
        s[2] = 0;
        s[3] = 23;
        assertRejected(s, "Segment Length", 2);
        byte[] w = rdmaWrite(0, 0, 0);
        w[3] = 39; // below 24 + 16
        assertRejected(w, "Segment Length", 2);
        assertRejected(send(2, 4), 27, "Segment Length", 2); // longer than available
    }

    @Test
    void immediateFlagRules() {
        assertRejected(send(SegmentHeader.FLAG_IMMEDIATE, 0), "Flags", 1); // without End of Message
        byte[] n = nop();
        n[1] |= SegmentHeader.FLAG_IMMEDIATE;
        assertRejected(n, "Flags", 1); // not a Send / RDMA Write
        assertThat(view.wrap(placed(send(3, 1)), PREFIX, 25).isImmediateValid()).isTrue();
    }

    @Test
    void transmitErrorOnlyOnPayloadTypes() {
        SegmentView v = view.wrap(placed(send(SegmentHeader.FLAG_TRANSMIT_ERROR, 8)), PREFIX, 32);
        assertThat(v.isTransmitError()).isTrue();
        byte[] n = nop();
        n[1] |= SegmentHeader.FLAG_TRANSMIT_ERROR;
        assertRejected(n, "Flags", 1);
    }

    @Test
    void nopRules() {
        byte[] n = nop();
        n[1] = (byte) (4 << 3); // no End of Message
        assertRejected(n, "Flags", 1);
        n = nop();
        n[7] = 1; // Data Offset 1
        assertRejected(n, "Data Offset", 4);
        byte[] longer = new byte[28];
        System.arraycopy(nop(), 0, longer, 0, 24);
        longer[3] = 28; // payload on a NOP
        assertRejected(longer, "Segment Length", 2);
    }

    @Test
    void rdmaReadRequestRules() {
        ByteBuffer bb = ByteBuffer.allocate(44);
        Segments.writeRdmaReadRequest(bb, 0, false, 1, 0, 0, 0, 1, 4);
        byte[] r = bb.array();
        r[3] = 44; // payload on a read request
        assertRejected(r, "Segment Length", 2);
        r[3] = 40;
        r[1] = (byte) (2 << 3); // no End of Message
        assertRejected(r, "Flags", 1);
    }

    @Test
    void rdmaWriteMustStayInsideRdmaLength() {
        assertThat(view.wrap(placed(rdmaWrite(4, 4, 8)), PREFIX, 44).payloadLength()).isEqualTo(4);
        assertRejected(rdmaWrite(4, 5, 8), "RDMA Length", 36);
        assertRejected(rdmaWrite(1, 0xFFFFFFFFL, 0xFFFFFFFFL), "Data Offset", 4);
    }

    @Test
    void dataOffsetPlusPayloadFitsU32() {
        ByteBuffer bb = ByteBuffer.allocate(26);
        Segments.writeSend(bb, 0, false, 2, 2, 0xFFFFFFFFL, 0, 1, 0, 0);
        assertRejected(bb.array(), "Data Offset", 4);
    }

    @Test
    void connectionHeaderRules() {
        byte[] ok = request("ab", "xyz");
        assertThat(view.wrap(placed(ok), PREFIX, ok.length).type()).isEqualTo(SegmentType.CONNECT_REQUEST);

        byte[] s = ok.clone();
        s[24 + 3] = 65; // Calling Discriminator Length 65
        assertRejected(s, "Calling Discriminator Length", 26);

        s = ok.clone();
        s[24 + 8 + 3] = 1; // padding byte after "ab"
        assertRejected(s, "Calling Discriminator padding", 24 + 8 + 3);

        s = ok.clone();
        s[24 + 12 + 3] = 65; // Called Discriminator Length 65
        assertRejected(s, "Called Discriminator Length", 24 + 14);

        s = ok.clone();
        s[24 + 16 + 3] = 'z'; // padding after "xyz"
        assertRejected(s, "Called Discriminator padding", 24 + 16 + 3);

        s = ok.clone();
        s[24 + 20 + 3] = 4; // Security Length 4 that the segment does not hold
        assertRejected(s, "Security Information", 24 + 24);

        s = ok.clone();
        s[1] = (byte) (5 << 3); // no End of Message
        assertRejected(s, "Flags", 1);
    }

    @Test
    void connectionHeaderMustFillTheSegmentExactly() {
        byte[] ok = request("", "");
        byte[] longer = new byte[ok.length + 4];
        System.arraycopy(ok, 0, longer, 0, ok.length);
        longer[3] = (byte) longer.length;
        assertRejected(longer, "Segment Length", 2);

        byte[] s = ok.clone();
        s[24 + 3] = 8; // calling discriminator of 8 bytes that the segment does not hold
        assertRejected(s, "Calling Discriminator", 24 + 8);
    }

    /**
     * VITCP-PROFILE §5: the codec checks framing only. Security Type 1 with a Security Length other
     * than 40 (and Type 0 with information) decodes, for the security check to answer IS 11; the
     * information must still fit in the segment and be zero-padded to 4.
     */
    @Test
    void securityLengthIsNotJudgedByTheCodec_onlyItsFraming() {
        for (int[] typeAndLength : new int[][] {{1, 0}, {1, 36}, {1, 38}, {1, 44}, {0, 4}, {0, 40}}) {
            int type = typeAndLength[0];
            int length = typeAndLength[1];
            byte[] info = new byte[length];
            for (int i = 0; i < length; i++) {
                info[i] = (byte) (i + 1);
            }
            ConnectionHeader h = new ConnectionHeader(new ConnectionAttributes(1), Discriminator.ofUtf8("ab"), 32768, 0,
                    Discriminator.EMPTY, type, info);
            ConnectRequest r = new ConnectRequest(1, 0, h);
            ByteBuffer bb = ByteBuffer.allocate(r.encodedLength());
            r.encode(bb, 0);
            SegmentView v = view.wrap(placed(bb.array()), PREFIX, bb.capacity());
            assertThat(v.securityType()).isEqualTo(type);
            assertThat(v.securityLength()).isEqualTo(length);
            ConnectionHeader decoded = ((ConnectRequest) ControlSegment.decode(v)).header();
            assertThat(decoded).isEqualTo(h);
            assertThat(decoded.isHmacSha256()).isFalse();
            assertThat(decoded.isSecurityWellFormed()).isFalse();
        }
        byte[] ok = request("ab", "");
        ConnectionHeader unsigned = ((ConnectRequest) ControlSegment.decode(placed(ok), PREFIX, ok.length)).header();
        assertThat(unsigned.isSecurityWellFormed()).isTrue();
        assertThat(unsigned.isHmacSha256()).isFalse();

        // framing still holds: Security Length 44 in a segment holding 40 bytes of information
        ConnectionHeader signed = ConnectionHeader.toBeSigned(new ConnectionAttributes(1), Discriminator.EMPTY, 32768, 0,
                Discriminator.EMPTY);
        assertThat(signed.isHmacSha256()).isTrue();
        assertThat(signed.isSecurityWellFormed()).isTrue();
        ConnectRequest r = new ConnectRequest(1, 0, signed);
        ByteBuffer bb = ByteBuffer.allocate(r.encodedLength());
        r.encode(bb, 0);
        byte[] s = bb.array();
        int lengthField = s.length - 40 - 2;
        s[lengthField + 1] = 44;
        assertRejected(s, "Security Information", s.length - 40);
        // Security Length 38: the two padding bytes must be zero
        s = bb.array().clone();
        s[lengthField + 1] = 38;
        s[s.length - 1] = 7;
        assertRejected(s, "Security Information padding", s.length - 1);
    }

    @Test
    void unknownSecurityTypeIsParsedForTheEngine() {
        ConnectionHeader h = new ConnectionHeader(new ConnectionAttributes(1), Discriminator.EMPTY, 32768, 0,
                Discriminator.EMPTY, 7, new byte[] {1, 2, 3});
        ConnectRequest r = new ConnectRequest(1, 0, h);
        ByteBuffer bb = ByteBuffer.allocate(r.encodedLength());
        r.encode(bb, 0);
        SegmentView v = view.wrap(placed(bb.array()), PREFIX, bb.capacity());
        assertThat(v.securityType()).isEqualTo(7);
        assertThat(v.securityLength()).isEqualTo(3);
        assertThat(((ConnectRequest) ControlSegment.decode(v)).header()).isEqualTo(h);
    }

    @Test
    void frameLength() {
        byte[] s = send(2, 10);
        ByteBuffer bb = placed(s);
        assertThat(SegmentView.frameLength(bb, PREFIX, 3)).isEqualTo(-1);
        assertThat(SegmentView.frameLength(bb, PREFIX, 4)).isEqualTo(34);
        s[0] = 9;
        assertThatThrownBy(() -> SegmentView.frameLength(placed(s), PREFIX, 4))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.field()).isEqualTo("Version"));
        s[0] = 1;
        s[3] = 10;
        assertThatThrownBy(() -> SegmentView.frameLength(placed(s), PREFIX, 4))
                .isInstanceOfSatisfying(ProtocolException.class,
                        e -> assertThat(e.offset()).isEqualTo(PREFIX + 2));
        s[3] = 34;
        s[1] = (byte) (20 << 3);
        assertThatThrownBy(() -> SegmentView.frameLength(placed(s), PREFIX, 4))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.field()).isEqualTo("Type"));
    }

    @Test
    void controlDecoderRefusesDataSegments() {
        byte[] s = send(2, 0);
        assertThatThrownBy(() -> ControlSegment.decode(placed(s), PREFIX, 24))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.field()).isEqualTo("Type");
                    assertThat(e.offset()).isEqualTo(PREFIX + 1);
                });
    }

    @Test
    void segmentTypeProperties() {
        for (int code = 0; code < 12; code++) {
            SegmentType t = SegmentType.of(code, 0);
            assertThat(t.code()).isEqualTo(code);
            assertThat(t.ordered().isUnordered()).isFalse();
            assertThat(t.isUnordered()).isEqualTo(code >= 9);
            assertThat(t.isConnectionSetup()).isEqualTo(code >= 5 && code <= 8);
        }
        assertThat(SegmentType.RDMA_READ_REQUEST.hasRdmaHeader()).isTrue();
        assertThat(SegmentType.RDMA_READ_RESPONSE.hasRdmaHeader()).isFalse();
        assertThat(SegmentType.RDMA_READ_RESPONSE.consumesMessageNumber()).isFalse();
        assertThat(SegmentType.SEND_UNORDERED.consumesMessageNumber()).isTrue();
        assertThat(SegmentType.CONNECT_ACCEPT.hasConnectionHeader()).isTrue();
        assertThat(SegmentType.SEND.unordered()).isEqualTo(SegmentType.SEND_UNORDERED);
        assertThatThrownBy(() -> SegmentType.of(-1, 3)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> SegmentType.of(32, 3)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void attributesNeverThrowOnDecode() {
        ConnectionAttributes a = new ConnectionAttributes(0x8003);
        assertThat(a.reservedBitsSet()).isTrue();
        assertThat(a.hasValidReliability()).isFalse();
        assertThat(a.conformsToProfile()).isFalse();
        assertThatThrownBy(a::reliability).isInstanceOf(IllegalStateException.class);
        assertThat(ConnectionAttributes.of(ReliabilityLevel.UNRELIABLE_DELIVERY, false, true, false, false, false)
                .conformsToProfile()).isFalse(); // §9.9: RDMA Read at Unreliable Delivery
        assertThat(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, true, true, true)
                .conformsToProfile()).isTrue();
        assertThat(a.toString()).contains("reliability=3").contains("reserved");
    }

    @Test
    void discriminatorValue() {
        assertThatThrownBy(() -> Discriminator.of(new byte[65])).isInstanceOf(IllegalArgumentException.class);
        byte[] raw = {1, 2};
        Discriminator d = Discriminator.of(raw);
        raw[0] = 9;
        assertThat(d.bytes()).containsExactly(1, 2);
        d.bytes()[0] = 9;
        assertThat(d.bytes()).containsExactly(1, 2);
        assertThat(d).isEqualTo(Discriminator.of(new byte[] {1, 2})).hasSameHashCodeAs(Discriminator.of(new byte[] {1, 2}));
        assertThat(d.toString()).isEqualTo("hex:0102");
        assertThat(Discriminator.ofUtf8("svc").toString()).isEqualTo("\"svc\"");
        assertThat(Discriminator.of(new byte[0])).isSameAs(Discriminator.EMPTY);
    }

    @Test
    void isCodes() {
        assertThat(IsCode.viErrorTypeFor(1)).isEqualTo(ViErrorType.DESCRIPTOR);
        assertThat(IsCode.viErrorTypeFor(2)).isEqualTo(ViErrorType.DESCRIPTOR);
        assertThat(IsCode.viErrorTypeFor(7)).isEqualTo(ViErrorType.DESCRIPTOR);
        for (int c = 3; c <= 6; c++) {
            assertThat(IsCode.viErrorTypeFor(c)).isEqualTo(ViErrorType.RDMA_PROTECTION);
        }
        assertThat(IsCode.viErrorTypeFor(9)).isEqualTo(ViErrorType.NONE);
        for (int c = 0; c <= 16; c++) {
            assertThat(IsCode.isDefined(c)).isTrue();
            assertThat(IsCode.describe(c)).isNotBlank().doesNotContain("unassigned");
        }
        assertThat(IsCode.describe(0x85)).contains("gateway");
        assertThat(IsCode.describe(40)).contains("unassigned");
        assertThat(IsCode.isGatewayDetail(0x80)).isTrue();
        assertThat(IsCode.isGatewayDetail(0x7F)).isFalse();
        assertThatThrownBy(() -> ViErrorType.of(3, 22)).isInstanceOf(ProtocolException.class);
        assertThat(ViErrorType.of(1, 22)).isEqualTo(ViErrorType.RDMA_PROTECTION);
    }

    @Test
    void encodersRefuseValuesTheWireCannotCarry() {
        ByteBuffer bb = ByteBuffer.allocate(64);
        assertThatThrownBy(() -> SegmentHeader.write(bb, 0, SegmentType.SEND, 8, 24, 0, 0, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SegmentHeader.write(bb, 0, SegmentType.SEND, 0, 65536, 0, 0, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SegmentHeader.write(bb, 0, SegmentType.SEND, 0, 24, 1L << 32, 0, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Segments.writeSend(bb, 0, false, 2, 65512, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionHeader(new ConnectionAttributes(0), Discriminator.EMPTY, 0, 0,
                Discriminator.EMPTY, 0x10000, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionHeader(new ConnectionAttributes(0), Discriminator.EMPTY, 0, 0,
                Discriminator.EMPTY, 1, new byte[65535])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionAttributes(0x10000)).isInstanceOf(IllegalArgumentException.class);
        // rxDescriptorsPosted is a lifetime counter taken mod 2^16 (VITCP-PROFILE §6)
        SegmentHeader.write(bb, 0, SegmentType.SEND, 2, 24, 0, 0, 0, 0, 0x12345, 0, 0);
        assertThat(SegmentHeader.rxDescriptorsPosted(bb, 0)).isEqualTo(0x2345);
    }
}

package io.vibridge.vitcp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Encode/decode round trips of every codec (jqwik). */
class CodecPropertiesTest {

    private static ByteBuffer buffer(int capacity, boolean little) {
        return ByteBuffer.allocate(capacity).order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    }

    @Property(tries = 300)
    void segmentHeaderRoundTrip(@ForAll("types") SegmentType type, @ForAll @IntRange(max = 7) int flags,
            @ForAll @IntRange(min = 24, max = 65535) int length, @ForAll @LongRange(max = 0xFFFFFFFFL) long dataOffset,
            @ForAll int immediate, @ForAll int msg, @ForAll int ack, @ForAll @IntRange(max = 65535) int rx,
            @ForAll @IntRange(max = 255) int viErr, @ForAll @IntRange(max = 255) int isErr,
            @ForAll @IntRange(max = 9) int at, @ForAll boolean little) {
        ByteBuffer bb = buffer(at + 24, little);
        SegmentHeader.write(bb, at, type, flags, length, dataOffset, immediate, msg, ack, rx, viErr, isErr);
        assertThat(SegmentHeader.version(bb, at)).isEqualTo(1);
        assertThat(SegmentHeader.typeCode(bb, at)).isEqualTo(type.code());
        assertThat(SegmentHeader.flags(bb, at)).isEqualTo(flags);
        assertThat(SegmentHeader.segmentLength(bb, at)).isEqualTo(length);
        assertThat(SegmentHeader.dataOffset(bb, at)).isEqualTo(dataOffset);
        assertThat(SegmentHeader.immediateData(bb, at)).isEqualTo(immediate);
        assertThat(SegmentHeader.messageNumber(bb, at)).isEqualTo(msg);
        assertThat(SegmentHeader.messageAck(bb, at)).isEqualTo(ack);
        assertThat(SegmentHeader.rxDescriptorsPosted(bb, at)).isEqualTo(rx);
        assertThat(SegmentHeader.viErrorType(bb, at)).isEqualTo(viErr);
        assertThat(SegmentHeader.isErrorCode(bb, at)).isEqualTo(isErr);
        assertThat(bb.order()).isEqualTo(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        assertThat(bb.position()).isZero();
    }

    @Property(tries = 200)
    void rdmaHeaderRoundTrip(@ForAll long address, @ForAll int handle,
            @ForAll @LongRange(max = 0xFFFFFFFFL) long length, @ForAll boolean little) {
        ByteBuffer bb = buffer(20, little);
        RdmaHeader.write(bb, 3, address, handle, length);
        assertThat(RdmaHeader.address(bb, 3)).isEqualTo(address);
        assertThat(RdmaHeader.handle(bb, 3)).isEqualTo(handle);
        assertThat(RdmaHeader.length(bb, 3)).isEqualTo(length);
    }

    @Property(tries = 300)
    void dataSegmentsValidateAndReadBack(@ForAll("dataTypes") SegmentType type, @ForAll boolean eom,
            @ForAll boolean imm, @ForAll @IntRange(max = 300) int payload, @ForAll @IntRange(max = 1 << 20) int dataOffset,
            @ForAll int immediate, @ForAll int msg, @ForAll int ack, @ForAll @IntRange(max = 65535) int rx,
            @ForAll long address, @ForAll int handle, @ForAll @IntRange(max = 1 << 20) int slack) {
        boolean single = type.isRdmaReadRequest();
        int flags = (eom || single ? SegmentHeader.FLAG_END_OF_MESSAGE : 0)
                | (imm && eom && (type.isSend() || type.isRdmaWrite()) ? SegmentHeader.FLAG_IMMEDIATE : 0);
        int pl = single ? 0 : payload;
        long dOff = single ? 0 : dataOffset;
        long rdmaLength = dOff + pl + slack;
        ByteBuffer bb = buffer(5 + 40 + pl, true);
        int h = Segments.writeData(bb, 5, type, flags, pl, dOff, immediate, msg, ack, rx, 0, 0, address, handle,
                rdmaLength);
        SegmentView v = new SegmentView().wrap(bb, 5, h + pl);
        assertThat(v.type()).isEqualTo(type);
        assertThat(v.flags()).isEqualTo(flags);
        assertThat(v.payloadOffset()).isEqualTo(5 + h);
        assertThat(v.payloadLength()).isEqualTo(pl);
        assertThat(v.dataOffset()).isEqualTo(dOff);
        assertThat(v.messageNumber()).isEqualTo(msg);
        assertThat(v.messageAck()).isEqualTo(ack);
        assertThat(v.rxDescriptorsPosted()).isEqualTo(rx);
        assertThat(v.immediateData()).isEqualTo(immediate);
        if (type.hasRdmaHeader()) {
            assertThat(v.rdmaAddress()).isEqualTo(address);
            assertThat(v.rdmaHandle()).isEqualTo(handle);
            assertThat(v.rdmaLength()).isEqualTo(rdmaLength);
        }
        assertThat(SegmentView.frameLength(bb, 5, 4)).isEqualTo(h + pl);
    }

    @Property(tries = 300)
    void connectionHeaderRoundTrip(@ForAll("headers") ConnectionHeader h, @ForAll @IntRange(max = 9) int at,
            @ForAll boolean little) {
        ByteBuffer bb = buffer(at + h.encodedLength() + 3, little);
        for (int i = 0; i < bb.capacity(); i++) {
            bb.put(i, (byte) 0x77);
        }
        int n = h.encode(bb, at);
        assertThat(n).isEqualTo(h.encodedLength()).isEqualTo(ConnectionHeader.validate(bb, at, at + n));
        assertThat(n % 4).isZero();
        assertThat(ConnectionHeader.decode(bb, at, at + n)).isEqualTo(h);
        int sec = ConnectionHeader.securityTypeOffset(bb, at);
        assertThat(Bytes.u16(bb, sec)).isEqualTo(h.securityType());
        assertThat(Bytes.u16(bb, sec + 2)).isEqualTo(h.securityLength());
    }

    @Property(tries = 300)
    void controlSegmentRoundTrip(@ForAll("controls") ControlSegment c, @ForAll boolean little) {
        ByteBuffer bb = buffer(c.encodedLength() + 6, little);
        int n = c.encode(bb, 6);
        assertThat(n).isEqualTo(c.encodedLength());
        assertThat(ControlSegment.decode(bb, 6, n)).isEqualTo(c);
        SegmentView v = new SegmentView().wrap(bb, 6, n);
        assertThat(v.type()).isEqualTo(c.type());
        assertThat(v.isEndOfMessage()).isTrue();
    }

    @Property(tries = 200)
    void attributesRoundTrip(@ForAll("levels") ReliabilityLevel level, @ForAll boolean w, @ForAll boolean r,
            @ForAll boolean fc, @ForAll boolean p2p, @ForAll boolean un) {
        ConnectionAttributes a = ConnectionAttributes.of(level, w, r, fc, p2p, un);
        ConnectionAttributes back = new ConnectionAttributes(a.bits());
        assertThat(back).isEqualTo(a);
        assertThat(back.reliability()).isEqualTo(level);
        assertThat(back.rdmaWrite()).isEqualTo(w);
        assertThat(back.rdmaRead()).isEqualTo(r);
        assertThat(back.flowControl()).isEqualTo(fc);
        assertThat(back.peerToPeer()).isEqualTo(p2p);
        assertThat(back.unordered()).isEqualTo(un);
        assertThat(back.reservedBitsSet()).isFalse();
    }

    @Property(tries = 200)
    void anyAttributeBitsDecode(@ForAll @IntRange(max = 0xFFFF) int bits) {
        ConnectionAttributes a = new ConnectionAttributes(bits);
        assertThat(a.reliabilityCode()).isEqualTo(bits & 3);
        assertThat(a.reservedBitsSet()).isEqualTo((bits & 0xFF80) != 0);
        int rebuilt = a.reliabilityCode() | (a.rdmaWrite() ? 4 : 0) | (a.rdmaRead() ? 8 : 0)
                | (a.flowControl() ? 16 : 0) | (a.peerToPeer() ? 32 : 0) | (a.unordered() ? 64 : 0);
        assertThat(rebuilt | (bits & 0xFF80)).isEqualTo(bits);
    }

    @Provide
    Arbitrary<SegmentType> types() {
        return Arbitraries.of(SegmentType.class);
    }

    @Provide
    Arbitrary<SegmentType> dataTypes() {
        return Arbitraries.of(SegmentType.SEND, SegmentType.RDMA_WRITE, SegmentType.RDMA_READ_REQUEST,
                SegmentType.RDMA_READ_RESPONSE, SegmentType.SEND_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED,
                SegmentType.RDMA_READ_REQUEST_UNORDERED);
    }

    @Provide
    Arbitrary<ReliabilityLevel> levels() {
        return Arbitraries.of(ReliabilityLevel.class);
    }

    static Arbitrary<Discriminator> discriminators() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(Discriminator::of);
    }

    @Provide
    Arbitrary<ConnectionHeader> headers() {
        Arbitrary<byte[]> security = Arbitraries.oneOf(Arbitraries.just(new byte[0]),
                Arbitraries.bytes().array(byte[].class).ofSize(40),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(100));
        return Combinators.combine(Arbitraries.integers().between(0, 0xFFFF), discriminators(),
                Arbitraries.longs().between(0, 0xFFFFFFFFL), Arbitraries.integers().between(0, 0xFFFF),
                discriminators(), security, Arbitraries.integers().between(2, 0xFFFF))
                .as((attrs, calling, mtu, window, called, info, otherType) -> {
                    int type = info.length == 0 ? 0 : info.length == 40 ? 1 : otherType;
                    return new ConnectionHeader(new ConnectionAttributes(attrs), calling, mtu, window, called, type,
                            info);
                });
    }

    @Provide
    Arbitrary<ControlSegment> controls() {
        Arbitrary<ControlSegment> req = Combinators.combine(Arbitraries.integers(), Arbitraries.integers(),
                Arbitraries.integers().between(0, 0xFFFF), headers())
                .as((imn, ack, rx, h) -> (ControlSegment) new ConnectRequest(imn, ack, rx, h));
        Arbitrary<ControlSegment> acc = Combinators.combine(Arbitraries.integers(), Arbitraries.integers(),
                Arbitraries.integers().between(0, 0xFFFF), headers())
                .as((imn, ack, rx, h) -> (ControlSegment) new ConnectAccept(imn, ack, rx, h));
        Arbitrary<ControlSegment> rej = Combinators.combine(Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(0, 255)).as((t, c) -> (ControlSegment) new ConnectReject(t, c));
        return Arbitraries.oneOf(req, acc, rej, Arbitraries.just(new ConnectNoMatch()));
    }
}

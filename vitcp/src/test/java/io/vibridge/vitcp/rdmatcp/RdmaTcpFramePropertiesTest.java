package io.vibridge.vitcp.rdmatcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectNoMatch;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.Segments;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of the seed-004 frame codec over random VI/TCP segments of every type, built with the wire
 * codecs (VITCP-PROFILE §8, §9.11): {@code frame} then {@code check} is OK and gives the segment back with
 * agreeing header fields; every single-bit flip is caught; a wrong Connection ID is named; padding is
 * ignored (seed 004 §3.4); and every disagreement between the frame header and the VI/TCP header in its
 * control data, the CRC recomputed so that the disagreement reaches that check, is MISMATCH or LENGTH.
 */
class RdmaTcpFramePropertiesTest {

    /** A framed VI/TCP segment. */
    record Sample(byte[] segment, long connectionId) {

        SegmentType type() {
            return SegmentType.of(SegmentHeader.typeCode(ByteBuffer.wrap(segment), 0), 1);
        }

        byte[] frame() {
            ByteBuffer f = RdmaTcpFrame.frame(ByteBuffer.wrap(segment), 0, segment.length, connectionId);
            assertThat(f.position()).isZero();
            assertThat(f.remaining()).isEqualTo(f.capacity());
            return f.array();
        }

        @Override
        public String toString() {
            return type() + " " + HexFormat.of().formatHex(segment) + " id " + Long.toHexString(connectionId);
        }
    }

    // ------------------------------------------------------------------ generators

    /** The types whose segments carry their own header only (plus payload), built with {@link Segments}. */
    private static final List<SegmentType> DATA = List.of(SegmentType.SEND, SegmentType.RDMA_WRITE,
            SegmentType.RDMA_READ_REQUEST, SegmentType.RDMA_READ_RESPONSE, SegmentType.SEND_UNORDERED,
            SegmentType.RDMA_WRITE_UNORDERED, SegmentType.RDMA_READ_REQUEST_UNORDERED);

    @Provide
    Arbitrary<Sample> samples() {
        return Combinators.combine(Arbitraries.oneOf(dataSegments(0), nops(), controls()), Arbitraries.longs())
                .as(Sample::new);
    }

    /** Data segments whose frame has 1 to 3 bytes of padding. */
    @Provide
    Arbitrary<Sample> padded() {
        return Combinators.combine(dataSegments(1), Arbitraries.longs()).as(Sample::new)
                .filter(s -> RdmaTcpFrame.padding(segmentLengthOf(s)) != 0);
    }

    private static int segmentLengthOf(Sample s) {
        return FrameType.carrying(s.type()).headerLength() + s.segment.length;
    }

    /** Data segments with random fields; {@code minPayload} 1 keeps Read Requests out (they carry none). */
    private static Arbitrary<byte[]> dataSegments(int minPayload) {
        Arbitrary<SegmentType> types = minPayload == 0 ? Arbitraries.of(DATA)
                : Arbitraries.of(DATA.stream().filter(SegmentType::carriesPayload).toList());
        Arbitrary<Long> offsets = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(0L)),
                Tuple.of(1, Arbitraries.longs().between(1, 1 << 20)),
                Tuple.of(1, Arbitraries.longs().between(0, 0xFFFFFFFFL)));
        Arbitrary<int[]> ints = Arbitraries.integers().array(int[].class).ofSize(6);
        return Combinators.combine(types, Arbitraries.integers().between(minPayload, 300), offsets, ints,
                Arbitraries.longs(), Arbitraries.integers().between(0, 3))
                .as((type, payload, dataOffset, r, address, flagBits) -> {
                    boolean single = type.isRdmaReadRequest();
                    int pl = single ? 0 : payload;
                    long off = single ? 0 : dataOffset;
                    boolean eom = single || (flagBits & 1) != 0;
                    int flags = (eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0)
                            | (eom && (flagBits & 2) != 0 && (type.isSend() || type.isRdmaWrite())
                                    ? SegmentHeader.FLAG_IMMEDIATE : 0);
                    long rdmaLength = Math.min(0xFFFFFFFFL, off + pl + (r[5] & 0xFFFF));
                    ByteBuffer b = ByteBuffer.allocate(Segments.headerLength(type) + pl);
                    int h = Segments.writeData(b, 0, type, flags, pl, off, r[0], r[1], r[2], r[3] & 0xFFFF,
                            0, 0, address, r[4], rdmaLength);
                    byte[] data = new byte[pl];
                    new Random(r[5]).nextBytes(data);
                    b.put(h, data);
                    return b.array();
                });
    }

    private static Arbitrary<byte[]> nops() {
        return Arbitraries.integers().array(int[].class).ofSize(4).map(r -> {
            ByteBuffer b = ByteBuffer.allocate(SegmentHeader.LENGTH);
            Segments.writeNop(b, 0, r[0], r[1], r[2] & 0xFFFF, r[3] & 3, (r[3] >>> 8) & 0xFF);
            return b.array();
        });
    }

    private static Arbitrary<Discriminator> discriminators() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(Discriminator::of);
    }

    private static Arbitrary<byte[]> controls() {
        Arbitrary<ConnectionHeader> headers = Combinators.combine(Arbitraries.integers().between(0, 0x7F),
                discriminators(), Arbitraries.longs().between(0, 0xFFFFFFFFL), Arbitraries.integers().between(0, 0xFFFF),
                discriminators(), Arbitraries.oneOf(Arbitraries.just(new byte[0]),
                        Arbitraries.bytes().array(byte[].class).ofSize(40)))
                .as((attrs, calling, mtu, window, called, info) -> new ConnectionHeader(new ConnectionAttributes(attrs),
                        calling, mtu, window, called, info.length == 0 ? 0 : 1, info));
        Arbitrary<int[]> ints = Arbitraries.integers().array(int[].class).ofSize(3);
        Arbitrary<ControlSegment> req = Combinators.combine(ints, headers)
                .as((r, h) -> new ConnectRequest(r[0], r[1], r[2] & 0xFFFF, h));
        Arbitrary<ControlSegment> acc = Combinators.combine(ints, headers)
                .as((r, h) -> new ConnectAccept(r[0], r[1], r[2] & 0xFFFF, h));
        Arbitrary<ControlSegment> rej = Combinators.combine(Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(0, 255)).as(ConnectReject::new);
        return Arbitraries.oneOf(req, acc, rej, Arbitraries.just(new ConnectNoMatch())).map(c -> {
            ByteBuffer b = ByteBuffer.allocate(c.encodedLength());
            c.encode(b, 0);
            return b.array();
        });
    }

    // ------------------------------------------------------------------ helpers

    /** {@code bytes} at {@code at} of a buffer in the given order, {@code room} bytes of room after them. */
    private static ByteBuffer placed(byte[] bytes, int at, boolean little, int room) {
        ByteBuffer b = ByteBuffer.allocate(at + bytes.length + room)
                .order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        Arrays.fill(b.array(), (byte) 0x5A);
        b.put(at, bytes);
        return b;
    }

    private static FrameCheck check(byte[] frame, long connectionId) {
        // check reads the frameLength bytes the (maybe corrupted) Segment Length announces: junk after the frame
        int announced = RdmaTcpFrame.frameLength(((frame[2] & 0xFF) << 8) | (frame[3] & 0xFF));
        ByteBuffer b = placed(frame, 3, false, Math.max(0, announced - frame.length));
        return RdmaTcpFrame.check(b, 3, connectionId, false);
    }

    /** Rewrites the CRC word of a frame whose Segment Length is right for its bytes, with the reference CRC. */
    private static byte[] recrc(byte[] f) {
        ByteBuffer.wrap(f).putInt(f.length - 4, RdmaTcpFrameGoldenTest.referenceCrc(f, 0, f.length - 4));
        return f;
    }

    // ------------------------------------------------------------------ round trip

    @Property(tries = 500)
    void frameThenCheck_isOk_andGivesTheSegmentBack(@ForAll("samples") Sample s, @ForAll boolean little,
            @ForAll @IntRange(max = 9) int at) {
        byte[] seg = s.segment;
        // framed from an offset of a buffer in either byte order: the frame is the same
        ByteBuffer from = placed(seg, at, little, 2);
        ByteBuffer framed = RdmaTcpFrame.frame(from, at, seg.length, s.connectionId);
        byte[] f = s.frame();
        assertThat(framed.array()).isEqualTo(f);
        assertThat(from.position()).isZero();

        SegmentType st = s.type();
        FrameType type = FrameType.carrying(st);
        int hdr = type.headerLength();
        int segmentLength = hdr + seg.length;
        int control = st.hasConnectionHeader() || st.isConnectionSetup() ? seg.length : st.minimumSegmentLength();
        assertThat(f.length).isEqualTo(RdmaTcpFrame.frameLength(segmentLength)).isEqualTo(
                ((segmentLength + 3) / 4) * 4 + 4);
        assertThat(ByteBuffer.wrap(f).getInt(f.length - 4)).as("CRC word")
                .isEqualTo(RdmaTcpFrameGoldenTest.referenceCrc(f, 0, f.length - 4));
        assertThat(Arrays.copyOfRange(f, segmentLength, f.length - 4)).as("padding")
                .isEqualTo(new byte[RdmaTcpFrame.padding(segmentLength)]);
        assertThat(Arrays.copyOfRange(f, hdr, segmentLength)).as("unwrapped segment").isEqualTo(seg);

        ByteBuffer in = placed(f, at, !little, 0);
        assertThat(RdmaTcpFrame.check(in, at, s.connectionId, false)).isEqualTo(FrameCheck.OK);
        assertThat(RdmaTcpFrame.check(in, at, ~s.connectionId, true)).isEqualTo(FrameCheck.OK);
        ByteBuffer native_ = ByteBuffer.wrap(seg);
        long dataOffset = SegmentHeader.dataOffset(native_, 0);
        assertThat(RdmaTcpFrame.version(in, at)).isEqualTo(1);
        assertThat(RdmaTcpFrame.type(in, at)).isEqualTo(type);
        assertThat(RdmaTcpFrame.begin(in, at)).as("B").isEqualTo(dataOffset == 0);
        assertThat(RdmaTcpFrame.end(in, at)).as("E")
                .isEqualTo((SegmentHeader.flags(native_, 0) & SegmentHeader.FLAG_END_OF_MESSAGE) != 0);
        assertThat(RdmaTcpFrame.flags(in, at) & 0xF0).as("reserved bits").isZero();
        assertThat(RdmaTcpFrame.segmentLength(in, at)).isEqualTo(segmentLength);
        assertThat(RdmaTcpFrame.connectionId(in, at)).isEqualTo(s.connectionId);
        assertThat(RdmaTcpFrame.messageNumber(in, at)).isEqualTo(SegmentHeader.messageNumber(native_, 0));
        assertThat(RdmaTcpFrame.order(in, at)).isEqualTo(st.isUnordered() ? 0xFFFF : 0);
        assertThat(RdmaTcpFrame.clen(in, at) * 4).isEqualTo(control)
                .isEqualTo(RdmaTcpFrame.controlLength(native_, 0, seg.length));
        assertThat(RdmaTcpFrame.headerLength(in, at)).isEqualTo(hdr);
        assertThat(RdmaTcpFrame.crc(in, at)).isEqualTo(ByteBuffer.wrap(f).getInt(f.length - 4));
        if (type.namesBuffer()) {
            assertThat(RdmaTcpFrame.bufferId(in, at)).isEqualTo(RdmaHeader.handle(native_, SegmentHeader.LENGTH));
            assertThat(RdmaTcpFrame.bufferOffset(in, at)).isEqualTo((int) dataOffset);
            assertThat(RdmaTcpFrame.rdmaLength(in, at) & 0xFFFFFFFFL)
                    .isEqualTo(RdmaHeader.length(native_, SegmentHeader.LENGTH));
        } else {
            assertThat(RdmaTcpFrame.dataOffset(in, at) & 0xFFFFFFFFL).isEqualTo(dataOffset);
        }
    }

    // ------------------------------------------------------------------ corruption

    @Property(tries = 60)
    void everySingleBitFlip_isNotOk(@ForAll("samples") Sample s) {
        byte[] f = s.frame();
        for (int bit = 0; bit < f.length * 8; bit++) {
            byte[] g = f.clone();
            g[bit >>> 3] ^= (byte) (1 << (bit & 7));
            FrameCheck c = check(g, s.connectionId);
            assertThat(c).as("flip of bit %d of byte %d", bit & 7, bit >>> 3).isNotEqualTo(FrameCheck.OK);
            if (bit >>> 3 == 0) {
                assertThat(c).isEqualTo(FrameCheck.VERSION);
            }
        }
    }

    @Property(tries = 300)
    void wrongConnectionId_isConnectionId(@ForAll("samples") Sample s, @ForAll long other) {
        long wrong = other == s.connectionId ? ~other : other;
        assertThat(check(s.frame(), wrong)).isEqualTo(FrameCheck.CONNECTION_ID);
        assertThat(check(s.frame(), s.connectionId ^ Long.MIN_VALUE)).isEqualTo(FrameCheck.CONNECTION_ID);
    }

    @Property(tries = 300)
    void nonZeroPadding_withItsCrc_isOk(@ForAll("padded") Sample s, @ForAll byte fill) {
        byte[] f = s.frame();
        int segmentLength = segmentLengthOf(s);
        assertThat(f.length - 4 - segmentLength).isBetween(1, 3);
        for (int i = segmentLength; i < f.length - 4; i++) {
            f[i] = (byte) ((fill ^ i) | 0x80); // never zero
        }
        // the CRC covers the padding: without recomputing it the frame is refused
        assertThat(check(f, s.connectionId)).isEqualTo(FrameCheck.CRC);
        // with it, the padding is ignored (seed 004 §3.4)
        assertThat(check(recrc(f), s.connectionId)).isEqualTo(FrameCheck.OK);
        assertThat(Arrays.copyOfRange(f, FrameType.carrying(s.type()).headerLength(), segmentLength))
                .isEqualTo(s.segment);
    }

    /** One way to make the frame header and its VI/TCP segment disagree. */
    private record Mutation(String name, Consumer<ByteBuffer> apply) {
    }

    /**
     * Every disagreement applicable to the sample's frame: a field of the frame header or of the VI/TCP
     * header in the control data changed alone, the CRC recomputed.
     */
    private static List<Mutation> mismatches(Sample s, Random r) {
        FrameType type = FrameType.carrying(s.type());
        int hdr = type.headerLength();
        int vi = hdr; // the VI/TCP header in the control data
        int nz = r.nextInt(Integer.MAX_VALUE) + 1; // a non-zero XOR
        List<Mutation> m = new ArrayList<>();
        // the seed-004 type, to the other type with a header of the same length
        FrameType sameLength = switch (type) {
            case SEND -> FrameType.RDMA_READ_RESPONSE;
            case RDMA_READ_RESPONSE -> FrameType.SEND;
            case RDMA_WRITE -> FrameType.RDMA_READ_REQUEST;
            case RDMA_READ_REQUEST -> FrameType.RDMA_WRITE;
        };
        m.add(new Mutation("frame type " + sameLength, b -> b.put(1, (byte) (b.get(1) & ~3 | sameLength.code()))));
        // the VI/TCP type, to one that travels as another frame type or with another order
        for (SegmentType t : SegmentType.values()) {
            if (FrameType.carrying(t) != type || t.isUnordered() != s.type().isUnordered()) {
                m.add(new Mutation("VI/TCP type " + t, b -> b.put(vi + 1, (byte) (t.code() << 3 | b.get(vi + 1) & 7))));
            }
        }
        m.add(new Mutation("order to the other", b -> b.putShort(16, (short) (b.getShort(16) == 0 ? 0xFFFF : 0))));
        m.add(new Mutation("order to another", b -> b.putShort(16, (short) (b.getShort(16) ^ (nz | 1)))));
        m.add(new Mutation("frame message number", b -> b.putInt(12, b.getInt(12) ^ nz)));
        m.add(new Mutation("VI/TCP message number", b -> b.putInt(vi + 12, b.getInt(vi + 12) ^ nz)));
        m.add(new Mutation("B", b -> b.put(1, (byte) (b.get(1) ^ RdmaTcpFrame.FLAG_BEGIN))));
        m.add(new Mutation("E", b -> b.put(1, (byte) (b.get(1) ^ RdmaTcpFrame.FLAG_END))));
        m.add(new Mutation("VI/TCP End of Message", b -> b.put(vi + 1,
                (byte) (b.get(vi + 1) ^ SegmentHeader.FLAG_END_OF_MESSAGE))));
        m.add(new Mutation("VI/TCP data offset", b -> b.putInt(vi + 4, b.getInt(vi + 4) ^ nz)));
        if (type.namesBuffer()) {
            int rdma = vi + SegmentHeader.LENGTH;
            m.add(new Mutation("buffer id", b -> b.putInt(20, b.getInt(20) ^ nz)));
            m.add(new Mutation("VI/TCP memory handle", b -> b.putInt(rdma + 8, b.getInt(rdma + 8) ^ nz)));
            m.add(new Mutation("buffer offset", b -> b.putInt(24, b.getInt(24) ^ nz)));
            m.add(new Mutation("RDMA length", b -> b.putInt(28, b.getInt(28) ^ nz)));
            m.add(new Mutation("VI/TCP RDMA length", b -> b.putInt(rdma + 12, b.getInt(rdma + 12) ^ nz)));
        } else {
            m.add(new Mutation("frame data offset", b -> b.putInt(20, b.getInt(20) ^ nz)));
        }
        m.add(new Mutation("VI/TCP segment length", b -> b.putShort(vi + 2, (short) (b.getShort(vi + 2) ^ (nz & 0xFFFF | 1)))));
        int clen = RdmaTcpFrame.clen(ByteBuffer.wrap(s.frame()), 0);
        int otherClen = (clen + 1 + r.nextInt(255)) & 0xFF;
        m.add(new Mutation("CLEN " + otherClen, b -> b.put(19, (byte) otherClen)));
        m.add(new Mutation("CLEN - 1", b -> b.put(19, (byte) (clen - 1))));
        m.add(new Mutation("CLEN + 1", b -> b.put(19, (byte) (clen + 1))));
        return m;
    }

    @Property(tries = 300)
    void headerAndControlDataDisagree_isMismatchOrLength(@ForAll("samples") Sample s, @ForAll long seed) {
        Random r = new Random(seed);
        for (Mutation m : mismatches(s, r)) {
            byte[] f = s.frame();
            m.apply.accept(ByteBuffer.wrap(f));
            assertThat(check(recrc(f), s.connectionId)).as(m.name).isIn(FrameCheck.MISMATCH, FrameCheck.LENGTH);
        }
    }

    /**
     * The frame's Segment Length changed (the frame rebuilt to that length: payload added or cut, CRC
     * recomputed) no longer matches the VI/TCP segment in it.
     */
    @Property(tries = 300)
    void frameSegmentLengthDisagreeing_isMismatchOrLength(@ForAll("samples") Sample s,
            @ForAll @IntRange(min = -64, max = 64) int delta, @ForAll byte fill) {
        // at least 20: the frame keeps its CLEN byte before the CRC word
        int segmentLength = Math.max(20, segmentLengthOf(s) + (delta == 0 ? 1 : delta));
        byte[] f = Arrays.copyOf(s.frame(), RdmaTcpFrame.frameLength(segmentLength));
        for (int i = segmentLengthOf(s); i < segmentLength; i++) {
            f[i] = fill; // extended payload
        }
        Arrays.fill(f, segmentLength, f.length, (byte) 0);
        ByteBuffer.wrap(f).putShort(2, (short) segmentLength);
        FrameCheck c = check(recrc(f), s.connectionId);
        assertThat(c).isIn(FrameCheck.MISMATCH, FrameCheck.LENGTH);
        if (segmentLength < RdmaTcpFrame.headerLength(ByteBuffer.wrap(f), 0) + RdmaTcpFrame.clen(ByteBuffer.wrap(f), 0) * 4) {
            assertThat(c).isEqualTo(FrameCheck.LENGTH);
        }
    }

    /**
     * The seed-004 type changed to one with a header of the other length (Send or Read Response against
     * RDMA Write or Read Request): the VI/TCP header is then looked for 8 bytes off. Either the frame is
     * refused (MISMATCH or LENGTH), or the bytes found there are no VI/TCP header of version 1 and a
     * defined type, which {@code check} leaves to the VI/TCP layer (VITCP-PROFILE §9.11: Connect Reject
     * IS 9 in setup, a protocol error after it): never an OK frame with a version-1 VI/TCP header that
     * disagrees with it.
     */
    @Property(tries = 300)
    void frameTypeWithTheOtherHeaderLength_isNeverTakenForAgreeing(@ForAll("samples") Sample s,
            @ForAll @IntRange(max = 1) int pick) {
        FrameType type = FrameType.carrying(s.type());
        FrameType other = type.namesBuffer() ? (pick == 0 ? FrameType.SEND : FrameType.RDMA_READ_RESPONSE)
                : (pick == 0 ? FrameType.RDMA_WRITE : FrameType.RDMA_READ_REQUEST);
        byte[] f = s.frame();
        f[1] = (byte) (f[1] & ~3 | other.code());
        FrameCheck c = check(recrc(f), s.connectionId);
        if (c == FrameCheck.OK) {
            ByteBuffer b = ByteBuffer.wrap(f);
            int seg = other.headerLength();
            boolean ours = SegmentHeader.version(b, seg) == SegmentHeader.VERSION
                    && SegmentType.isDefined(SegmentHeader.typeCode(b, seg));
            assertThat(ours).as("an OK frame whose shifted control data is a version-1 VI/TCP header").isFalse();
        } else {
            assertThat(c).isIn(FrameCheck.MISMATCH, FrameCheck.LENGTH);
        }
    }

    /**
     * A Segment Length too short for the seed-004 header and a VI/TCP header is LENGTH, also when the
     * buffer ends where that length says the frame ends (before the CLEN byte, for the shortest).
     */
    @Property(tries = 300)
    void segmentLengthShorterThanTheHeaders_isLength_inABufferEndingWithTheFrame(@ForAll("samples") Sample s,
            @ForAll @IntRange(max = 1000) int pick) {
        int hdr = FrameType.carrying(s.type()).headerLength();
        int len = pick % (hdr + SegmentHeader.LENGTH);
        byte[] f = Arrays.copyOf(s.frame(), RdmaTcpFrame.frameLength(len));
        f[2] = (byte) (len >>> 8);
        f[3] = (byte) len;
        assertThat(RdmaTcpFrame.check(ByteBuffer.wrap(f), 0, s.connectionId, false)).isEqualTo(FrameCheck.LENGTH);
    }

    @Property(tries = 200)
    void version_isCheckedFirst(@ForAll("samples") Sample s, @ForAll byte version) {
        byte[] f = s.frame();
        f[0] = version == 1 ? 2 : version;
        assertThat(check(recrc(f), s.connectionId)).isEqualTo(FrameCheck.VERSION);
        assertThat(check(f, s.connectionId ^ 1)).isEqualTo(FrameCheck.VERSION);
    }

    @Property(tries = 200)
    void reservedBitsOfTheHeader_areIgnored(@ForAll("samples") Sample s, @ForAll @IntRange(min = 1, max = 15) int bits,
            @ForAll byte reserved) {
        byte[] f = s.frame();
        f[1] |= (byte) (bits << 4);
        f[18] = reserved;
        assertThat(check(recrc(f), s.connectionId)).isEqualTo(FrameCheck.OK);
    }
}

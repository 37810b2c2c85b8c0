package io.vibridge.cm.hello;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.testutil.Addresses;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class CodecPropertiesTest {

    @Provide
    Arbitrary<Hello> hellos() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 0xFFFF),
                Arbitraries.integers().between(0, 15),
                Arbitraries.of(FlowControl.class),
                Arbitraries.longs().between(0, 0xFFFF_FFFFL),
                Arbitraries.longs().between(0, 0xFFFF_FFFFL),
                Arbitraries.integers().between(0, 0xFFFF),
                Addresses.samePairs())
                .as((bufs, minor, fc, des, loc, port, ips) -> new Hello(bufs, minor, fc, des, loc, port, ips[0], ips[1]));
    }

    @Property
    void helloRoundTrips(@ForAll("hellos") Hello hello) {
        byte[] bytes = hello.toBytes();
        assertThat(bytes).hasSize(Hello.LENGTH);
        assertThat(Arrays.copyOfRange(bytes, 64, 92)).containsOnly(0);
        assertThat(Hello.fromBytes(bytes)).isEqualTo(hello);
    }

    /** CM-MAPPING §2.1: the short Hello round-trips given the target's address, which it does not carry. */
    @Property
    void shortHelloRoundTrips(@ForAll("hellos") Hello hello) {
        byte[] bytes = hello.toShortBytes();
        assertThat(bytes).hasSize(Hello.SHORT_LENGTH);
        assertThat(Arrays.copyOfRange(bytes, 48, 56)).containsOnly(0);
        assertThat(Hello.decodeShort(ByteBuffer.wrap(bytes), hello.destinationAddress())).isEqualTo(hello);
    }

    @Property
    void helloDecodedFromAnyBytesReEncodesItsDefinedFields(@ForAll @Size(92) byte[] raw,
            @ForAll @IntRange(min = 4, max = 6) int ipVersion, @ForAll @IntRange(min = 0, max = 1) int flowC) {
        raw[0] = 0;
        raw[4] = 0;
        raw[5] = 0;
        raw[6] = 0;
        raw[7] = (byte) (64 + (raw[7] & 0x3F));
        raw[16] = (byte) (0x20 | raw[16] & 0x0F);
        raw[17] = (byte) ((ipVersion == 5 ? 6 : ipVersion) << 4 | flowC);
        Hello decoded = Hello.fromBytes(raw);
        byte[] again = decoded.toBytes();
        // Every defined byte survives; reserved bytes and IPv4 padding become zero, len 92.
        for (int[] range : new int[][] {{2, 4}, {16, 18}, {20, 30}}) {
            assertThat(Arrays.copyOfRange(again, range[0], range[1]))
                    .isEqualTo(Arrays.copyOfRange(raw, range[0], range[1]));
        }
        int ipStart = decoded.ipVersion() == 4 ? 12 : 0;
        for (int field : new int[] {32, 48}) {
            assertThat(Arrays.copyOfRange(again, field + ipStart, field + 16))
                    .isEqualTo(Arrays.copyOfRange(raw, field + ipStart, field + 16));
        }
        assertThat(Hello.fromBytes(again)).isEqualTo(decoded);
    }

    @Property
    void helloReplyRoundTrips(@ForAll @IntRange(min = 0, max = 0xFFFF) int bufs,
            @ForAll @IntRange(min = 0, max = 15) int minor, @ForAll("u32") long actRcvSz) {
        HelloReply reply = new HelloReply(bufs, minor, actRcvSz);
        byte[] bytes = reply.toBytes();
        assertThat(bytes).hasSize(HelloReply.LENGTH);
        assertThat(Arrays.copyOfRange(bytes, 24, 196)).containsOnly(0);
        assertThat(HelloReply.fromBytes(bytes)).isEqualTo(reply);
    }

    @Provide
    Arbitrary<Long> u32() {
        return Arbitraries.longs().between(0, 0xFFFF_FFFFL);
    }

    @Property
    void flowControlHeaderRoundTripsThroughRecordAndFlyweight(
            @ForAll @IntRange(min = 0, max = 255) int flags, @ForAll @IntRange(min = 0, max = 0xFFFF) int bufs,
            @ForAll @IntRange(min = 16) int length, @ForAll int mseq, @ForAll int mseqAck,
            @ForAll @IntRange(min = 0, max = 48) int index) {
        FlowControlHeader header = new FlowControlHeader(flags, bufs, length, mseq, mseqAck);
        assertThat(FlowControlHeader.fromBytes(header.toBytes())).isEqualTo(header);

        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        FlowControlHeader.write(buf, index, flags, bufs, length, mseq, mseqAck);
        byte[] flyweightBytes = new byte[16];
        buf.get(index, flyweightBytes);
        assertThat(flyweightBytes).isEqualTo(header.toBytes());
        assertThat(FlowControlHeader.readBufs(buf, index)).isEqualTo(bufs);
        assertThat(FlowControlHeader.readFlags(buf, index)).isEqualTo(flags);
        assertThat(FlowControlHeader.readLength(buf, index)).isEqualTo(length);
        assertThat(FlowControlHeader.readMseq(buf, index)).isEqualTo(mseq);
        assertThat(FlowControlHeader.readMseqAck(buf, index)).isEqualTo(mseqAck);
        FlowControlHeader.validate(buf, index, length);
    }

    @Property
    void decodersThrowOnlyTheDocumentedException(@ForAll @Size(max = 200) byte[] raw) {
        for (Runnable decode : new Runnable[] {
                () -> Hello.fromBytes(raw), () -> HelloReply.fromBytes(raw), () -> FlowControlHeader.fromBytes(raw)}) {
            try {
                decode.run();
            } catch (CmFormatException expected) {
                assertThat(expected.field()).isNotBlank();
            }
        }
    }

    @Property
    void ipv4AndIpv6BothSurvive(@ForAll @Size(4) byte[] v4, @ForAll @Size(16) byte[] v6) {
        InetAddress a4 = Addresses.of(4, v4);
        InetAddress a6 = Addresses.of(6, v6);
        Hello h4 = Hello.of(1, FlowControl.TRANSPORT, 2, 3, 4, a4, a4);
        Hello h6 = Hello.of(1, FlowControl.TRANSPORT, 2, 3, 4, a6, a6);
        assertThat(Hello.fromBytes(h4.toBytes()).sourceAddress().getAddress()).isEqualTo(v4);
        assertThat(Hello.fromBytes(h6.toBytes()).destinationAddress().getAddress()).isEqualTo(v6);
    }
}

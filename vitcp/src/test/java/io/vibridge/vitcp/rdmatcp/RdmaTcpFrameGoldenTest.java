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
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.Segments;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * Hand-written seed-004 frames (VITCP-PROFILE §8, §9.11; seed 004 §3) of every VI/TCP segment type,
 * compared byte for byte with {@link RdmaTcpFrame#frame}. Each vector is a literal: the seed-004 header
 * worked out from the spec, the control data (the native VI/TCP segment header and its RDMA or CE
 * header), the payload, zero padding and the CRC-32 word. The CRC words were computed with an
 * independent reference and the test recomputes each with its own bit-at-a-time CRC ({@link #referenceCrc}),
 * never with {@link RdmaTcpCrc}. The VI/TCP segments fed to {@code frame} are built with the wire codecs
 * and must equal the control data and payload of the literal.
 */
class RdmaTcpFrameGoldenTest {

    /** Segments are framed from this offset of a junk-filled little-endian buffer: absolute offsets and byte order. */
    private static final int PREFIX = 5;
    private static final byte JUNK = 0x5A;

    // ------------------------------------------------------------------ the reference CRC

    /**
     * The seed-004 CRC-32 (VITCP-PROFILE §8): the Ethernet algorithm, bit at a time, reflected, with the
     * generator 0xDB710641 reflected to 0x82608EDB, initial value and final XOR 0xFFFFFFFF.
     */
    static int referenceCrc(byte[] data, int off, int len) {
        int crc = 0xFFFFFFFF;
        for (int i = off; i < off + len; i++) {
            crc ^= data[i] & 0xFF;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x82608EDB : crc >>> 1;
            }
        }
        return ~crc;
    }

    @Test
    void referenceCrc_hasTheProfilesCheckValue() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(referenceCrc(check, 0, check.length)).isEqualTo(0xE07E661E);
        assertThat(Integer.reverse(0x82608EDB)).isEqualTo(0xDB710641); // the generator of seed 004 §3.4
        assertThat(referenceCrc(new byte[0], 0, 0)).isZero();
    }

    // ------------------------------------------------------------------ helpers

    /** Hex digits, spaces allowed, one string per field. */
    static byte[] hex(String... fields) {
        return HexFormat.of().parseHex(String.join("", fields).replace(" ", ""));
    }

    /** A VI/TCP segment written by {@code encoder} at offset 0, exactly its length. */
    private static byte[] segment(int length, ToIntFunction<ByteBuffer> encoder) {
        ByteBuffer b = ByteBuffer.allocate(length);
        assertThat(encoder.applyAsInt(b)).isEqualTo(length);
        return b.array();
    }

    private static byte[] segment(ControlSegment c) {
        return segment(c.encodedLength(), b -> c.encode(b, 0));
    }

    private static byte[] dataSegment(byte[] payload, ToIntFunction<ByteBuffer> headers, int headerLength) {
        return segment(headerLength + payload.length, b -> {
            int h = headers.applyAsInt(b);
            b.put(h, payload);
            return h + payload.length;
        });
    }

    /** {@code bytes} at {@link #PREFIX} of a junk-filled little-endian buffer. */
    private static ByteBuffer placed(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocate(PREFIX + bytes.length + 3).order(ByteOrder.LITTLE_ENDIAN);
        Arrays.fill(b.array(), JUNK);
        b.put(PREFIX, bytes);
        return b;
    }

    private static int be32(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).getInt();
    }

    /**
     * Everything every vector must satisfy: the literal's CRC word is the reference CRC of the bytes before
     * it; the literal's control data and payload are the codec's segment; padding is zero; {@code frame}
     * gives the literal byte for byte; {@code check} accepts it with its Connection ID only.
     *
     * @return the literal placed at {@link #PREFIX}, for the vector's own field checks
     */
    private static ByteBuffer assertGolden(byte[] wire, byte[] segment, long connectionId, int header, int padding) {
        int segmentLength = header + segment.length;
        assertThat(wire.length).as("frame length").isEqualTo(segmentLength + padding + 4).isEqualTo(
                RdmaTcpFrame.frameLength(segmentLength));
        assertThat(wire.length % 4).isZero();
        assertThat(RdmaTcpFrame.padding(segmentLength)).isEqualTo(padding);
        assertThat(be32(wire, wire.length - 4)).as("CRC word of the literal vs the reference CRC")
                .isEqualTo(referenceCrc(wire, 0, wire.length - 4));
        assertThat(Arrays.copyOfRange(wire, header, segmentLength)).as("control data and payload")
                .isEqualTo(segment);
        assertThat(Arrays.copyOfRange(wire, segmentLength, segmentLength + padding)).as("padding")
                .isEqualTo(new byte[padding]);

        ByteBuffer framed = RdmaTcpFrame.frame(placed(segment), PREFIX, segment.length, connectionId);
        byte[] out = new byte[framed.remaining()];
        framed.get(framed.position(), out);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(HexFormat.of().formatHex(wire));

        ByteBuffer in = placed(wire);
        assertThat(RdmaTcpFrame.check(in, PREFIX, connectionId, false)).isEqualTo(FrameCheck.OK);
        assertThat(RdmaTcpFrame.check(in, PREFIX, connectionId ^ 1, false)).isEqualTo(FrameCheck.CONNECTION_ID);
        assertThat(RdmaTcpFrame.check(in, PREFIX, 0, true)).isEqualTo(FrameCheck.OK);
        assertThat(RdmaTcpFrame.version(in, PREFIX)).isEqualTo(1);
        assertThat(RdmaTcpFrame.segmentLength(in, PREFIX)).isEqualTo(segmentLength);
        assertThat(RdmaTcpFrame.connectionId(in, PREFIX)).isEqualTo(connectionId);
        assertThat(RdmaTcpFrame.headerLength(in, PREFIX)).isEqualTo(header);
        assertThat(RdmaTcpFrame.controlOffset(in, PREFIX)).isEqualTo(header);
        assertThat(RdmaTcpFrame.crc(in, PREFIX)).isEqualTo(be32(wire, wire.length - 4));
        assertThat(RdmaTcpFrame.clen(in, PREFIX) * 4)
                .isEqualTo(RdmaTcpFrame.controlLength(placed(segment), PREFIX, segment.length));
        return in;
    }

    private static void assertFields(ByteBuffer in, FrameType type, boolean begin, boolean end, int order,
            int messageNumber, int clen) {
        assertThat(RdmaTcpFrame.type(in, PREFIX)).isEqualTo(type);
        assertThat(RdmaTcpFrame.begin(in, PREFIX)).as("B").isEqualTo(begin);
        assertThat(RdmaTcpFrame.end(in, PREFIX)).as("E").isEqualTo(end);
        assertThat(RdmaTcpFrame.order(in, PREFIX)).isEqualTo(order);
        assertThat(RdmaTcpFrame.messageNumber(in, PREFIX)).isEqualTo(messageNumber);
        assertThat(RdmaTcpFrame.clen(in, PREFIX)).isEqualTo(clen);
    }

    // ------------------------------------------------------------------ Send

    @Test
    void send_withoutImmediate() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // reserved 0 | B (data offset 0) | E (End of Message) | type 0 Send
                "0034",                  // Segment Length 52 = 24 header + 24 control + 4 payload
                "0123456789ABCDEF",      // Connection ID
                "01020304",              // Message Number (the VI/TCP segment's)
                "0000",                  // Order 0: ordered
                "00",                    // reserved
                "06",                    // CLEN 6 words: the 24-byte VI/TCP segment header
                "00000000",              // Data Offset 0
                // control data: the VI/TCP segment header
                "01", "02", "001C",      //   Version 1, Send << 3 | EOM, Segment Length 28
                "00000000", "00000000",  //   Data Offset 0, Immediate Data
                "01020304", "00000000",  //   Message Number, Message ACK
                "0005", "00", "00",      //   Rx Descriptors Posted 5, VI Error Type, IS Error Code
                "41424344",              // payload "ABCD"; 52 is a multiple of 4: no padding
                "49175DA3");             // CRC-32
        byte[] seg = dataSegment("ABCD".getBytes(StandardCharsets.US_ASCII),
                b -> Segments.writeSend(b, 0, false, SegmentHeader.FLAG_END_OF_MESSAGE, 4, 0, 0, 0x01020304, 0, 5), 24);
        ByteBuffer in = assertGolden(wire, seg, 0x0123456789ABCDEFL, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 0x01020304, 6);
        assertThat(RdmaTcpFrame.dataOffset(in, PREFIX)).isZero();
    }

    @Test
    void send_withImmediate_paddingOne() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "0033",                  // Segment Length 51 = 24 + 24 + 3
                "FEDCBA9876543210",      // Connection ID (top bit set)
                "00000007",              // Message Number 7
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00000000",              // Data Offset 0
                "01", "03", "001B",      //   VI/TCP: Version 1, Send << 3 | EOM | Immediate Data Valid, length 27
                "00000000", "CAFEBABE",  //   Data Offset 0, Immediate Data 0xCAFEBABE
                "00000007", "00000006",  //   Message Number 7, Message ACK 6
                "0010", "00", "00",      //   Rx Descriptors Posted 16
                "DEADBE",                // payload, 3 bytes
                "00",                    // padding: 1 zero byte to 52
                "8C194777");             // CRC-32 (over the padding too)
        byte[] seg = dataSegment(hex("DEADBE"), b -> Segments.writeSend(b, 0, false,
                SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE, 3, 0, 0xCAFEBABE, 7, 6, 16), 24);
        ByteBuffer in = assertGolden(wire, seg, 0xFEDCBA9876543210L, 24, 1);
        assertFields(in, FrameType.SEND, true, true, 0, 7, 6);
    }

    @Test
    void send_middleSegment_neitherBNorE_paddingTwo() {
        byte[] wire = hex(
                "01",                    // Version 1
                "00",                    // no B (data offset is not 0), no E (not End of Message), type 0 Send
                "0032",                  // Segment Length 50 = 24 + 24 + 2
                "8000000000000001",      // Connection ID
                "00000008",              // Message Number 8
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00008000",              // Data Offset 32768: payload bytes in earlier segments
                "01", "00", "001A",      //   VI/TCP: Send << 3, no flags, length 26
                "00008000", "00000000",  //   Data Offset 32768, Immediate Data
                "00000008", "00000000",  //   Message Number 8, Message ACK
                "0001", "00", "00",      //   Rx Descriptors Posted 1
                "55AA",                  // payload, 2 bytes
                "0000",                  // padding: 2 zero bytes
                "CF305666");             // CRC-32
        byte[] seg = dataSegment(hex("55AA"), b -> Segments.writeSend(b, 0, false, 0, 2, 32768, 0, 8, 0, 1), 24);
        ByteBuffer in = assertGolden(wire, seg, 0x8000000000000001L, 24, 2);
        assertFields(in, FrameType.SEND, false, false, 0, 8, 6);
        assertThat(RdmaTcpFrame.dataOffset(in, PREFIX)).isEqualTo(32768);
    }

    @Test
    void send_lastSegment_EOnly_paddingThree() {
        byte[] wire = hex(
                "01",                    // Version 1
                "04",                    // E only (last segment, data offset not 0), type 0 Send
                "0031",                  // Segment Length 49 = 24 + 24 + 1
                "8000000000000001",      // Connection ID
                "00000008",              // Message Number 8
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00010000",              // Data Offset 65536
                "01", "02", "0019",      //   VI/TCP: Send << 3 | EOM, length 25
                "00010000", "00000000",  //   Data Offset 65536, Immediate Data
                "00000008", "00000000",  //   Message Number 8, Message ACK
                "0001", "00", "00",      //   Rx Descriptors Posted 1
                "7F",                    // payload, 1 byte
                "000000",                // padding: 3 zero bytes
                "CE9EBA4F");             // CRC-32
        byte[] seg = dataSegment(hex("7F"), b -> Segments.writeSend(b, 0, false, SegmentHeader.FLAG_END_OF_MESSAGE, 1,
                65536, 0, 8, 0, 1), 24);
        ByteBuffer in = assertGolden(wire, seg, 0x8000000000000001L, 24, 3);
        assertFields(in, FrameType.SEND, false, true, 0, 8, 6);
        assertThat(RdmaTcpFrame.dataOffset(in, PREFIX)).isEqualTo(65536);
    }

    // ------------------------------------------------------------------ RDMA Write

    @Test
    void rdmaWrite_firstSegment_BOnly() {
        byte[] wire = hex(
                "01",                    // Version 1
                "09",                    // B only (more segments follow) | type 1 RDMA Write
                "004C",                  // Segment Length 76 = 32 header + 40 control + 4 payload
                "00000000DEADBEEF",      // Connection ID
                "00000007",              // Message Number 7
                "0000", "00", "0A",      // Order 0, reserved, CLEN 10 words: VI/TCP and RDMA headers
                "00000042",              // RDMA Buffer ID = the memory handle
                "00000000",              // RDMA Buffer Offset = bytes of the message already sent: 0
                "00000008",              // RDMA Length = the whole message
                "01", "08", "002C",      //   VI/TCP: RDMA Write << 3, no flags, length 44
                "00000000", "00000000",  //   Data Offset 0, Immediate Data
                "00000007", "00000000",  //   Message Number 7, Message ACK
                "0003", "00", "00",      //   Rx Descriptors Posted 3
                "00007F0012345000",      //   RDMA Address (travels only in the control data)
                "00000042", "00000008",  //   Registered Memory Handle, RDMA Length
                "01020304",              // payload; 76 is a multiple of 4: no padding
                "E0A72B66");             // CRC-32
        byte[] seg = dataSegment(hex("01020304"), b -> Segments.writeRdmaWrite(b, 0, false, 0, 4, 0, 0, 7, 0, 3,
                0x00007F0012345000L, 0x42, 8), 40);
        ByteBuffer in = assertGolden(wire, seg, 0xDEADBEEFL, 32, 0);
        assertFields(in, FrameType.RDMA_WRITE, true, false, 0, 7, 10);
        assertThat(RdmaTcpFrame.bufferId(in, PREFIX)).isEqualTo(0x42);
        assertThat(RdmaTcpFrame.bufferOffset(in, PREFIX)).isZero();
        assertThat(RdmaTcpFrame.rdmaLength(in, PREFIX)).isEqualTo(8);
    }

    @Test
    void rdmaWrite_withImmediate_lastSegment_paddingThree() {
        byte[] wire = hex(
                "01",                    // Version 1
                "05",                    // E only | type 1 RDMA Write
                "004D",                  // Segment Length 77 = 32 + 40 + 5
                "00000000DEADBEEF",      // Connection ID
                "00000007",              // Message Number 7
                "0000", "00", "0A",      // Order 0, reserved, CLEN 10
                "00000042",              // RDMA Buffer ID
                "00000004",              // RDMA Buffer Offset 4 (the first segment carried 4 bytes)
                "00000009",              // RDMA Length 9
                "01", "0B", "002D",      //   VI/TCP: RDMA Write << 3 | EOM | Immediate Data Valid, length 45
                "00000004", "11223344",  //   Data Offset 4, Immediate Data
                "00000007", "00000006",  //   Message Number 7, Message ACK 6
                "0004", "00", "00",      //   Rx Descriptors Posted 4
                "00007F0012345000",      //   RDMA Address
                "00000042", "00000009",  //   Registered Memory Handle, RDMA Length
                "0506070809",            // payload, 5 bytes
                "000000",                // padding: 3 zero bytes
                "722ECF37");             // CRC-32
        byte[] seg = dataSegment(hex("0506070809"), b -> Segments.writeRdmaWrite(b, 0, false,
                SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE, 5, 4, 0x11223344, 7, 6, 4,
                0x00007F0012345000L, 0x42, 9), 40);
        ByteBuffer in = assertGolden(wire, seg, 0xDEADBEEFL, 32, 3);
        assertFields(in, FrameType.RDMA_WRITE, false, true, 0, 7, 10);
        assertThat(RdmaTcpFrame.bufferOffset(in, PREFIX)).isEqualTo(4);
        assertThat(RdmaTcpFrame.rdmaLength(in, PREFIX)).isEqualTo(9);
    }

    // ------------------------------------------------------------------ RDMA Read

    @Test
    void rdmaReadRequest() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0E",                    // B | E | type 2 RDMA Read Request
                "0048",                  // Segment Length 72 = 32 + 40, no payload
                "7FFFFFFFFFFFFFFF",      // Connection ID
                "00000009",              // Message Number 9
                "0000", "00", "0A",      // Order 0, reserved, CLEN 10
                "80000001",              // RDMA Buffer ID = the source's memory handle
                "00000000",              // RDMA Buffer Offset 0
                "00100000",              // RDMA Length 1 MiB
                "01", "12", "0028",      //   VI/TCP: RDMA Read Request << 3 | EOM, length 40
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "00000009", "00000000",  //   Message Number 9, Message ACK
                "0001", "00", "00",      //   Rx Descriptors Posted 1
                "FFFFFFFFFFFFF000",      //   RDMA Address of the source
                "80000001", "00100000",  //   Registered Memory Handle, RDMA Length
                "9E6E3C60");             // CRC-32
        byte[] seg = segment(40, b -> Segments.writeRdmaReadRequest(b, 0, false, 9, 0, 1, 0xFFFFFFFFFFFFF000L,
                0x80000001, 1 << 20));
        ByteBuffer in = assertGolden(wire, seg, 0x7FFFFFFFFFFFFFFFL, 32, 0);
        assertFields(in, FrameType.RDMA_READ_REQUEST, true, true, 0, 9, 10);
        assertThat(RdmaTcpFrame.bufferId(in, PREFIX)).isEqualTo(0x80000001);
        assertThat(RdmaTcpFrame.rdmaLength(in, PREFIX)).isEqualTo(1 << 20);
    }

    @Test
    void rdmaReadResponse_laterSegment_paddingOne() {
        byte[] wire = hex(
                "01",                    // Version 1
                "07",                    // E only (data offset is not 0) | type 3 RDMA Read Response
                "0033",                  // Segment Length 51 = 24 + 24 + 3
                "7FFFFFFFFFFFFFFF",      // Connection ID
                "00000009",              // Message Number 9 = the request's
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "000FFFFD",              // Data Offset
                "01", "1A", "001B",      //   VI/TCP: RDMA Read Response << 3 | EOM, length 27
                "000FFFFD", "00000000",  //   Data Offset, Immediate Data
                "00000009", "00000000",  //   Message Number 9, Message ACK
                "0002", "00", "00",      //   Rx Descriptors Posted 2
                "616263",                // payload "abc"
                "00",                    // padding: 1 zero byte
                "3C4D1041");             // CRC-32
        byte[] seg = dataSegment(hex("616263"), b -> Segments.writeReadResponse(b, 0, SegmentHeader.FLAG_END_OF_MESSAGE,
                3, 0x000FFFFDL, 9, 0, 2), 24);
        ByteBuffer in = assertGolden(wire, seg, 0x7FFFFFFFFFFFFFFFL, 24, 1);
        assertFields(in, FrameType.RDMA_READ_RESPONSE, false, true, 0, 9, 6);
        assertThat(RdmaTcpFrame.dataOffset(in, PREFIX)).isEqualTo(0x000FFFFD);
    }

    // ------------------------------------------------------------------ NOP and connection segments (type 0)

    @Test
    void nop_travelsAsSend() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send (NOP travels as Send, §9.11)
                "0030",                  // Segment Length 48 = 24 + 24
                "0102030405060708",      // Connection ID
                "0000000A",              // Message Number 10 (the sender's last assigned)
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00000000",              // Data Offset 0
                "01", "22", "0018",      //   VI/TCP: NOP << 3 | EOM, length 24
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "0000000A", "00000009",  //   Message Number 10, Message ACK 9
                "0102", "02", "01",      //   Rx Descriptors Posted 0x0102, VI Error Type 2, IS 1
                "DE79B18E");             // CRC-32
        byte[] seg = segment(24, b -> Segments.writeNop(b, 0, 10, 9, 0x0102, 2, 1));
        ByteBuffer in = assertGolden(wire, seg, 0x0102030405060708L, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 10, 6);
    }

    @Test
    void connectRequest_wholeSegmentIsControlData() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "004C",                  // Segment Length 76 = 24 + 52 control, no payload
                "A5A5A5A55A5A5A5A",      // Connection ID, chosen by the requester
                "80000000",              // Message Number = the Initial Message Number
                "0000", "00", "0D",      // Order 0, reserved, CLEN 13 words: the whole 52-byte segment
                "00000000",              // Data Offset 0
                "01", "2A", "0034",      //   VI/TCP: Connect Request << 3 | EOM, length 52
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "80000000", "00000000",  //   IMN, Message ACK 0
                "0000", "00", "00",      //   Rx Descriptors Posted 0
                "0061", "0003",          //   CE: Reliable Delivery | Peer-to-peer | Unordered, calling length 3
                "00008000",              //   MTU 32768
                "636C6900",              //   calling "cli" + 1 pad byte
                "0000", "0008",          //   RDMA Read Window 0, called length 8
                "7376632D6563686F",      //   called "svc-echo"
                "0000", "0000",          //   Security Type 0, Security Length 0
                "3463E103");             // CRC-32
        byte[] seg = segment(new ConnectRequest(0x80000000, 0, ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, false, false, false, true, true),
                Discriminator.ofUtf8("cli"), 32768, 0, Discriminator.ofUtf8("svc-echo"))));
        ByteBuffer in = assertGolden(wire, seg, 0xA5A5A5A55A5A5A5AL, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 0x80000000, 13);
    }

    @Test
    void connectAccept() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "0048",                  // Segment Length 72 = 24 + 48
                "A5A5A5A55A5A5A5A",      // Connection ID: the request's
                "0BADF00D",              // Message Number = the acceptor's IMN
                "0000", "00", "0C",      // Order 0, reserved, CLEN 12
                "00000000",              // Data Offset 0
                "01", "32", "0030",      //   VI/TCP: Connect Accept << 3 | EOM, length 48
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "0BADF00D", "12345677",  //   IMN, Message ACK = requester IMN - 1
                "0020", "00", "00",      //   Rx Descriptors Posted 32
                "0006", "0003",          //   CE: Reliable Reception | RDMA Write, calling length 3
                "00008000",              //   agreed MTU 32768
                "73766300",              //   calling "svc" + pad
                "0008", "0003",          //   RDMA Read Window 8, called length 3
                "636C6900",              //   called "cli" + pad
                "0000", "0000",          //   Security Type 0, Security Length 0
                "F837389F");             // CRC-32
        byte[] seg = segment(new ConnectAccept(0x0BADF00D, 0x12345677, 32, ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, true, false, false, false, false),
                Discriminator.ofUtf8("svc"), 32768, 8, Discriminator.ofUtf8("cli"))));
        ByteBuffer in = assertGolden(wire, seg, 0xA5A5A5A55A5A5A5AL, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 0x0BADF00D, 12);
    }

    @Test
    void connectReject() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "0030",                  // Segment Length 48
                "A5A5A5A55A5A5A5A",      // Connection ID: the request's
                "00000000",              // Message Number 0
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00000000",              // Data Offset 0
                "01", "3A", "0018",      //   VI/TCP: Connect Reject << 3 | EOM, length 24
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "00000000", "00000000",  //   Message Number, Message ACK
                "0000", "00", "09",      //   Rx Descriptors Posted, VI Error Type 0, IS 9
                "17B5BE43");             // CRC-32
        byte[] seg = segment(new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES));
        ByteBuffer in = assertGolden(wire, seg, 0xA5A5A5A55A5A5A5AL, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 0, 6);
    }

    @Test
    void connectNoMatch() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "0030",                  // Segment Length 48
                "A5A5A5A55A5A5A5A",      // Connection ID
                "00000000",              // Message Number 0
                "0000", "00", "06",      // Order 0, reserved, CLEN 6
                "00000000",              // Data Offset 0
                "01", "42", "0018",      //   VI/TCP: Connect No Match << 3 | EOM, length 24
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "00000000", "00000000",  //   Message Number, Message ACK
                "0000", "00", "00",      //   Rx Descriptors Posted, VI Error Type, IS Error Code
                "FCAEF42C");             // CRC-32
        byte[] seg = segment(new ConnectNoMatch());
        ByteBuffer in = assertGolden(wire, seg, 0xA5A5A5A55A5A5A5AL, 24, 0);
        assertFields(in, FrameType.SEND, true, true, 0, 0, 6);
    }

    // ------------------------------------------------------------------ the unordered types (order 0xFFFF)

    @Test
    void sendUnordered_paddingThree() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0C",                    // B | E | type 0 Send
                "0031",                  // Segment Length 49 = 24 + 24 + 1
                "0F0F0F0F0F0F0F0F",      // Connection ID
                "0000000C",              // Message Number 12
                "FFFF",                  // Order 0xFFFF: may be done immediately (seed 004 §3.4)
                "00", "06",              // reserved, CLEN 6
                "00000000",              // Data Offset 0
                "01", "4A", "0019",      //   VI/TCP: Send Unordered (9) << 3 | EOM, length 25
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "0000000C", "00000000",  //   Message Number 12, Message ACK
                "0007", "00", "00",      //   Rx Descriptors Posted 7
                "7E",                    // payload
                "000000",                // padding: 3 zero bytes
                "21F61F61");             // CRC-32
        byte[] seg = dataSegment(hex("7E"), b -> Segments.writeSend(b, 0, true, SegmentHeader.FLAG_END_OF_MESSAGE, 1, 0,
                0, 12, 0, 7), 24);
        ByteBuffer in = assertGolden(wire, seg, 0x0F0F0F0F0F0F0F0FL, 24, 3);
        assertFields(in, FrameType.SEND, true, true, 0xFFFF, 12, 6);
    }

    @Test
    void rdmaWriteUnordered_zeroLength() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0D",                    // B | E | type 1 RDMA Write
                "0048",                  // Segment Length 72 = 32 + 40 (one empty segment, §9.7)
                "0F0F0F0F0F0F0F0F",      // Connection ID
                "0000000D",              // Message Number 13
                "FFFF", "00", "0A",      // Order 0xFFFF, reserved, CLEN 10
                "00000005",              // RDMA Buffer ID 5
                "00000000",              // RDMA Buffer Offset 0
                "00000000",              // RDMA Length 0
                "01", "52", "0028",      //   VI/TCP: RDMA Write Unordered (10) << 3 | EOM, length 40
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "0000000D", "00000000",  //   Message Number 13, Message ACK
                "0007", "00", "00",      //   Rx Descriptors Posted 7
                "0000000000001000",      //   RDMA Address 0x1000
                "00000005", "00000000",  //   Registered Memory Handle 5, RDMA Length 0
                "E74C9BFA");             // CRC-32
        byte[] seg = segment(40, b -> Segments.writeRdmaWrite(b, 0, true, SegmentHeader.FLAG_END_OF_MESSAGE, 0, 0, 0,
                13, 0, 7, 0x1000, 5, 0));
        ByteBuffer in = assertGolden(wire, seg, 0x0F0F0F0F0F0F0F0FL, 32, 0);
        assertFields(in, FrameType.RDMA_WRITE, true, true, 0xFFFF, 13, 10);
        assertThat(RdmaTcpFrame.bufferId(in, PREFIX)).isEqualTo(5);
        assertThat(RdmaTcpFrame.rdmaLength(in, PREFIX)).isZero();
    }

    @Test
    void rdmaReadRequestUnordered() {
        byte[] wire = hex(
                "01",                    // Version 1
                "0E",                    // B | E | type 2 RDMA Read Request
                "0048",                  // Segment Length 72
                "0F0F0F0F0F0F0F0F",      // Connection ID
                "0000000E",              // Message Number 14
                "FFFF", "00", "0A",      // Order 0xFFFF, reserved, CLEN 10
                "00000006",              // RDMA Buffer ID 6
                "00000000",              // RDMA Buffer Offset 0
                "00002000",              // RDMA Length 8192
                "01", "5A", "0028",      //   VI/TCP: RDMA Read Request Unordered (11) << 3 | EOM, length 40
                "00000000", "00000000",  //   Data Offset, Immediate Data
                "0000000E", "00000000",  //   Message Number 14, Message ACK
                "0007", "00", "00",      //   Rx Descriptors Posted 7
                "0000000100000000",      //   RDMA Address 0x100000000
                "00000006", "00002000",  //   Registered Memory Handle 6, RDMA Length 8192
                "2690F3EF");             // CRC-32
        byte[] seg = segment(40, b -> Segments.writeRdmaReadRequest(b, 0, true, 14, 0, 7, 0x100000000L, 6, 8192));
        ByteBuffer in = assertGolden(wire, seg, 0x0F0F0F0F0F0F0F0FL, 32, 0);
        assertFields(in, FrameType.RDMA_READ_REQUEST, true, true, 0xFFFF, 14, 10);
        assertThat(RdmaTcpFrame.rdmaLength(in, PREFIX)).isEqualTo(8192);
    }
}

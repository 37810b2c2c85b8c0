package io.vibridge.vitcp.wire;

import static io.vibridge.vitcp.wire.WireTestSupport.PREFIX;
import static io.vibridge.vitcp.wire.WireTestSupport.bytes;
import static io.vibridge.vitcp.wire.WireTestSupport.concat;
import static io.vibridge.vitcp.wire.WireTestSupport.encoded;
import static io.vibridge.vitcp.wire.WireTestSupport.placed;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Hand-written byte vectors for every segment type (VITCP-PROFILE §2-5), each decoded into fields
 * and re-encoded byte for byte. The expected bytes are literals, never produced by the encoder.
 */
class GoldenVectorTest {

    private final SegmentView view = new SegmentView();

    private SegmentView decode(byte[] segment) {
        ByteBuffer bb = placed(segment);
        assertThat(SegmentView.frameLength(bb, PREFIX, 4)).isEqualTo(segment.length);
        return view.wrap(bb, PREFIX, segment.length);
    }

    private static byte[] payloadOf(SegmentView v) {
        byte[] p = new byte[v.payloadLength()];
        v.buffer().get(v.payloadOffset(), p);
        return p;
    }

    @Test
    void send() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x02,                   // Type 0 Send << 3 | End of Message
                0x00, 0x1C,             // Segment Length 28
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data (not valid)
                0x01, 0x02, 0x03, 0x04, // Message Number 0x01020304
                0x00, 0x00, 0x00, 0x00, // Message ACK 0
                0x00, 0x05,             // Rx Descriptors Posted 5
                0x00,                   // VI Error Type 0
                0x00,                   // IS Error Code 0
                'A', 'B', 'C', 'D');    // payload
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.SEND);
        assertThat(v.isEndOfMessage()).isTrue();
        assertThat(v.isImmediateValid()).isFalse();
        assertThat(v.segmentLength()).isEqualTo(28);
        assertThat(v.dataOffset()).isZero();
        assertThat(v.messageNumber()).isEqualTo(0x01020304);
        assertThat(v.messageAck()).isZero();
        assertThat(v.rxDescriptorsPosted()).isEqualTo(5);
        assertThat(v.payloadOffset()).isEqualTo(PREFIX + 24);
        assertThat(payloadOf(v)).isEqualTo("ABCD".getBytes(StandardCharsets.US_ASCII));

        byte[] out = encoded(28, bb -> {
            int h = Segments.writeSend(bb, PREFIX, false, SegmentHeader.FLAG_END_OF_MESSAGE, 4, 0, 0, 0x01020304, 0, 5);
            bb.put(PREFIX + h, "ABCD".getBytes(StandardCharsets.US_ASCII));
            return h + 4;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void sendWithImmediateLastSegment() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x03,                   // Type 0 Send << 3 | End of Message | Immediate Data Valid
                0x00, 0x1A,             // Segment Length 26
                0x00, 0x00, (byte) 0x80, 0x00, // Data Offset 32768 (second segment)
                0xCA, 0xFE, 0xBA, 0xBE, // Immediate Data 0xCAFEBABE
                0xFF, 0xFF, 0xFF, 0xFF, // Message Number 2^32-1
                0x7F, 0xFF, 0xFF, 0xFE, // Message ACK 0x7FFFFFFE
                0xFF, 0xFF,             // Rx Descriptors Posted 65535
                0x00,                   // VI Error Type 0
                0x00,                   // IS Error Code 0
                0xDE, 0xAD);            // payload
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.SEND);
        assertThat(v.isImmediateValid()).isTrue();
        assertThat(v.isEndOfMessage()).isTrue();
        assertThat(v.immediateData()).isEqualTo(0xCAFEBABE);
        assertThat(v.dataOffset()).isEqualTo(32768L);
        assertThat(v.messageNumber()).isEqualTo(-1);
        assertThat(v.messageAck()).isEqualTo(0x7FFFFFFE);
        assertThat(v.rxDescriptorsPosted()).isEqualTo(65535);
        assertThat(payloadOf(v)).isEqualTo(bytes(0xDE, 0xAD));

        byte[] out = encoded(26, bb -> {
            int h = Segments.writeSend(bb, PREFIX, false,
                    SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE, 2, 32768, 0xCAFEBABE, -1,
                    0x7FFFFFFE, 65535);
            bb.put(PREFIX + h, bytes(0xDE, 0xAD));
            return h + 2;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void rdmaWriteFirstSegment() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x08,                   // Type 1 RDMA Write << 3, no flags (more segments follow)
                0x00, 0x2C,             // Segment Length 44
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x07, // Message Number 7
                0x00, 0x00, 0x00, 0x00, // Message ACK 0
                0x00, 0x03,             // Rx Descriptors Posted 3
                0x00,                   // VI Error Type 0
                0x00,                   // IS Error Code 0
                // RDMA header
                0x00, 0x00, 0x7F, 0x00, 0x12, 0x34, 0x50, 0x00, // RDMA Address 0x00007F0012345000
                0x00, 0x00, 0x00, 0x42, // Registered Memory Handle 0x42
                0x00, 0x00, 0x00, 0x08, // RDMA Length 8
                1, 2, 3, 4);            // payload, lands at address + 0
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(v.hasRdmaHeader()).isTrue();
        assertThat(v.isEndOfMessage()).isFalse();
        assertThat(v.rdmaAddress()).isEqualTo(0x00007F0012345000L);
        assertThat(v.rdmaHandle()).isEqualTo(0x42);
        assertThat(v.rdmaLength()).isEqualTo(8);
        assertThat(v.payloadOffset()).isEqualTo(PREFIX + 40);
        assertThat(payloadOf(v)).isEqualTo(bytes(1, 2, 3, 4));

        byte[] out = encoded(44, bb -> {
            int h = Segments.writeRdmaWrite(bb, PREFIX, false, 0, 4, 0, 0, 7, 0, 3, 0x00007F0012345000L, 0x42, 8);
            bb.put(PREFIX + h, bytes(1, 2, 3, 4));
            return h + 4;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void rdmaWriteWithImmediateLastSegment() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x0B,                   // Type 1 RDMA Write << 3 | End of Message | Immediate Data Valid
                0x00, 0x2C,             // Segment Length 44
                0x00, 0x00, 0x00, 0x04, // Data Offset 4
                0x11, 0x22, 0x33, 0x44, // Immediate Data
                0x00, 0x00, 0x00, 0x07, // Message Number 7
                0x00, 0x00, 0x00, 0x06, // Message ACK 6
                0x00, 0x04,             // Rx Descriptors Posted 4
                0x00,                   // VI Error Type 0
                0x00,                   // IS Error Code 0
                0x00, 0x00, 0x7F, 0x00, 0x12, 0x34, 0x50, 0x00, // RDMA Address (same in every segment)
                0x00, 0x00, 0x00, 0x42, // Registered Memory Handle
                0x00, 0x00, 0x00, 0x08, // RDMA Length 8 = Data Offset 4 + 4 payload bytes
                5, 6, 7, 8);            // payload, lands at address + 4
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(v.isImmediateValid()).isTrue();
        assertThat(v.immediateData()).isEqualTo(0x11223344);
        assertThat(v.dataOffset()).isEqualTo(4);
        assertThat(v.messageAck()).isEqualTo(6);
        assertThat(payloadOf(v)).isEqualTo(bytes(5, 6, 7, 8));

        byte[] out = encoded(44, bb -> {
            int h = Segments.writeRdmaWrite(bb, PREFIX, false,
                    SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE, 4, 4, 0x11223344, 7, 6, 4,
                    0x00007F0012345000L, 0x42, 8);
            bb.put(PREFIX + h, bytes(5, 6, 7, 8));
            return h + 4;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void rdmaReadRequest() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x12,                   // Type 2 RDMA Read Request << 3 | End of Message
                0x00, 0x28,             // Segment Length 40 (no payload)
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x09, // Message Number 9
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x01,             // Rx Descriptors Posted 1
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0x00, // RDMA Address 0xFFFFFFFFFFFFF000 (source)
                0x80, 0x00, 0x00, 0x01, // Registered Memory Handle 0x80000001
                0x00, 0x10, 0x00, 0x00); // RDMA Length 1 MiB
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST);
        assertThat(v.rdmaAddress()).isEqualTo(0xFFFFFFFFFFFFF000L);
        assertThat(v.rdmaHandle()).isEqualTo(0x80000001);
        assertThat(v.rdmaLength()).isEqualTo(1 << 20);
        assertThat(v.payloadLength()).isZero();
        assertThat(v.messageNumber()).isEqualTo(9);

        byte[] out = encoded(40, bb -> Segments.writeRdmaReadRequest(bb, PREFIX, false, 9, 0, 1,
                0xFFFFFFFFFFFFF000L, 0x80000001, 1 << 20));
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void rdmaReadResponse() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x1A,                   // Type 3 RDMA Read Response << 3 | End of Message
                0x00, 0x1B,             // Segment Length 27
                0x00, 0x0F, 0xFF, 0xFD, // Data Offset 0x000FFFFD (lands there in the requester's scatter list)
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x09, // Message Number 9 = the request's
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x02,             // Rx Descriptors Posted 2
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x61, 0x62, 0x63);      // payload (no RDMA header)
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_READ_RESPONSE);
        assertThat(v.hasRdmaHeader()).isFalse();
        assertThat(v.dataOffset()).isEqualTo(0x000FFFFDL);
        assertThat(v.messageNumber()).isEqualTo(9);
        assertThat(payloadOf(v)).isEqualTo(bytes(0x61, 0x62, 0x63));

        byte[] out = encoded(27, bb -> {
            int h = Segments.writeReadResponse(bb, PREFIX, SegmentHeader.FLAG_END_OF_MESSAGE, 3, 0x000FFFFDL, 9, 0, 2);
            bb.put(PREFIX + h, bytes(0x61, 0x62, 0x63));
            return h + 3;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void nopCarryingAnErrorReport() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x22,                   // Type 4 NOP << 3 | End of Message
                0x00, 0x18,             // Segment Length 24
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x0A, // Message Number 10 (last assigned)
                0x00, 0x00, 0x00, 0x09, // Message ACK 9 (the failing message)
                0x01, 0x02,             // Rx Descriptors Posted 0x0102
                0x02,                   // VI Error Type 2 (VI Descriptor Error)
                0x01);                  // IS Error Code 1 (receive queue empty)
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.NOP);
        assertThat(v.messageNumber()).isEqualTo(10);
        assertThat(v.messageAck()).isEqualTo(9);
        assertThat(v.rxDescriptorsPosted()).isEqualTo(0x0102);
        assertThat(v.viErrorType()).isEqualTo(2);
        assertThat(v.isErrorCode()).isEqualTo(IsCode.RECEIVE_QUEUE_EMPTY);
        assertThat(v.payloadLength()).isZero();

        byte[] out = encoded(24, bb -> Segments.writeNop(bb, PREFIX, 10, 9, 0x0102, 2, 1));
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void connectRequestWithoutDiscriminators() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x2A,                   // Type 5 Connect Request << 3 | End of Message
                0x00, 0x28,             // Segment Length 40
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x12, 0x34, 0x56, 0x78, // Message Number = Initial Message Number 0x12345678
                0x00, 0x00, 0x00, 0x00, // Message ACK 0 (§9.3)
                0x00, 0x10,             // Rx Descriptors Posted 16 (initial credits)
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                // CE header
                0x00, 0x1E,             // Attributes: Reliable Reception(2) | RDMA Write | RDMA Read | Flow Control
                0x00, 0x00,             // Calling Discriminator Length 0
                0x00, 0x01, 0x00, 0x00, // MTU 65536
                0x00, 0x04,             // RDMA Read Window 4
                0x00, 0x00,             // Called Discriminator Length 0
                0x00, 0x00,             // Security Type 0
                0x00, 0x00);            // Security Length 0
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.CONNECT_REQUEST);
        assertThat(v.securityType()).isZero();
        ConnectionAttributes attrs = ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, true, true, true,
                false, false);
        ConnectRequest expected = new ConnectRequest(0x12345678, 16,
                ConnectionHeader.unsigned(attrs, Discriminator.EMPTY, 65536, 4, Discriminator.EMPTY));
        ControlSegment decoded = ControlSegment.decode(placed(wire), PREFIX, wire.length);
        assertThat(decoded).isEqualTo(expected);
        ConnectRequest r = (ConnectRequest) decoded;
        assertThat(r.header().attributes().reliability()).isEqualTo(ReliabilityLevel.RELIABLE_RECEPTION);
        assertThat(r.header().attributes().rdmaWrite()).isTrue();
        assertThat(r.header().attributes().rdmaRead()).isTrue();
        assertThat(r.header().attributes().flowControl()).isTrue();
        assertThat(r.header().attributes().peerToPeer()).isFalse();
        assertThat(r.header().mtu()).isEqualTo(65536);

        assertThat(encoded(40, bb -> expected.encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void connectRequestWithDiscriminators() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x2A,                   // Type 5 Connect Request << 3 | End of Message
                0x00, 0x34,             // Segment Length 52
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x80, 0x00, 0x00, 0x00, // Initial Message Number 0x80000000
                0x00, 0x00, 0x00, 0x00, // Message ACK 0
                0x00, 0x00,             // Rx Descriptors Posted 0
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x00, 0x61,             // Attributes: Reliable Delivery(1) | Peer-to-peer | Unordered
                0x00, 0x03,             // Calling Discriminator Length 3
                0x00, 0x00, 0x80, 0x00, // MTU 32768
                'c', 'l', 'i', 0x00,    // Calling Discriminator "cli" + 1 zero pad byte
                0x00, 0x00,             // RDMA Read Window 0
                0x00, 0x08,             // Called Discriminator Length 8
                's', 'v', 'c', '-', 'e', 'c', 'h', 'o', // Called Discriminator "svc-echo" (no padding)
                0x00, 0x00,             // Security Type 0
                0x00, 0x00);            // Security Length 0
        ConnectRequest expected = new ConnectRequest(0x80000000, 0,
                ConnectionHeader.unsigned(
                        ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, false, false, false, true, true),
                        Discriminator.ofUtf8("cli"), 32768, 0, Discriminator.ofUtf8("svc-echo")));
        assertThat(ControlSegment.decode(placed(wire), PREFIX, wire.length)).isEqualTo(expected);
        assertThat(decode(wire).connectionHeaderOffset()).isEqualTo(PREFIX + 24);
        assertThat(expected.encodedLength()).isEqualTo(52);
        assertThat(encoded(52, bb -> expected.encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void connectRequestWithSecurityType1() {
        byte[] hmac = new byte[32];
        for (int i = 0; i < 32; i++) {
            hmac[i] = (byte) (0xA0 + i);
        }
        byte[] wire = concat(bytes(
                0x01,                   // Version 1
                0x2A,                   // Type 5 Connect Request << 3 | End of Message
                0x00, 0x54,             // Segment Length 84
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x01, // Initial Message Number 1
                0x00, 0x00, 0x00, 0x00, // Message ACK 0
                0x00, 0x08,             // Rx Descriptors Posted 8
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x00, 0x02,             // Attributes: Reliable Reception
                0x00, 0x01,             // Calling Discriminator Length 1
                0x00, 0x00, 0x80, 0x00, // MTU 32768
                'a', 0x00, 0x00, 0x00,  // Calling Discriminator "a" + 3 zero pad bytes
                0x00, 0x02,             // RDMA Read Window 2
                0x00, 0x00,             // Called Discriminator Length 0
                0x00, 0x01,             // Security Type 1 (HMAC-SHA256)
                0x00, 0x28,             // Security Length 40
                0x00, 0x00, 0x01, 0x8C, 0x00, 0x00, 0x00, 0x00), // timestamp (ms since the epoch)
                hmac);                  // 32 HMAC bytes (arbitrary here: the codec does not verify)
        byte[] info = concat(bytes(0x00, 0x00, 0x01, 0x8C, 0x00, 0x00, 0x00, 0x00), hmac);
        ConnectRequest expected = new ConnectRequest(1, 8, new ConnectionHeader(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, false, false, false, false, false),
                Discriminator.ofUtf8("a"), 32768, 2, Discriminator.EMPTY, ConnectionHeader.SECURITY_HMAC_SHA256, info));
        SegmentView v = decode(wire);
        assertThat(v.securityType()).isEqualTo(1);
        assertThat(v.securityLength()).isEqualTo(40);
        assertThat(v.securityInfoOffset()).isEqualTo(PREFIX + 44);
        assertThat(ControlSegment.decode(placed(wire), PREFIX, wire.length)).isEqualTo(expected);
        assertThat(encoded(84, bb -> expected.encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void connectAccept() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x32,                   // Type 6 Connect Accept << 3 | End of Message
                0x00, 0x30,             // Segment Length 48
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x0B, 0xAD, 0xF0, 0x0D, // Initial Message Number of the acceptor
                0x12, 0x34, 0x56, 0x77, // Message ACK = requester IMN 0x12345678 - 1 (Reliable Reception, §9.3)
                0x00, 0x20,             // Rx Descriptors Posted 32
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x00, 0x06,             // Attributes: Reliable Reception | RDMA Write
                0x00, 0x03,             // Calling Discriminator Length 3 (the acceptor's)
                0x00, 0x00, 0x80, 0x00, // agreed MTU 32768
                's', 'v', 'c', 0x00,    // Calling Discriminator "svc" + pad
                0x00, 0x08,             // RDMA Read Window 8
                0x00, 0x03,             // Called Discriminator Length 3 (the requester's)
                'c', 'l', 'i', 0x00,    // Called Discriminator "cli" + pad
                0x00, 0x00,             // Security Type 0
                0x00, 0x00);            // Security Length 0
        ConnectAccept expected = new ConnectAccept(0x0BADF00D,
                ConnectAccept.messageAckFor(ReliabilityLevel.RELIABLE_RECEPTION, 0x12345678), 32,
                ConnectionHeader.unsigned(
                        ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, true, false, false, false, false),
                        Discriminator.ofUtf8("svc"), 32768, 8, Discriminator.ofUtf8("cli")));
        assertThat(ControlSegment.decode(placed(wire), PREFIX, wire.length)).isEqualTo(expected);
        assertThat(encoded(48, bb -> expected.encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void connectReject() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x3A,                   // Type 7 Connect Reject << 3 | End of Message
                0x00, 0x18,             // Segment Length 24
                0x00, 0x00, 0x00, 0x00, // Data Offset
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x00, // Message Number
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x00,             // Rx Descriptors Posted
                0x00,                   // VI Error Type 0
                0x09);                  // IS Error Code 9 (unsupported version / attributes mismatch)
        ConnectReject expected = new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES);
        assertThat(ControlSegment.decode(placed(wire), PREFIX, wire.length)).isEqualTo(expected);
        assertThat(encoded(24, bb -> expected.encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void connectNoMatch() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x42,                   // Type 8 Connect No Match << 3 | End of Message
                0x00, 0x18,             // Segment Length 24
                0x00, 0x00, 0x00, 0x00, // Data Offset
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x00, // Message Number
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x00,             // Rx Descriptors Posted
                0x00,                   // VI Error Type
                0x00);                  // IS Error Code
        assertThat(ControlSegment.decode(placed(wire), PREFIX, wire.length)).isEqualTo(new ConnectNoMatch());
        assertThat(encoded(24, bb -> new ConnectNoMatch().encode(bb, PREFIX))).isEqualTo(wire);
    }

    @Test
    void sendUnordered() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x4A,                   // Type 9 Send Unordered << 3 | End of Message
                0x00, 0x19,             // Segment Length 25
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x0C, // Message Number 12
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x07,             // Rx Descriptors Posted 7
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x7E);                  // payload
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.SEND_UNORDERED);
        assertThat(v.type().ordered()).isEqualTo(SegmentType.SEND);
        assertThat(payloadOf(v)).isEqualTo(bytes(0x7E));
        byte[] out = encoded(25, bb -> {
            int h = Segments.writeSend(bb, PREFIX, true, SegmentHeader.FLAG_END_OF_MESSAGE, 1, 0, 0, 12, 0, 7);
            bb.put(PREFIX + h, (byte) 0x7E);
            return h + 1;
        });
        assertThat(out).isEqualTo(wire);
    }

    @Test
    void rdmaWriteUnorderedZeroLength() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x52,                   // Type 10 RDMA Write Unordered << 3 | End of Message
                0x00, 0x28,             // Segment Length 40 (zero-length write: one empty segment, §9.7)
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x0D, // Message Number 13
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x07,             // Rx Descriptors Posted 7
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, // RDMA Address 0x1000
                0x00, 0x00, 0x00, 0x05, // Registered Memory Handle 5
                0x00, 0x00, 0x00, 0x00); // RDMA Length 0
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_WRITE_UNORDERED);
        assertThat(v.type().ordered()).isEqualTo(SegmentType.RDMA_WRITE);
        assertThat(v.rdmaAddress()).isEqualTo(0x1000);
        assertThat(v.rdmaHandle()).isEqualTo(5);
        assertThat(v.rdmaLength()).isZero();
        assertThat(v.payloadLength()).isZero();
        assertThat(encoded(40, bb -> Segments.writeRdmaWrite(bb, PREFIX, true, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                0, 0, 13, 0, 7, 0x1000, 5, 0))).isEqualTo(wire);
    }

    @Test
    void rdmaReadRequestUnordered() {
        byte[] wire = bytes(
                0x01,                   // Version 1
                0x5A,                   // Type 11 RDMA Read Request Unordered << 3 | End of Message
                0x00, 0x28,             // Segment Length 40
                0x00, 0x00, 0x00, 0x00, // Data Offset 0
                0x00, 0x00, 0x00, 0x00, // Immediate Data
                0x00, 0x00, 0x00, 0x0E, // Message Number 14
                0x00, 0x00, 0x00, 0x00, // Message ACK
                0x00, 0x07,             // Rx Descriptors Posted 7
                0x00,                   // VI Error Type
                0x00,                   // IS Error Code
                0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // RDMA Address 0x100000000
                0x00, 0x00, 0x00, 0x06, // Registered Memory Handle 6
                0x00, 0x00, 0x20, 0x00); // RDMA Length 8192
        SegmentView v = decode(wire);
        assertThat(v.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST_UNORDERED);
        assertThat(v.type().ordered()).isEqualTo(SegmentType.RDMA_READ_REQUEST);
        assertThat(v.rdmaAddress()).isEqualTo(0x100000000L);
        assertThat(v.rdmaLength()).isEqualTo(8192);
        assertThat(encoded(40, bb -> Segments.writeRdmaReadRequest(bb, PREFIX, true, 14, 0, 7, 0x100000000L, 6, 8192)))
                .isEqualTo(wire);
    }
}

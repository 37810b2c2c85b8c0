package io.vibridge.vitcp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.testing.TeeRelay;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ProtocolException;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import picocli.CommandLine;

/**
 * The Wireshark dissector {@code tools/wireshark/vitcp.lua}, run by tshark over a capture of a real
 * connection to the echo endpoint (recorded here by a relay between client and echo, written as a pcap),
 * must decode every segment into what the codecs read from the same bytes, in any TCP segmentation.
 * Skipped only where tshark is not installed (CI installs it).
 */
class WiresharkDissectorTest {

    static final Duration T = Duration.ofSeconds(20);
    static final int CLIENT_PORT = 40001;
    static final byte[] HELLO = "hello vi".getBytes(StandardCharsets.US_ASCII);
    static final int LONG_SEND = 40_000; // two segments at the default 32 KiB segment payload
    static final String KEY = "wireshark-test-key"; // Security Type 1 on the native connection

    private static String tshark;
    private static Path script;
    private static final Path OUT = Path.of("target", "wireshark");

    @BeforeAll
    static void find() throws IOException {
        String path = System.getenv("PATH");
        for (String p : path == null ? new String[0] : path.split(File.pathSeparator)) {
            File f = new File(p, "tshark");
            if (f.canExecute()) {
                tshark = f.getAbsolutePath();
                break;
            }
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path s = dir.resolve("tools/wireshark/vitcp.lua");
            if (Files.isRegularFile(s)) {
                script = s;
                break;
            }
        }
        assertThat(script).as("tools/wireshark/vitcp.lua above " + Path.of("").toAbsolutePath()).isNotNull();
        Files.createDirectories(OUT);
    }

    @Test
    void decodesAConnectionToTheEchoEndpoint() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        List<TeeRelay.Chunk> chunks = echoConversation(Encapsulation.VITCP, KEY);
        Path asRead = capture(chunks, 7470, 16_384, "echo-vitcp.pcap");
        Path cut = capture(chunks, 7470, 37, "echo-vitcp-37.pcap"); // segments split and several per TCP segment

        // each direction whole, in 4 KiB TCP segments: the first holds the Connect Request and the first Send
        TcpCapture pcap = new TcpCapture(4096);
        TcpCapture.Connection c = pcap.open(CLIENT_PORT, 7470);
        c.send(true, stream(chunks, true)).send(false, stream(chunks, false)).close();
        Path whole = OUT.resolve("echo-vitcp-whole.pcap");
        pcap.write(whole);

        List<Decoded> decoded = pdml(asRead, "vitcp");
        assertThat(fieldsOf(decoded, true)).isEqualTo(codec(stream(chunks, true)));
        assertThat(fieldsOf(decoded, false)).isEqualTo(codec(stream(chunks, false)));
        assertThat(decoded).allSatisfy(d -> assertThat(d.experts()).isEmpty());
        assertThat(pdml(cut, "vitcp")).as("the same bytes in 37-byte TCP segments")
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("frame").containsExactlyElementsOf(decoded);
        List<Decoded> coalesced = pdml(whole, "vitcp");
        assertThat(fieldsOf(coalesced, true)).isEqualTo(fieldsOf(decoded, true));
        assertThat(fieldsOf(coalesced, false)).isEqualTo(fieldsOf(decoded, false));
        assertThat(coalesced.get(0).frame()).as("two segments in one TCP segment").isEqualTo(coalesced.get(1).frame());

        // What a reader looks for; NOPs (sent as credits allow) left out
        List<Decoded> toEcho = withoutNops(decoded, true);
        List<Decoded> fromEcho = withoutNops(decoded, false);
        assertThat(toEcho).extracting(d -> d.show("vitcp.type")).containsExactly("5", "0", "0", "0", "1", "2");
        assertThat(fromEcho).extracting(d -> d.show("vitcp.type")).containsExactly("6", "0", "0", "0", "3");
        assertThat(toEcho).extracting(d -> d.show("vitcp.msg_rel")).containsExactly(null, "0", "1", "1", "2", "3");
        assertThat(fromEcho).extracting(d -> d.show("vitcp.msg_rel")).containsExactly(null, "0", "1", "1", "3");
        assertThat(toEcho).extracting(d -> d.show("vitcp.length"))
                .containsExactly(toEcho.get(0).show("vitcp.length"), "32", "32792", "7256", "41", "40");
        assertThat(toEcho).extracting(d -> d.show("vitcp.data_offset"))
                .containsExactly("0", "0", "0", "32768", "0", "0");
        assertThat(toEcho).extracting(d -> d.show("vitcp.flags.eom"))
                .containsExactly("1", "1", "0", "1", "1", "1");
        Decoded request = toEcho.get(0);
        Decoded accept = fromEcho.get(0);
        assertThat(request.show("vitcp.rx_posted")).as("the client's receives posted before connecting").isEqualTo("2");
        assertThat(accept.show("vitcp.rx_posted")).as("echo --receives 16").isEqualTo("16");
        assertThat(request.show("vitcp.ce.reliability")).isEqualTo("2");
        assertThat(request.show("vitcp.ce.flow_control")).isEqualTo("1");
        assertThat(request.value("vitcp.ce.called")).isEqualTo(hex("echo".getBytes(StandardCharsets.US_ASCII)));
        assertThat(request.value("vitcp.ce.calling")).isEqualTo(hex("client".getBytes(StandardCharsets.US_ASCII)));
        assertThat(accept.show("vitcp.ack_rel")).as("Reliable Reception: the requester's IMN - 1").isEqualTo("-1");
        for (Decoded signed : List.of(request, accept)) {
            assertThat(signed.show("vitcp.ce.security_type")).isEqualTo("1");
            assertThat(signed.value("vitcp.ce.timestamp") + signed.value("vitcp.ce.hmac"))
                    .isEqualTo(signed.value("vitcp.ce.security_info"));
        }
        for (List<Decoded> side : List.of(toEcho, fromEcho)) {
            Decoded hello = side.get(1);
            assertThat(hello.value("vitcp.payload")).isEqualTo(hex(HELLO));
            assertThat(hello.show("vitcp.flags.imm")).isEqualTo("1");
            assertThat(hello.show("vitcp.immediate")).isEqualTo("0x00001234");
        }
        assertThat(fromEcho.get(4).value("vitcp.payload")).as("the byte read back").isEqualTo("2a");
    }

    @Test
    void decodesRdmaTcpFramesAndTheSegmentsInThem() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        List<TeeRelay.Chunk> chunks = echoConversation(Encapsulation.RDMATCP, null);
        Path file = capture(chunks, 7471, 1000, "echo-rdmatcp.pcap");

        List<Decoded> frames = pdml(file, "rdmatcp");
        List<Decoded> segments = pdml(file, "vitcp");
        for (boolean fromClient : new boolean[] {true, false}) {
            List<Map<String, String>> expectedFrames = new ArrayList<>();
            List<Map<String, String>> expectedSegments = new ArrayList<>();
            byte[] bytes = stream(chunks, fromClient);
            ByteBuffer b = ByteBuffer.wrap(bytes);
            SegmentView v = new SegmentView();
            for (int off = 0; off < bytes.length; off += RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(b, off))) {
                assertThat(RdmaTcpFrame.check(b, off, 0, true)).isEqualTo(FrameCheck.OK);
                expectedFrames.add(frameFields(b, off));
                int header = RdmaTcpFrame.headerLength(b, off);
                expectedSegments.add(fields(v.wrap(b, off + header, RdmaTcpFrame.segmentLength(b, off) - header)));
            }
            assertThat(fieldsOf(frames, fromClient, RDMATCP_COMPARED)).isEqualTo(expectedFrames);
            assertThat(fieldsOf(segments, fromClient)).isEqualTo(expectedSegments);
        }
        assertThat(frames).allSatisfy(d -> assertThat(d.experts()).isEmpty());
        assertThat(segments).allSatisfy(d -> assertThat(d.experts()).isEmpty());
        assertThat(withoutNops(segments, true)).extracting(d -> d.show("vitcp.type"))
                .containsExactly("5", "0", "0", "0", "1", "2");
        assertThat(withoutNops(segments, false)).extracting(d -> d.show("vitcp.type"))
                .containsExactly("6", "0", "0", "0", "3");
        assertThat(frames).extracting(d -> d.show("rdmatcp.connection_id")).containsOnly(
                frames.get(0).show("rdmatcp.connection_id"));
    }

    /**
     * The port is a preference and the protocol is offered in Decode As: the same capture on another port
     * is decoded only when told so.
     */
    @Test
    void otherPortsByPreferenceOrDecodeAs() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        List<TeeRelay.Chunk> chunks = echoConversation(Encapsulation.VITCP, null);
        List<Decoded> reference = pdml(capture(chunks, 7470, 16_384, "port-7470.pcap"), "vitcp");
        Path file = capture(chunks, 7480, 16_384, "port-7480.pcap");
        assertThat(pdml(file, "vitcp")).isEmpty();
        for (String[] option : new String[][] {{"-o", "vitcp.tcp_port:7480"}, {"-d", "tcp.port==7480,vitcp"}}) {
            assertThat(pdml(file, "vitcp", option)).as(String.join(" ", option))
                    .usingRecursiveFieldByFieldElementComparatorIgnoringFields("srcPort")
                    .containsExactlyElementsOf(reference);
        }
    }

    /**
     * Every malformed segment gets an error whose message starts with the field the codec names in its
     * ProtocolException for the same bytes; well-formed segments that report or provoke an error get a warning.
     */
    @Test
    void expertInfoForMalformedSegmentsNamesTheCodecsField() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        Map<String, byte[]> malformed = new LinkedHashMap<>();
        malformed.put("version 2", patch(nop(), 0, 2));
        malformed.put("reserved type 12", patch(nop(), 1, 12 << 3 | 2));
        malformed.put("RDMA Write shorter than its headers", header(SegmentType.RDMA_WRITE, 2, 30, 0));
        malformed.put("NOP with payload", header(SegmentType.NOP, 2, 28, 0));
        malformed.put("Immediate Data Valid on a NOP", patch(nop(), 1, 4 << 3 | 3));
        malformed.put("Immediate Data Valid without EOM", header(SegmentType.SEND, 1, 32, 0));
        malformed.put("Transmit Error on a NOP", patch(nop(), 1, 4 << 3 | 6));
        malformed.put("NOP without EOM", patch(nop(), 1, 4 << 3));
        malformed.put("RDMA Read Request with a Data Offset", header(SegmentType.RDMA_READ_REQUEST, 2, 40, 4));
        malformed.put("RDMA Write past its RDMA Length", patch(header(SegmentType.RDMA_WRITE, 2, 48, 0), 39, 4));
        malformed.put("Send past 2^32", header(SegmentType.SEND, 2, 32, 0xFFFF_FFFCL));
        malformed.put("calling discriminator of 65 bytes", patch(connectRequest(), 24 + 3, 65));
        malformed.put("non-zero calling discriminator padding", patch(connectRequest(), 24 + 8 + 3, 1));
        malformed.put("called discriminator of 100 bytes", patch(connectRequest(), 24 + 12 + 3, 100));
        malformed.put("called discriminator past the segment", patch(connectRequest(), 24 + 12 + 3, 60));
        malformed.put("security information past the segment", patch(connectRequest(), 24 + 20 + 3, 200));
        byte[] longer = Arrays.copyOf(connectRequest(), connectRequest().length + 4);
        malformed.put("CE header shorter than the segment", patch(longer, 3, longer.length));

        Map<String, byte[]> warned = new LinkedHashMap<>();
        warned.put("Transmit Error", header(SegmentType.SEND, 6, 32, 0));
        warned.put("Connect Reject", encode(new ConnectReject(IsCode.CONSUMER_REJECTED)));
        warned.put("Remote Error Code", patch(patch(nop(), 22, 1), 23, IsCode.INVALID_MEMORY_HANDLE));
        warned.put("Attributes", patch(connectRequest(), 24 + 1, 0x80 | 2)); // reserved bit 7
        warned.put("MTU Size", patch(patch(connectRequest(), 24 + 5, 0), 24 + 6, 1)); // 65,536 -> 256

        // one connection each, from consecutive client ports; what each one's expert message must start with
        TcpCapture pcap = new TcpCapture(1000);
        List<String> cases = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        for (var e : malformed.entrySet()) {
            try {
                new SegmentView().wrap(ByteBuffer.wrap(e.getValue()), 0, e.getValue().length);
                throw new AssertionError(e.getKey() + ": the codec accepts it");
            } catch (ProtocolException ex) {
                prefixes.add(ex.field() + ": ");
            }
            cases.add(e.getKey());
            pcap.open(CLIENT_PORT + cases.size() - 1, 7470).send(true, e.getValue()).close();
        }
        for (var e : warned.entrySet()) {
            new SegmentView().wrap(ByteBuffer.wrap(e.getValue()), 0, e.getValue().length); // the codec accepts it
            prefixes.add(e.getKey());
            cases.add(e.getKey());
            pcap.open(CLIENT_PORT + cases.size() - 1, 7470).send(true, e.getValue()).close();
        }
        Path file = OUT.resolve("malformed.pcap");
        pcap.write(file);

        List<Decoded> decoded = pdml(file, "vitcp");
        assertThat(decoded).extracting(Decoded::srcPort).containsExactlyElementsOf(
                IntStream.range(CLIENT_PORT, CLIENT_PORT + cases.size()).boxed().toList());
        for (Decoded d : decoded) {
            int i = d.srcPort() - CLIENT_PORT;
            assertThat(d.experts()).as(cases.get(i)).singleElement(STRING).startsWith(prefixes.get(i));
            assertThat(d.show("_ws.expert.severity")).as(cases.get(i))
                    .isEqualTo(String.valueOf(i < malformed.size() ? 0x800000 : 0x600000)); // PI_ERROR, PI_WARN
        }
    }

    @Test
    void expertInfoForBrokenRdmaTcpFrames() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        ByteBuffer send = ByteBuffer.allocate(32);
        SegmentHeader.write(send, 0, SegmentType.SEND, 2, 32, 0, 0, 7, 0, 1, 0, 0);
        long id = 0x1122_3344_5566_7788L;
        byte[] good = RdmaTcpFrame.frame(send, 0, 32, id).array();
        Map<FrameCheck, byte[]> frames = new LinkedHashMap<>();
        frames.put(FrameCheck.CRC, patch(good.clone(), 24 + 30, 0x55));
        frames.put(FrameCheck.CONNECTION_ID, RdmaTcpFrame.frame(send, 0, 32, id + 1).array());
        byte[] otherMessage = good.clone();
        ByteBuffer.wrap(otherMessage).putInt(RdmaTcpFrame.OFF_MESSAGE_NUMBER, 8);
        RdmaTcpFrame.putCrc(ByteBuffer.wrap(otherMessage), otherMessage.length - 4,
                RdmaTcpCrc.of(otherMessage, 0, otherMessage.length - 4));
        frames.put(FrameCheck.MISMATCH, otherMessage);
        frames.put(FrameCheck.VERSION, patch(good.clone(), 0, 2));

        TcpCapture pcap = new TcpCapture(1000);
        int port = CLIENT_PORT;
        for (var e : frames.entrySet()) {
            assertThat(RdmaTcpFrame.check(ByteBuffer.wrap(e.getValue()), 0, id, false)).isEqualTo(e.getKey());
            pcap.open(port++, 7471).send(true, good).send(true, e.getValue()).close();
        }
        Path file = OUT.resolve("malformed-rdmatcp.pcap");
        pcap.write(file);

        List<Decoded> decoded = pdml(file, "rdmatcp");
        assertThat(decoded).hasSize(2 * frames.size());
        List<FrameCheck> checks = List.copyOf(frames.keySet());
        for (int i = 0; i < checks.size(); i++) {
            assertThat(decoded.get(2 * i).experts()).isEmpty();
            assertThat(decoded.get(2 * i).show("rdmatcp.crc.status")).isEqualTo("1");
            assertThat(decoded.get(2 * i + 1).experts()).as(checks.get(i).name()).singleElement(STRING)
                    .startsWith(checks.get(i).name() + ": ");
        }
    }

    /** Mutated streams of valid segments, native and framed: never a Lua error, whatever the bytes. */
    @Test
    void noLuaErrorOnMutatedStreams() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        List<byte[]> segments = List.of(connectRequest(), header(SegmentType.SEND, 3, 32, 0),
                header(SegmentType.RDMA_WRITE, 2, 48, 0), header(SegmentType.RDMA_READ_REQUEST, 2, 40, 0), nop(),
                encode(new ConnectReject(IsCode.TIMEOUT)));
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        for (byte[] segment : segments) {
            plain.writeBytes(segment);
            framed.writeBytes(RdmaTcpFrame.frame(ByteBuffer.wrap(segment), 0, segment.length, 42).array());
        }
        Random random = new Random(15);
        TcpCapture pcap = new TcpCapture(64);
        int port = CLIENT_PORT;
        for (int i = 0; i < 400; i++) {
            byte[] stream = (i % 2 == 0 ? plain : framed).toByteArray();
            for (int k = random.nextInt(1, 4); k > 0; k--) {
                stream[random.nextInt(stream.length)] = (byte) random.nextInt(256);
            }
            pcap.open(port++, i % 2 == 0 ? 7470 : 7471).send(true, stream).close();
        }
        Path file = OUT.resolve("mutated.pcap");
        pcap.write(file);
        assertThat(pdml(file, "vitcp")).isNotEmpty(); // pdml fails on any Lua error in the capture
    }

    private static byte[] nop() {
        return header(SegmentType.NOP, 2, 24, 0);
    }

    /** A segment header of the given type, flags and length (zero bytes after it), Message Number 7. */
    private static byte[] header(SegmentType type, int flags, int length, long dataOffset) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(length, SegmentHeader.LENGTH));
        SegmentHeader.write(b, 0, type, flags, Math.max(length, SegmentHeader.LENGTH), dataOffset, 0, 7, 0, 1, 0, 0);
        b.putShort(SegmentHeader.OFF_SEGMENT_LENGTH, (short) length);
        if (type.hasRdmaHeader() && length >= SegmentHeader.LENGTH + RdmaHeader.LENGTH) {
            RdmaHeader.write(b, SegmentHeader.LENGTH, 0x1000, 0xABCD, length - 40);
        }
        return b.array();
    }

    /** A Connect Request with calling discriminator "abc" (one padding byte) and called "echo". */
    private static byte[] connectRequest() {
        return encode(new ConnectRequest(0x100, 2, ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false, false),
                Discriminator.ofUtf8("abc"), 65_536, 4, Discriminator.ofUtf8("echo"))));
    }

    private static byte[] encode(ControlSegment segment) {
        ByteBuffer b = ByteBuffer.allocate(segment.encodedLength());
        segment.encode(b, 0);
        return b.array();
    }

    private static byte[] patch(byte[] bytes, int at, int value) {
        bytes[at] = (byte) value;
        return bytes;
    }

    // ------------------------------------------------------------------ the conversation

    /**
     * Connects to a fresh echo endpoint through a relay (signed with {@code key} unless null): two Sends echoed,
     * an RDMA Write, an RDMA Read.
     */
    private static List<TeeRelay.Chunk> echoConversation(Encapsulation framing, String key) throws Exception {
        EchoCommand echo = new EchoCommand(new PrintStream(OutputStream.nullOutputStream(), true,
                StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>(List.of("--port", "0", "--rdmatcp-port", "0", "--discriminator", "echo",
                "--reliability", "RELIABLE_RECEPTION", "--flow-control"));
        if (key != null) {
            args.addAll(List.of("--key", key));
        }
        new CommandLine(echo).parseArgs(args.toArray(String[]::new));
        echo.start();
        Thread server = Thread.ofVirtual().start(() -> {
            try {
                echo.serve();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long address = echo.region().address();
        int handle = echo.region().handle();
        ViNetAddress target = echo.nic().address(Discriminator.ofUtf8("echo"), framing);
        try (TeeRelay relay = new TeeRelay(target.host());
                ViNic client = ViNic.open(NicConfig.loopback().withListen(null)
                        .withKey(key == null ? null : key.getBytes(StandardCharsets.UTF_8)))) {
            ProtectionTag tag = client.createPtag();
            Vi vi = client.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, tag).withFlowControl(true),
                    null, null);
            MemoryRegion mem = client.registerMemory(ByteBuffer.allocateDirect(3 * 65_536),
                    new MemoryAttributes(tag, true, true));
            vi.postRecv(Descriptor.receive().data(mem, 65_536, 65_536));
            vi.postRecv(Descriptor.receive().data(mem, 2 * 65_536, 65_536));
            vi.connectRequest(Discriminator.ofUtf8("client"), new ViNetAddress(relay.address(), target.discriminator(),
                    framing), T);

            mem.buffer().put(0, HELLO);
            vi.postSend(Descriptor.send().data(mem, 0, HELLO.length).immediate(0x1234));
            assertThat(vi.sendWait(T).isError()).isFalse();
            assertThat(vi.recvWait(T).transferred()).isEqualTo(HELLO.length);
            for (int i = 0; i < LONG_SEND; i++) {
                mem.buffer().put(i, (byte) (i * 31 + 7));
            }
            vi.postSend(Descriptor.send().data(mem, 0, LONG_SEND));
            assertThat(vi.sendWait(T).isError()).isFalse();
            assertThat(vi.recvWait(T).transferred()).isEqualTo(LONG_SEND);
            mem.buffer().put(100, (byte) 42);
            vi.postSend(Descriptor.rdmaWrite(address + 10, handle).data(mem, 100, 1));
            vi.postSend(Descriptor.rdmaRead(address + 10, handle).data(mem, 200, 1));
            assertThat(vi.sendWait(T).isError()).isFalse();
            assertThat(vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
            vi.disconnect();
            return relay.awaitChunks(T.toSeconds(), TimeUnit.SECONDS);
        } finally {
            server.interrupt();
            echo.nic().close();
        }
    }

    /** The recorded chunks as a pcap between CLIENT_PORT and {@code serverPort}, kept under target/wireshark. */
    private static Path capture(List<TeeRelay.Chunk> chunks, int serverPort, int mss, String name) throws IOException {
        TcpCapture pcap = new TcpCapture(mss);
        TcpCapture.Connection c = pcap.open(CLIENT_PORT, serverPort);
        for (TeeRelay.Chunk chunk : chunks) {
            c.send(chunk.fromClient(), chunk.bytes());
        }
        c.close();
        Path file = OUT.resolve(name);
        pcap.write(file);
        return file;
    }

    private static byte[] stream(List<TeeRelay.Chunk> chunks, boolean fromClient) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        chunks.stream().filter(c -> c.fromClient() == fromClient).forEach(c -> s.writeBytes(c.bytes()));
        return s.toByteArray();
    }

    // ------------------------------------------------------------------ what the codecs read

    /** Fields compared with the codecs' reading, in the dissector's names. */
    static final List<String> COMPARED = List.of("vitcp.type", "vitcp.flags", "vitcp.length", "vitcp.data_offset",
            "vitcp.immediate", "vitcp.msg", "vitcp.ack", "vitcp.rx_posted", "vitcp.vi_error_type", "vitcp.is_code",
            "vitcp.rdma.address", "vitcp.rdma.handle", "vitcp.rdma.length", "vitcp.payload", "vitcp.ce.attributes",
            "vitcp.ce.calling", "vitcp.ce.mtu", "vitcp.ce.read_window", "vitcp.ce.called", "vitcp.ce.security_type",
            "vitcp.ce.security_length", "vitcp.ce.security_info");

    static final List<String> RDMATCP_COMPARED = List.of("rdmatcp.flags", "rdmatcp.length", "rdmatcp.connection_id",
            "rdmatcp.msg", "rdmatcp.order", "rdmatcp.clen", "rdmatcp.data_offset", "rdmatcp.buffer_id",
            "rdmatcp.buffer_offset", "rdmatcp.rdma_length", "rdmatcp.crc", "rdmatcp.crc.status");

    /** The seed-004 frame header at {@code off} as RdmaTcpFrame reads it, and the CRC status it checked. */
    private static Map<String, String> frameFields(ByteBuffer b, int off) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("rdmatcp.flags", String.valueOf(RdmaTcpFrame.flags(b, off)));
        f.put("rdmatcp.length", String.valueOf(RdmaTcpFrame.segmentLength(b, off)));
        f.put("rdmatcp.connection_id", Long.toUnsignedString(RdmaTcpFrame.connectionId(b, off)));
        f.put("rdmatcp.msg", Integer.toUnsignedString(RdmaTcpFrame.messageNumber(b, off)));
        f.put("rdmatcp.order", String.valueOf(RdmaTcpFrame.order(b, off)));
        f.put("rdmatcp.clen", String.valueOf(RdmaTcpFrame.clen(b, off)));
        if (RdmaTcpFrame.type(b, off).namesBuffer()) {
            f.put("rdmatcp.buffer_id", Integer.toUnsignedString(RdmaTcpFrame.bufferId(b, off)));
            f.put("rdmatcp.buffer_offset", Integer.toUnsignedString(RdmaTcpFrame.bufferOffset(b, off)));
            f.put("rdmatcp.rdma_length", Integer.toUnsignedString(RdmaTcpFrame.rdmaLength(b, off)));
        } else {
            f.put("rdmatcp.data_offset", Integer.toUnsignedString(RdmaTcpFrame.dataOffset(b, off)));
        }
        f.put("rdmatcp.crc", Integer.toUnsignedString(RdmaTcpFrame.crc(b, off)));
        f.put("rdmatcp.crc.status", "1");
        return f;
    }

    /** Every native segment in one direction's bytes, as SegmentView and ConnectionHeader read them. */
    private static List<Map<String, String>> codec(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<Map<String, String>> out = new ArrayList<>();
        SegmentView v = new SegmentView();
        for (int off = 0; off < bytes.length; off += v.segmentLength()) {
            out.add(fields(v.wrap(b, off, bytes.length - off)));
        }
        return out;
    }

    private static Map<String, String> fields(SegmentView v) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("vitcp.type", String.valueOf(v.type().code()));
        f.put("vitcp.flags", String.valueOf(v.flags()));
        f.put("vitcp.length", String.valueOf(v.segmentLength()));
        f.put("vitcp.data_offset", String.valueOf(v.dataOffset()));
        f.put("vitcp.immediate", Integer.toUnsignedString(v.immediateData()));
        f.put("vitcp.msg", Integer.toUnsignedString(v.messageNumber()));
        f.put("vitcp.ack", Integer.toUnsignedString(v.messageAck()));
        f.put("vitcp.rx_posted", String.valueOf(v.rxDescriptorsPosted()));
        f.put("vitcp.vi_error_type", String.valueOf(v.viErrorType()));
        f.put("vitcp.is_code", String.valueOf(v.isErrorCode()));
        if (v.hasRdmaHeader()) {
            f.put("vitcp.rdma.address", Long.toUnsignedString(v.rdmaAddress()));
            f.put("vitcp.rdma.handle", Integer.toUnsignedString(v.rdmaHandle()));
            f.put("vitcp.rdma.length", String.valueOf(v.rdmaLength()));
        }
        if (v.payloadLength() > 0) {
            byte[] p = new byte[v.payloadLength()];
            v.buffer().get(v.payloadOffset(), p);
            f.put("vitcp.payload", hex(p));
        }
        if (v.connectionHeaderOffset() >= 0) {
            ConnectionHeader ce = v.connectionHeader();
            f.put("vitcp.ce.attributes", String.valueOf(ce.attributes().bits()));
            f.put("vitcp.ce.calling", hex(ce.calling().bytes()));
            f.put("vitcp.ce.mtu", String.valueOf(ce.mtu()));
            f.put("vitcp.ce.read_window", String.valueOf(ce.rdmaReadWindow()));
            f.put("vitcp.ce.called", hex(ce.called().bytes()));
            f.put("vitcp.ce.security_type", String.valueOf(ce.securityType()));
            f.put("vitcp.ce.security_length", String.valueOf(ce.securityLength()));
            f.put("vitcp.ce.security_info", hex(ce.securityInfo()));
        }
        return f;
    }

    // ------------------------------------------------------------------ what tshark reads

    /**
     * One protocol item as tshark shows it: its packet, the sending port, each field's shown and raw value
     * (first occurrence), expert messages.
     */
    record Decoded(int frame, int srcPort, Map<String, String> shows, Map<String, String> values,
            List<String> experts) {
        String show(String field) {
            return shows.get(field);
        }

        String value(String field) {
            return values.get(field);
        }

        /** The field as the codec comparison writes it: unsigned decimal, or hex bytes. */
        String normalized(String field) {
            String s = show(field);
            if (s == null) {
                return null;
            }
            if (field.equals("vitcp.payload") || field.endsWith(".calling") || field.endsWith(".called")
                    || field.endsWith(".security_info")) {
                return value(field);
            }
            return s.startsWith("0x") ? Long.toUnsignedString(Long.parseUnsignedLong(s.substring(2), 16)) : s;
        }
    }

    private static List<Map<String, String>> fieldsOf(List<Decoded> decoded, boolean fromClient) {
        return fieldsOf(decoded, fromClient, COMPARED);
    }

    private static List<Map<String, String>> fieldsOf(List<Decoded> decoded, boolean fromClient, List<String> names) {
        List<Map<String, String>> out = new ArrayList<>();
        for (Decoded d : decoded) {
            if ((d.srcPort() == CLIENT_PORT) == fromClient) {
                Map<String, String> f = new LinkedHashMap<>();
                for (String name : names) {
                    String v = d.normalized(name);
                    if (v != null) {
                        f.put(name, v);
                    }
                }
                out.add(f);
            }
        }
        return out;
    }

    private static List<Decoded> withoutNops(List<Decoded> decoded, boolean fromClient) {
        return decoded.stream().filter(d -> (d.srcPort() == CLIENT_PORT) == fromClient)
                .filter(d -> !"4".equals(d.show("vitcp.type"))).toList();
    }

    /** Every item of protocol {@code proto} in the capture, in order, from tshark's PDML. */
    static List<Decoded> pdml(Path file, String proto, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString(), "-X", "lua_script:" + script,
                "-T", "pdml"));
        cmd.addAll(List.of(options));
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        var doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(run(cmd)));
        var all = doc.getElementsByTagName("field");
        for (int k = 0; k < all.getLength(); k++) {
            if (((Element) all.item(k)).getAttribute("name").equals("_ws.lua.error")) {
                throw new AssertionError(((Element) all.item(k)).getAttribute("showname"));
            }
        }
        List<Decoded> out = new ArrayList<>();
        var packets = doc.getElementsByTagName("packet");
        for (int i = 0; i < packets.getLength(); i++) {
            int srcPort = -1;
            for (Node n = packets.item(i).getFirstChild(); n != null; n = n.getNextSibling()) {
                if (!(n instanceof Element p) || !p.getTagName().equals("proto")) {
                    continue;
                }
                if (p.getAttribute("name").equals("tcp")) {
                    srcPort = Integer.parseInt(firstField(p, "tcp.srcport").getAttribute("show"));
                } else if (p.getAttribute("name").equals(proto)) {
                    Map<String, String> shows = new LinkedHashMap<>();
                    Map<String, String> values = new LinkedHashMap<>();
                    List<String> experts = new ArrayList<>();
                    var fields = p.getElementsByTagName("field");
                    for (int k = 0; k < fields.getLength(); k++) {
                        Element f = (Element) fields.item(k);
                        String name = f.getAttribute("name");
                        if (name.equals("_ws.expert.message")) {
                            experts.add(f.getAttribute("show"));
                        }
                        shows.putIfAbsent(name, f.getAttribute("show"));
                        values.putIfAbsent(name, f.getAttribute("value"));
                    }
                    out.add(new Decoded(i + 1, srcPort, shows, values, experts));
                }
            }
        }
        return out;
    }

    private static Element firstField(Element proto, String name) {
        var fields = proto.getElementsByTagName("field");
        for (int k = 0; k < fields.getLength(); k++) {
            Element f = (Element) fields.item(k);
            if (f.getAttribute("name").equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no " + name);
    }

    /** Runs tshark; a script that does not load is only a message on stderr (exit code 0), so that counts too. */
    static byte[] run(List<String> cmd) throws IOException, InterruptedException {
        Path err = Files.createTempFile(OUT, "tshark", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        List<String> messages = Files.readAllLines(err).stream().filter(l -> !l.startsWith("Running as user")).toList();
        Files.delete(err);
        assertThat(messages).as(String.join(" ", cmd)).isEmpty();
        assertThat(p.exitValue()).as(String.join(" ", cmd)).isZero();
        return out;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}

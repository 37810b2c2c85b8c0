package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.CLIENT;
import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The provider on its seed-004 RDMA/TCP port (VITCP-PROFILE §8, §9.11) against a raw peer over real
 * loopback TCP, always in RDMA/TCP framing whatever {@link Fixture#FRAMING} says: a broken frame (bad CRC,
 * unknown Connection ID, cut short) places nothing and moves the VI to Error (VIA 5.4) and TCP closes;
 * padding is ignored; any chunking of the byte stream is the same; a bad first frame is closed without an
 * answer; as the active side the provider frames every segment with the Connection ID it chose, a valid
 * CRC and the right B/E; a keyed listener verifies the HMAC over the frame header and segment.
 */
class RdmaTcpFramingTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** A loopback NIC that also listens for seed-004 framing. */
    static NicConfig framed(String name) {
        return NicConfig.loopback().withName(name)
                .withRdmaTcpListen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** The seed-004 CRC-32, bit at a time (reflected 0xDB710641 = 0x82608EDB, init and final XOR all ones). */
    static int referenceCrc(byte[] b, int off, int len) {
        int crc = 0xFFFFFFFF;
        for (int i = off; i < off + len; i++) {
            crc ^= b[i] & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x82608EDB : crc >>> 1;
            }
        }
        return ~crc;
    }

    static byte[] recrc(byte[] f) {
        ByteBuffer.wrap(f).putInt(f.length - 4, referenceCrc(f, 0, f.length - 4));
        return f;
    }

    /** A server VI at {@code level} connected to a raw peer through the server's RDMA/TCP port. */
    private record Passive(Fixture f, ConnectListener listener, Vi vi, MemoryRegion region, MemoryRegion inbox,
            RawPeer raw, List<ErrorDescriptor> errors) implements AutoCloseable {

        static Passive connect(ReliabilityLevel level) throws Exception {
            Fixture f = new Fixture(framed("server"), framed("client"));
            List<ErrorDescriptor> errors = new CopyOnWriteArrayList<>();
            f.server.errorCallback(errors::add);
            ConnectListener l = f.server.listen(SERVER);
            Vi vi = f.server.createVi(f.serverAttributes(level), null, null);
            MemoryRegion region = f.serverRegion(4096);
            MemoryRegion inbox = f.serverRegion(4096);
            vi.postRecv(Descriptor.receive().data(inbox, 0, 4096));
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP);
            // the Accept is read as a frame checked against the Connection ID the raw peer chose
            ControlSegment answer = raw.request(RawPeer.ce(level, 1 << 20, 0, CLIENT, SERVER), 0);
            assertThat(answer).isInstanceOf(ConnectAccept.class);
            accepted.get(20, TimeUnit.SECONDS);
            assertThat(vi.state()).isEqualTo(ViState.CONNECTED);
            return new Passive(f, l, vi, region, inbox, raw, errors);
        }

        /** A single-segment RDMA Write of {@code payload} to the region at {@code offset}. */
        byte[] rdmaWrite(int offset, byte[] payload, boolean immediate) {
            return raw.segment(SegmentType.RDMA_WRITE, SegmentHeader.FLAG_END_OF_MESSAGE
                    | (immediate ? SegmentHeader.FLAG_IMMEDIATE : 0), 0, raw.nextMessage, 0, 0,
                    RawPeer.rdma(region.address(offset), region.handle(), payload.length), payload);
        }

        /** The VI went to Error (VIA 5.4), the connection-lost error was reported, TCP is closed. */
        void assertBroken() throws Exception {
            ProtectionAndErrorsTest.awaitState(vi, ViState.ERROR);
            ProtectionAndErrorsTest.awaitErrors(errors);
            assertThat(errors).anySatisfy(e -> assertThat(e.errorCode()).isEqualTo(ErrorDescriptor.ErrorCode.CONN_LOST));
            assertThat(OrderingAndReadWindowTest.closedAfter(raw)).isTrue();
        }

        void assertNothingPlaced() {
            assertThat(Fixture.bytes(region, 0, 4096)).containsOnly((byte) 0);
        }

        @Override
        public void close() throws IOException {
            raw.close();
            listener.close();
            f.close();
        }
    }

    static byte[] filled(int length, int seed) {
        return Fixture.expected(length, seed);
    }

    // ------------------------------------------------------------------ broken frames

    /** Each level, the frame in one write (checked in place) or in two (collected across reads). */
    static Stream<Arguments> levelsAndWrites() {
        return Stream.of(ReliabilityLevel.values()).flatMap(l -> Stream.of(Arguments.of(l, 1), Arguments.of(l, 2)));
    }

    /** Writes {@code frame} in {@code writes} pieces, a pause between them so that they arrive apart. */
    static void write(RawPeer raw, byte[] frame, int writes) throws Exception {
        if (writes == 1) {
            raw.writeRaw(frame);
            return;
        }
        raw.writeRaw(Arrays.copyOf(frame, frame.length / 2));
        Thread.sleep(50);
        raw.writeRaw(Arrays.copyOfRange(frame, frame.length / 2, frame.length));
    }

    @ParameterizedTest(name = "{0} in {1} write(s)")
    @MethodSource("levelsAndWrites")
    void badCrcOnAnRdmaWrite_placesNothing_viToError_tcpClosed(ReliabilityLevel level, int writes) throws Exception {
        try (Passive p = Passive.connect(level)) {
            byte[] frame = p.raw.onWire(p.rdmaWrite(0, filled(1000, 3), false));
            frame[frame.length - 100] ^= 0x01; // a payload bit: the CRC no longer matches
            write(p.raw, frame, writes);
            p.assertBroken();
            p.assertNothingPlaced();
        }
    }

    @ParameterizedTest(name = "{0} in {1} write(s)")
    @MethodSource("levelsAndWrites")
    void unknownConnectionId_placesNothing_viToError_tcpClosed(ReliabilityLevel level, int writes) throws Exception {
        try (Passive p = Passive.connect(level)) {
            byte[] seg = p.rdmaWrite(0, filled(1000, 4), false);
            // a well-formed frame with a valid CRC, under another Connection ID
            write(p.raw, RdmaTcpFrame.frame(ByteBuffer.wrap(seg), 0, seg.length, p.raw.connectionId ^ 0x8000).array(),
                    writes);
            p.assertBroken();
            p.assertNothingPlaced();
        }
    }

    static Stream<Arguments> cuts() {
        return Stream.of(ReliabilityLevel.values()).flatMap(l -> Stream.of(Arguments.of(l, "half"),
                Arguments.of(l, "all but the CRC")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cuts")
    void frameCutShort_thenTcpClosed_placesNothing(ReliabilityLevel level, String cut) throws Exception {
        try (Passive p = Passive.connect(level)) {
            byte[] frame = p.raw.onWire(p.rdmaWrite(0, filled(3000, 5), false));
            p.raw.writeRaw(Arrays.copyOf(frame, cut.equals("half") ? frame.length / 2 : frame.length - 4));
            Thread.sleep(100); // let the provider read it
            p.raw.close();
            ProtectionAndErrorsTest.awaitState(p.vi, ViState.ERROR);
            ProtectionAndErrorsTest.awaitErrors(p.errors);
            assertThat(p.errors).anySatisfy(e -> assertThat(e.errorCode()).isEqualTo(ErrorDescriptor.ErrorCode.CONN_LOST));
            p.assertNothingPlaced(); // in native framing the payload that arrived would have been placed
        }
    }

    // ------------------------------------------------------------------ delivered

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void nonZeroPadding_isIgnored(ReliabilityLevel level) throws Exception {
        try (Passive p = Passive.connect(level)) {
            byte[] data = filled(1001, 6); // 32 + 40 + 1001 = 1073: 3 bytes of padding
            byte[] frame = p.raw.onWire(p.rdmaWrite(100, data, true));
            int segmentLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(frame), 0);
            assertThat(RdmaTcpFrame.padding(segmentLength)).isEqualTo(3);
            for (int i = segmentLength; i < frame.length - 4; i++) {
                frame[i] = (byte) 0xA5;
            }
            p.raw.writeRaw(recrc(frame));
            Descriptor d = p.vi.recvWait(T); // the write's immediate data consumed the receive
            assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_REMOTE_RDMA_WRITE | Status.IMMEDIATE);
            assertThat(Fixture.bytes(p.region, 100, data.length)).isEqualTo(data);
            assertThat(p.vi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void framesWrittenOneBytePerWrite_areDelivered(ReliabilityLevel level) throws Exception {
        try (Passive p = Passive.connect(level)) {
            byte[] data = filled(301, 7);
            MemoryRegion second = p.f.serverRegion(64);
            p.vi.postRecv(Descriptor.receive().data(second, 0, 64));
            byte[] write = p.raw.onWire(p.rdmaWrite(10, data, false));
            byte[] send = p.raw.onWire(p.raw.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                    p.raw.nextMessage + 1, 0, 0, null, filled(5, 8)));
            for (byte[] frame : List.of(write, send)) {
                for (byte b : frame) {
                    p.raw.writeRaw(new byte[] {b});
                }
            }
            Descriptor d = p.vi.recvWait(T);
            assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
            assertThat(d.length()).isEqualTo(5);
            assertThat(Fixture.bytes(p.inbox, 0, 5)).isEqualTo(filled(5, 8));
            assertThat(Fixture.bytes(p.region, 10, data.length)).isEqualTo(data);
            assertThat(p.vi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    // ------------------------------------------------------------------ setup

    /** Nothing arrives, the connection just closes. */
    static void assertClosedWithoutAnswer(RawPeer raw) throws IOException {
        raw.socket.setSoTimeout(20_000);
        InputStream in = raw.socket.getInputStream();
        try {
            assertThat(in.read()).as("a byte arrived").isEqualTo(-1);
        } catch (SocketException reset) {
            // closed with a reset: no answer either
        } catch (SocketTimeoutException e) {
            throw new AssertionError("still open", e);
        }
    }

    private static byte[] requestFrame(RawPeer raw) {
        ConnectRequest r = new ConnectRequest(raw.nextMessage, 0,
                RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, 0, CLIENT, SERVER));
        ByteBuffer seg = ByteBuffer.allocate(r.encodedLength());
        r.encode(seg, 0);
        return raw.onWire(seg.array());
    }

    @Test
    void badFrameVersionOrCrcInTheFirstFrame_isClosedWithoutAnswer() throws Exception {
        try (Fixture f = new Fixture(framed("server"), framed("client"))) {
            for (int version : new int[] {0, 2}) {
                try (RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP)) {
                    byte[] frame = requestFrame(raw);
                    frame[0] = (byte) version;
                    raw.writeRaw(recrc(frame));
                    assertClosedWithoutAnswer(raw);
                }
            }
            try (RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP)) {
                byte[] frame = requestFrame(raw);
                frame[40] ^= 0x04;
                raw.writeRaw(frame);
                assertClosedWithoutAnswer(raw);
            }
            // while a valid first frame with VI version 2 inside gets Connect Reject IS 9, in a frame
            try (RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP)) {
                byte[] frame = requestFrame(raw);
                frame[RdmaTcpFrame.SHORT_HEADER + SegmentHeader.OFF_VERSION] = 2;
                raw.writeRaw(recrc(frame));
                SegmentView answer = raw.read(); // a frame with raw's Connection ID and a valid CRC
                assertThat(ControlSegment.decode(answer.buffer(), 0, answer.segmentLength()))
                        .isEqualTo(new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES));
                assertThat(OrderingAndReadWindowTest.closedAfter(raw)).isTrue();
            }
        }
    }

    // ------------------------------------------------------------------ the provider as the active side

    private static String describe(byte[] frame) {
        ByteBuffer f = ByteBuffer.wrap(frame);
        int seg = RdmaTcpFrame.headerLength(f, 0);
        SegmentType vi = SegmentType.of(SegmentHeader.typeCode(f, seg), seg + 1);
        return vi + " as " + RdmaTcpFrame.type(f, 0) + (RdmaTcpFrame.begin(f, 0) ? " B" : "")
                + (RdmaTcpFrame.end(f, 0) ? " E" : "");
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void activeProvider_framesEverySegmentWithItsConnectionId_aValidCrc_andBAndE(ReliabilityLevel level)
            throws Exception {
        try (Fixture f = new Fixture(framed("server"), framed("client"));
                ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Vi vi = f.client.createVi(f.clientAttributes(level), null, null);
            CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> {
                try {
                    vi.connectRequest(CLIENT, new ViNetAddress(new InetSocketAddress(ss.getInetAddress(),
                            ss.getLocalPort()), SERVER, Encapsulation.RDMATCP), T);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            try (RawPeer raw = RawPeer.accept(ss, Encapsulation.RDMATCP)) {
                raw.acceptRequest(RawPeer.ce(level, 1 << 20, 4, SERVER, CLIENT), 0);
                long id = raw.connectionId; // named by the request's frame
                List<byte[]> frames = new ArrayList<>();
                frames.add(raw.lastFrame);
                connected.get(20, TimeUnit.SECONDS);
                MemoryRegion local = f.clientRegion(200_000);
                Fixture.fill(local, 0, 200_000, 9);
                // 3 segments of at most 32 KiB each, the last ones with padding (3 and 2 bytes)
                vi.postSend(Descriptor.send().data(local, 0, 80_001));
                vi.postSend(Descriptor.rdmaWrite(0x10_0000, 5).data(local, 0, 70_002));
                Descriptor read = Descriptor.rdmaRead(0x20_0000, 6).data(local, 150_000, 1000);
                if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                    vi.postSend(read);
                }
                List<String> seen = new ArrayList<>();
                SegmentView readRequest = null;
                while (seen.size() < (level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 6 : 7)) {
                    SegmentView v = raw.read(); // checked: CRC, this Connection ID, header agreeing with the segment
                    frames.add(raw.lastFrame);
                    if (v.type() == SegmentType.NOP) {
                        continue;
                    }
                    seen.add(describe(raw.lastFrame));
                    if (v.type() == SegmentType.RDMA_READ_REQUEST) {
                        readRequest = v;
                    }
                }
                assertThat(describe(frames.get(0))).isEqualTo("CONNECT_REQUEST as SEND B E");
                List<String> expected = new ArrayList<>(List.of("SEND as SEND B", "SEND as SEND", "SEND as SEND E",
                        "RDMA_WRITE as RDMA_WRITE B", "RDMA_WRITE as RDMA_WRITE", "RDMA_WRITE as RDMA_WRITE E"));
                if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                    expected.add("RDMA_READ_REQUEST as RDMA_READ_REQUEST B E");
                }
                assertThat(seen).containsExactlyElementsOf(expected);
                for (byte[] frame : frames) {
                    ByteBuffer fb = ByteBuffer.wrap(frame);
                    assertThat(RdmaTcpFrame.connectionId(fb, 0)).isEqualTo(id);
                    int segmentLength = RdmaTcpFrame.segmentLength(fb, 0);
                    assertThat(frame.length).isEqualTo(RdmaTcpFrame.frameLength(segmentLength)).isEqualTo(
                            (segmentLength + 3) / 4 * 4 + 4);
                    assertThat(Arrays.copyOfRange(frame, segmentLength, frame.length - 4)).as("zero padding")
                            .isEqualTo(new byte[RdmaTcpFrame.padding(segmentLength)]);
                    assertThat(fb.getInt(frame.length - 4)).as("CRC, recomputed independently")
                            .isEqualTo(referenceCrc(frame, 0, frame.length - 4));
                    assertThat(RdmaTcpFrame.order(fb, 0)).isZero();
                }
                if (readRequest != null) { // the raw peer's framed answer is taken
                    byte[] data = filled(1000, 10);
                    raw.write(raw.segment(SegmentType.RDMA_READ_RESPONSE, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                            readRequest.messageNumber(), 0, 0, null, data));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!read.isDone() && System.nanoTime() < deadline) {
                        Thread.sleep(2);
                    }
                    assertThat(read.status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
                    assertThat(Fixture.bytes(local, 150_000, 1000)).isEqualTo(data);
                }
            }
        }
    }

    // ------------------------------------------------------------------ security over the frame (§9.11)

    /** HMAC-SHA256 with {@link #KEY} over {@code bytes} with the 32 bytes at {@code mac} zeroed. */
    static byte[] hmac(byte[] bytes, int mac) throws Exception {
        byte[] copy = bytes.clone();
        Arrays.fill(copy, mac, mac + 32, (byte) 0);
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(KEY, "HmacSHA256"));
        return m.doFinal(copy);
    }

    /** A Connect Request with Security Type 1 and the current timestamp; the HMAC left zero. */
    private static ByteBuffer requestToSign(RawPeer raw) {
        ConnectRequest r = new ConnectRequest(raw.nextMessage, 0, ConnectionHeader.toBeSigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false, false), CLIENT,
                1 << 20, 0, SERVER));
        ByteBuffer seg = ByteBuffer.allocate(r.encodedLength());
        r.encode(seg, 0);
        seg.putLong(timestampAt(seg), System.currentTimeMillis());
        return seg;
    }

    /** Offset of the timestamp in a Connect Request/Accept segment; the HMAC follows it. */
    private static int timestampAt(ByteBuffer seg) {
        return ConnectionHeader.securityTypeOffset(seg, SegmentHeader.LENGTH) + 4;
    }

    @Test
    void keyedListener_acceptsARequestSignedOverFrameHeaderAndSegment_andRejectsOneSignedOverTheSegmentOnly()
            throws Exception {
        try (Fixture f = new Fixture(framed("server").withKey(KEY), framed("client"));
                ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);

            // signed over the native segment only, as native framing signs: rejected with IS 11
            try (RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP)) {
                ByteBuffer seg = requestToSign(raw);
                int mac = timestampAt(seg) + 8;
                seg.put(mac, hmac(seg.array(), mac));
                raw.write(seg.array()); // framed, valid CRC
                SegmentView answer = raw.read();
                assertThat(ControlSegment.decode(answer.buffer(), 0, answer.segmentLength()))
                        .isEqualTo(new ConnectReject(IsCode.SECURITY_REJECTED));
            }

            // signed over the frame header and the segment (VITCP-PROFILE §9.11): accepted
            try (RawPeer raw = RawPeer.connect(f.server.rdmaTcpAddress(), Encapsulation.RDMATCP)) {
                ByteBuffer seg = requestToSign(raw);
                byte[] frame = raw.onWire(seg.array());
                int segmentLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(frame), 0);
                assertThat(RdmaTcpFrame.padding(segmentLength)).isZero();
                int mac = RdmaTcpFrame.SHORT_HEADER + timestampAt(seg) + 8;
                System.arraycopy(hmac(Arrays.copyOf(frame, segmentLength), mac), 0, frame, mac, 32);
                raw.writeRaw(recrc(frame));
                SegmentView answer = raw.read();
                assertThat(ControlSegment.decode(answer.buffer(), 0, answer.segmentLength()))
                        .isInstanceOf(ConnectAccept.class);
                // the provider signs its Accept the same way: over its frame header and segment
                byte[] acceptFrame = raw.lastFrame;
                int acceptLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(acceptFrame), 0);
                ByteBuffer acceptSeg = ByteBuffer.wrap(acceptFrame, RdmaTcpFrame.SHORT_HEADER,
                        acceptLength - RdmaTcpFrame.SHORT_HEADER).slice();
                int acceptMac = RdmaTcpFrame.SHORT_HEADER + timestampAt(acceptSeg) + 8;
                assertThat(Arrays.copyOfRange(acceptFrame, acceptMac, acceptMac + 32))
                        .isEqualTo(hmac(Arrays.copyOf(acceptFrame, acceptLength), acceptMac));
                accepted.get(20, TimeUnit.SECONDS);
                assertThat(vi.state()).isEqualTo(ViState.CONNECTED);
            }
        }
    }
}

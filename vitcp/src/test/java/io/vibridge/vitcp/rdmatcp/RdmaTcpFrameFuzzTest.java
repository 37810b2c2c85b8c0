package io.vibridge.vitcp.rdmatcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectionPeer;
import io.vibridge.vitcp.engine.EngineOptions;
import io.vibridge.vitcp.engine.EngineOutput;
import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectNoMatch;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.Segments;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fixed-seed fuzzing of seed-004 framing (VITCP-PROFILE §8, §9.11): random bytes and mutated valid frames
 * (bit flips, truncated and extended lengths, random Segment Length, CLEN and type bits, changed header
 * fields and control data, the CRC recomputed half of the time so that the mutation reaches the checks
 * after it) through {@link RdmaTcpFrame#check}, where nothing may escape and every OK frame must be
 * consistent; through a passive engine in random chunkings, where nothing may escape {@code receive} and
 * the only outcomes are waiting or a clean close; and into connected engine pairs as frames with the right
 * Connection ID and CRC whose content is mutated, where nothing may escape either.
 */
class RdmaTcpFrameFuzzTest {

    private static final long SEED = 0x004E_75209DL;
    private static final int FRAMES = 100_000;
    private static final int STREAMS = 20_000;
    private static final int PAIRS = 3_000;
    private static final long ID = 0x6A09E667F3BCC908L;
    private static final Discriminator A = Discriminator.ofUtf8("a");
    private static final Discriminator B = Discriminator.ofUtf8("b");

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    // ------------------------------------------------------------------ valid segments and frames

    private static final SegmentType[] DATA = {SegmentType.SEND, SegmentType.RDMA_WRITE, SegmentType.RDMA_READ_REQUEST,
            SegmentType.RDMA_READ_RESPONSE, SegmentType.SEND_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED,
            SegmentType.RDMA_READ_REQUEST_UNORDERED};

    /** A valid VI/TCP segment of any type, built with the wire codecs. */
    static byte[] validSegment(Random rnd) {
        int kind = rnd.nextInt(12);
        if (kind < 7) {
            SegmentType type = DATA[kind];
            boolean single = type.isRdmaReadRequest();
            int payload = single ? 0 : rnd.nextInt(4) == 0 ? rnd.nextInt(4) : rnd.nextInt(600);
            long offset = single || rnd.nextBoolean() ? 0 : rnd.nextInt(1 << 20);
            boolean eom = single || rnd.nextBoolean();
            int flags = (eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0)
                    | (eom && rnd.nextBoolean() && !single && type != SegmentType.RDMA_READ_RESPONSE
                            ? SegmentHeader.FLAG_IMMEDIATE : 0);
            ByteBuffer b = ByteBuffer.allocate(Segments.headerLength(type) + payload);
            int h = Segments.writeData(b, 0, type, flags, payload, offset, rnd.nextInt(), rnd.nextInt(100),
                    rnd.nextInt(100), rnd.nextInt(65536), 0, 0, rnd.nextInt(1 << 20), 7, offset + payload + rnd.nextInt(50));
            byte[] data = new byte[payload];
            rnd.nextBytes(data);
            b.put(h, data);
            return b.array();
        }
        if (kind == 7) {
            ByteBuffer b = ByteBuffer.allocate(SegmentHeader.LENGTH);
            Segments.writeNop(b, 0, rnd.nextInt(100), rnd.nextInt(100), rnd.nextInt(65536), 0, 0);
            return b.array();
        }
        ControlSegment c = switch (kind) {
            case 8 -> new ConnectRequest(rnd.nextInt(), 0, rnd.nextInt(65536), header(rnd, A, B));
            case 9 -> new ConnectAccept(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), header(rnd, B, A));
            case 10 -> new ConnectReject(rnd.nextInt(17));
            default -> new ConnectNoMatch();
        };
        ByteBuffer b = ByteBuffer.allocate(c.encodedLength());
        c.encode(b, 0);
        return b.array();
    }

    private static ConnectionHeader header(Random rnd, Discriminator calling, Discriminator called) {
        ReliabilityLevel level = ReliabilityLevel.values()[rnd.nextInt(3)];
        return ConnectionHeader.unsigned(ConnectionAttributes.of(level, true,
                level != ReliabilityLevel.UNRELIABLE_DELIVERY, rnd.nextBoolean(), false, false), calling,
                rnd.nextBoolean() ? 1 << 20 : rnd.nextInt(1 << 17), rnd.nextInt(8), called);
    }

    static byte[] frame(byte[] segment, long id) {
        return RdmaTcpFrame.frame(ByteBuffer.wrap(segment), 0, segment.length, id).array();
    }

    private static int declared(byte[] f) {
        return ((f[2] & 0xFF) << 8) | (f[3] & 0xFF);
    }

    /** Resizes a frame to what its Segment Length announces (random bytes added) and recomputes its CRC. */
    static byte[] recrc(byte[] f, Random rnd) {
        int len = RdmaTcpFrame.frameLength(declared(f));
        byte[] g = Arrays.copyOf(f, len);
        for (int i = f.length; i < len - 4; i++) {
            g[i] = (byte) rnd.nextInt();
        }
        ByteBuffer.wrap(g).putInt(len - 4, RdmaTcpFrameGoldenTest.referenceCrc(g, 0, len - 4));
        return g;
    }

    /** A mutated valid frame, or random bytes; the CRC recomputed half of the time. */
    static byte[] mutate(byte[] frame, Random rnd) {
        byte[] f = frame.clone();
        switch (rnd.nextInt(11)) {
            case 0 -> {
                return f; // unmodified
            }
            case 1, 2 -> { // 1..4 bit flips anywhere
                for (int k = rnd.nextInt(4); k >= 0; k--) {
                    int i = rnd.nextInt(f.length);
                    f[i] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            case 3 -> f = Arrays.copyOf(f, rnd.nextInt(f.length)); // truncated
            case 4 -> { // extended, the Segment Length saying so (or not)
                int n = 1 + rnd.nextInt(16);
                f = Arrays.copyOf(f, f.length + n);
                if (rnd.nextBoolean()) {
                    int len = Math.min(65535, declared(f) + n);
                    f[2] = (byte) (len >>> 8);
                    f[3] = (byte) len;
                }
            }
            case 5 -> { // random Segment Length, small or any
                int len = rnd.nextBoolean() ? rnd.nextInt(128) : rnd.nextInt(65536);
                f[2] = (byte) (len >>> 8);
                f[3] = (byte) len;
            }
            case 6 -> f[RdmaTcpFrame.OFF_CLEN] = (byte) (rnd.nextBoolean() ? rnd.nextInt(20) : rnd.nextInt(256));
            case 7 -> f[1] = (byte) (rnd.nextBoolean() ? f[1] & ~3 | rnd.nextInt(4) : rnd.nextInt(256)); // type bits
            case 8 -> { // a byte of the control data: the VI/TCP header and its RDMA or CE header
                int hdr = RdmaTcpFrame.headerLength(ByteBuffer.wrap(f), 0);
                int clen = (f[RdmaTcpFrame.OFF_CLEN] & 0xFF) * 4;
                int i = hdr + rnd.nextInt(Math.max(1, Math.min(clen, f.length - 4 - hdr)));
                f[i] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : f[i] ^ (1 << rnd.nextInt(8)));
            }
            case 9 -> { // a 32-bit field of the frame header after the Connection ID
                int at = 12 + 4 * rnd.nextInt(5);
                ByteBuffer.wrap(f).putInt(at, rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(4));
            }
            default -> { // random bytes, often with a plausible start
                f = new byte[rnd.nextInt(120)];
                rnd.nextBytes(f);
                if (f.length > 4 && rnd.nextBoolean()) {
                    f[0] = 1;
                    f[2] = 0;
                    f[3] = (byte) (48 + rnd.nextInt(72));
                }
            }
        }
        return f.length >= 20 && rnd.nextBoolean() ? recrc(f, rnd) : f;
    }

    // ------------------------------------------------------------------ the frame check

    @Test
    void check_neverThrows_andEveryOkFrameIsConsistent() {
        Random rnd = new Random(SEED);
        Map<FrameCheck, Integer> outcomes = new EnumMap<>(FrameCheck.class);
        for (int i = 0; i < FRAMES; i++) {
            long id = rnd.nextInt(8) == 0 ? rnd.nextLong() : ID;
            byte[] f = mutate(frame(validSegment(rnd), id), rnd);
            // the input at a random offset of junk, ending where its (maybe mutated) Segment Length says the
            // frame ends or later (check's contract: the frameLength bytes are there), but not always later
            int at = rnd.nextInt(8);
            byte[] bytes = new byte[at + Math.max(f.length, 4)];
            rnd.nextBytes(bytes);
            System.arraycopy(f, 0, bytes, at, f.length);
            int end = at + RdmaTcpFrame.frameLength(((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF));
            if (bytes.length < end) {
                int was = bytes.length;
                bytes = Arrays.copyOf(bytes, end);
                for (int k = was; k < end; k++) {
                    bytes[k] = (byte) rnd.nextInt();
                }
            }
            ByteBuffer b = ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length + (rnd.nextBoolean() ? 0 : rnd.nextInt(4))))
                    .order(rnd.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            boolean any = rnd.nextInt(4) == 0;
            FrameCheck c;
            try {
                c = RdmaTcpFrame.check(b, at, ID, any);
            } catch (Throwable t) {
                throw new AssertionError("check threw " + t + " on iteration " + i + ": " + hex(f), t);
            }
            outcomes.merge(c, 1, Integer::sum);
            if (c == FrameCheck.OK) {
                assertConsistent(b, at, any, i);
            }
        }
        // the mutations reach every outcome, or the fuzzer proves little
        for (FrameCheck c : FrameCheck.values()) {
            assertThat(outcomes.getOrDefault(c, 0)).as("%s in %s", c, outcomes).isGreaterThan(FRAMES / 200);
        }
        assertThat(outcomes.get(FrameCheck.OK)).isGreaterThan(FRAMES / 10);
    }

    /**
     * An OK frame: the CRC is the reference CRC, the Connection ID is the one asked for, and when the
     * control data is a VI/TCP header of version 1 and a defined type, framing that segment anew gives the
     * same frame (reserved bits and padding aside): the header says what the segment says.
     */
    private static void assertConsistent(ByteBuffer b, int at, boolean any, int iteration) {
        int segmentLength = RdmaTcpFrame.segmentLength(b, at);
        int length = RdmaTcpFrame.frameLength(segmentLength);
        byte[] f = new byte[length];
        b.get(at, f);
        assertThat(ByteBuffer.wrap(f).getInt(length - 4)).isEqualTo(
                RdmaTcpFrameGoldenTest.referenceCrc(f, 0, length - 4));
        if (!any) {
            assertThat(RdmaTcpFrame.connectionId(b, at)).isEqualTo(ID);
        }
        int hdr = RdmaTcpFrame.headerLength(b, at);
        ByteBuffer seg = ByteBuffer.wrap(f, hdr, segmentLength - hdr).slice();
        if (SegmentHeader.version(seg, 0) != 1 || !SegmentType.isDefined(SegmentHeader.typeCode(seg, 0))) {
            return; // the VI/TCP layer's to refuse
        }
        byte[] again = frame(Arrays.copyOfRange(f, hdr, segmentLength), RdmaTcpFrame.connectionId(b, at));
        byte[] normal = f.clone();
        normal[1] &= 0x0F; // reserved bits
        normal[18] = 0;
        Arrays.fill(normal, segmentLength, length - 4, (byte) 0); // padding
        ByteBuffer.wrap(normal).putInt(length - 4, RdmaTcpFrameGoldenTest.referenceCrc(normal, 0, length - 4));
        assertThat(hex(again)).as("iteration %d", iteration).isEqualTo(hex(normal));
    }

    // ------------------------------------------------------------------ a passive engine

    /** An owner that does nothing: no receives, no memory, never answers a Connect Request. */
    static class Idle implements ConnectionPeer {
        int connectFailed;

        @Override
        public InboundReceive takeReceive() {
            return null;
        }

        @Override
        public int checkRemoteAccess(long address, int handle, long length, boolean write) {
            return IsCode.INVALID_MEMORY_HANDLE;
        }

        @Override
        public void rdmaPlace(long address, int handle, ByteBuffer src) {
            throw new AssertionError("placed although access was refused");
        }

        @Override
        public ByteBuffer rdmaSource(long address, int handle, int length) {
            throw new AssertionError("read although access was refused");
        }

        @Override
        public void connectRequested(ViConnection connection) {
        }

        @Override
        public void connected(ViConnection connection) {
            throw new AssertionError("connected without an accept");
        }

        @Override
        public void connectFailed(ViConnection connection, ConnectFailure failure, int isCode) {
            connectFailed++;
        }

        @Override
        public void workCompleted(OutboundWork work, int status, long length) {
        }

        @Override
        public void receiveCompleted(InboundReceive receive, int status, long length, int immediate) {
        }

        @Override
        public void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode) {
            throw new AssertionError("broken before connected");
        }
    }

    /** Feeds {@code stream} in random chunks of 1..max bytes; every byte must be consumed. */
    private static void chunked(ViConnection to, byte[] stream, Random rnd, int max) {
        for (int at = 0; at < stream.length;) {
            int n = Math.min(stream.length - at, 1 + rnd.nextInt(max));
            ByteBuffer chunk = ByteBuffer.wrap(stream, at, n).slice();
            to.receive(chunk);
            assertThat(chunk.hasRemaining()).isFalse(); // no admission is ever refused here
            at += n;
        }
    }

    private static final int[] MAX_CHUNK = {1, 3, 16, 100, 5000};

    @Test
    void passiveEngine_fedFuzzedFrames_inRandomChunkings_waitsOrClosesCleanly() {
        Random rnd = new Random(SEED + 1);
        int closed = 0;
        int framing = 0;
        int rejected = 0;
        for (int s = 0; s < STREAMS; s++) {
            long id = rnd.nextLong();
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            if (rnd.nextBoolean()) { // a valid Connect Request first
                stream.writeBytes(frame(segment(new ConnectRequest(rnd.nextInt(), 0, 4, header(rnd, A, B))), id));
            }
            for (int k = rnd.nextInt(6); k >= 0; k--) {
                stream.writeBytes(mutate(frame(validSegment(rnd), rnd.nextInt(8) == 0 ? rnd.nextLong() : id), rnd));
            }
            byte[] all = stream.toByteArray();
            Idle peer = new Idle();
            ViConnection c = ViConnection.incoming(peer, EngineOptions.of(null).withEncapsulation(Encapsulation.RDMATCP), 0);
            byte[] out;
            try {
                chunked(c, all, rnd, MAX_CHUNK[rnd.nextInt(MAX_CHUNK.length)]);
                out = drain(c);
            } catch (Throwable t) {
                throw new AssertionError("stream " + s + " escaped: " + t + ": " + hex(all), t);
            }
            if (!c.closeRequested()) {
                assertThat(c.state()).isIn(ViConnection.State.PASSIVE_INCOMING, ViConnection.State.PASSIVE_PENDING_ACCEPT);
                assertThat(out).isEmpty();
                continue;
            }
            closed++;
            assertThat(c.state()).as("stream %d", s).isEqualTo(ViConnection.State.DISCONNECTED);
            assertThat(c.failure()).as("stream %d", s).isNotNull();
            assertThat(peer.connectFailed).isEqualTo(1);
            if (c.framingFailure() != null) {
                framing++;
                assertThat(c.failure()).isEqualTo(ConnectFailure.PROTOCOL);
                assertThat(c.lastProtocolError()).contains(c.framingFailure().description());
            }
            if (out.length > 0) { // only ever a Connect Reject, framed with the first frame's Connection ID
                rejected++;
                assertThat(c.failure()).isEqualTo(ConnectFailure.REJECTED);
                long named = RdmaTcpFrame.connectionId(ByteBuffer.wrap(all), 0);
                ByteBuffer o = ByteBuffer.wrap(out);
                assertThat(out.length).isEqualTo(RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(o, 0)));
                assertThat(RdmaTcpFrame.check(o, 0, named, false)).isEqualTo(FrameCheck.OK);
                ByteBuffer seg = ByteBuffer.wrap(out, RdmaTcpFrame.SHORT_HEADER, out.length - RdmaTcpFrame.SHORT_HEADER - 4)
                        .slice();
                assertThat(ControlSegment.decode(seg, 0, seg.remaining())).isInstanceOf(ConnectReject.class);
            }
        }
        assertThat(closed).isGreaterThan(STREAMS / 3);
        assertThat(framing).isGreaterThan(STREAMS / 10);
        assertThat(rejected).isPositive();
    }

    private static byte[] segment(ControlSegment c) {
        ByteBuffer b = ByteBuffer.allocate(c.encodedLength());
        c.encode(b, 0);
        return b.array();
    }

    /** Everything the engine has to write, each segment confirmed written. */
    static byte[] drain(ViConnection from) {
        return EngineOutput.written(from);
    }

    // ------------------------------------------------------------------ connected pairs

    /** An owner with 64 KiB of memory behind handle 7 and a few receives; it accepts every request. */
    static final class Memory implements ConnectionPeer {
        final ByteBuffer memory = ByteBuffer.allocate(64 * 1024);
        final ArrayDeque<InboundReceive> receives = new ArrayDeque<>();
        LocalEndpoint accept;

        @Override
        public InboundReceive takeReceive() {
            return receives.poll();
        }

        @Override
        public int checkRemoteAccess(long address, int handle, long length, boolean write) {
            if (handle != 7) {
                return IsCode.INVALID_MEMORY_HANDLE;
            }
            return address >= 0 && length >= 0 && address + length <= memory.capacity() ? 0 : IsCode.ADDRESS_OUT_OF_REGION;
        }

        @Override
        public void rdmaPlace(long address, int handle, ByteBuffer src) {
            memory.put((int) address, src, src.position(), src.remaining()); // throws outside the region
        }

        @Override
        public ByteBuffer rdmaSource(long address, int handle, int length) {
            return memory.slice((int) address, length);
        }

        @Override
        public void connectRequested(ViConnection c) {
            c.accept(accept, receives.size());
        }

        @Override
        public void connected(ViConnection c) {
        }

        @Override
        public void connectFailed(ViConnection c, ConnectFailure f, int is) {
        }

        @Override
        public void workCompleted(OutboundWork w, int status, long length) {
        }

        @Override
        public void receiveCompleted(InboundReceive r, int status, long length, int immediate) {
        }

        @Override
        public void broken(ViConnection c, BreakCause cause, int type, int is) {
        }
    }

    /** A receive of {@code capacity} bytes; placing outside it throws. */
    record Recv(ByteBuffer buf) implements InboundReceive {
        @Override
        public long capacity() {
            return buf.capacity();
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            buf.put((int) offset, src, src.position(), src.remaining());
        }
    }

    /** Outbound work over a heap buffer. */
    static final class Work implements OutboundWork {
        final int op;
        final ByteBuffer data;
        final long remote;
        final int handle;
        int msg;

        Work(int op, ByteBuffer data, long remote, int handle) {
            this.op = op;
            this.data = data;
            this.remote = remote;
            this.handle = handle;
        }

        @Override
        public int operation() {
            return op;
        }

        @Override
        public boolean hasImmediate() {
            return op != OP_RDMA_READ && (remote & 1) != 0;
        }

        @Override
        public int immediateData() {
            return 42;
        }

        @Override
        public boolean queueFence() {
            return false;
        }

        @Override
        public long length() {
            return data.capacity();
        }

        @Override
        public long remoteAddress() {
            return remote;
        }

        @Override
        public int remoteHandle() {
            return handle;
        }

        @Override
        public int gather(long offset, int length, ByteBuffer[] out, int index) {
            out[index] = data.slice((int) offset, length);
            return 1;
        }

        @Override
        public void scatter(long offset, ByteBuffer src) {
            data.put((int) offset, src, src.position(), src.remaining());
        }

        @Override
        public void messageNumber(int number) {
            msg = number;
        }

        @Override
        public int messageNumber() {
            return msg;
        }
    }

    private static LocalEndpoint endpoint(ReliabilityLevel level, Discriminator d, int imn) {
        return new LocalEndpoint(ConnectionAttributes.of(level, true, level != ReliabilityLevel.UNRELIABLE_DELIVERY,
                true, false, false), d, 1 << 20, 4, imn, 700, 4, null);
    }

    /** The frames of a stream the engine wrote (all valid). */
    private static List<byte[]> frames(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        for (int at = 0; at < stream.length;) {
            int len = RdmaTcpFrame.frameLength(RdmaTcpFrame.segmentLength(ByteBuffer.wrap(stream), at));
            out.add(Arrays.copyOfRange(stream, at, at + len));
            at += len;
        }
        return out;
    }

    /**
     * A frame of the connection with its content mutated, its Connection ID and CRC right: either bytes
     * after the seed-004 header changed in place, or the VI/TCP segment changed and framed anew (so that
     * the header agrees with it and the VI/TCP layer gets it).
     */
    private static byte[] mutateContent(byte[] frame, Random rnd) {
        byte[] f = frame.clone();
        ByteBuffer fb = ByteBuffer.wrap(f);
        int hdr = RdmaTcpFrame.headerLength(fb, 0);
        int segLen = RdmaTcpFrame.segmentLength(fb, 0);
        if (rnd.nextBoolean()) {
            for (int k = rnd.nextInt(3); k >= 0; k--) {
                int i = hdr + rnd.nextInt(segLen - hdr);
                f[i] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : f[i] ^ (1 << rnd.nextInt(8)));
            }
            return recrc(f, rnd);
        }
        byte[] seg = Arrays.copyOfRange(f, hdr, segLen);
        ByteBuffer sb = ByteBuffer.wrap(seg);
        switch (rnd.nextInt(9)) {
            case 0 -> seg[1] = (byte) (rnd.nextInt(12) << 3 | rnd.nextInt(8)); // type and flags
            case 1 -> sb.putInt(SegmentHeader.OFF_DATA_OFFSET, rnd.nextBoolean() ? rnd.nextInt(5000) : rnd.nextInt());
            case 2 -> sb.putInt(SegmentHeader.OFF_MESSAGE_NUMBER, sb.getInt(SegmentHeader.OFF_MESSAGE_NUMBER)
                    + rnd.nextInt(5) - 2);
            case 3 -> sb.putInt(SegmentHeader.OFF_MESSAGE_ACK, sb.getInt(SegmentHeader.OFF_MESSAGE_ACK) + rnd.nextInt(9) - 4);
            case 4 -> { // Remote Error Code: an error report
                seg[SegmentHeader.OFF_VI_ERROR_TYPE] = (byte) rnd.nextInt(4);
                seg[SegmentHeader.OFF_IS_ERROR_CODE] = (byte) rnd.nextInt(20);
            }
            case 5 -> sb.putShort(SegmentHeader.OFF_RX_DESCRIPTORS_POSTED, (short) rnd.nextInt());
            case 6 -> { // RDMA header fields, where there is one
                if (seg.length >= 40) {
                    int at = SegmentHeader.LENGTH + 4 * rnd.nextInt(4);
                    sb.putInt(at, rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(70_000));
                }
            }
            case 7 -> { // payload cut or grown, the VI/TCP Segment Length following (or not)
                int len = Math.max(SegmentHeader.LENGTH, seg.length + rnd.nextInt(200) - 100);
                seg = Arrays.copyOf(seg, len);
                sb = ByteBuffer.wrap(seg);
                if (rnd.nextInt(4) != 0) {
                    sb.putShort(SegmentHeader.OFF_SEGMENT_LENGTH, (short) len);
                }
            }
            default -> sb.putShort(SegmentHeader.OFF_SEGMENT_LENGTH, (short) rnd.nextInt(2000));
        }
        try {
            return frame(seg, ID);
        } catch (IndexOutOfBoundsException e) {
            // a segment too short for the RDMA header its type code names cannot be framed anew: change bytes instead
            f[hdr + rnd.nextInt(segLen - hdr)] ^= (byte) (1 + rnd.nextInt(255));
            return recrc(f, rnd);
        }
    }

    @Test
    void connectedPairs_receivingFramesWithMutatedContent_throwNothing() {
        Random rnd = new Random(SEED + 2);
        int broken = 0;
        for (int p = 0; p < PAIRS; p++) {
            ReliabilityLevel level = ReliabilityLevel.values()[p % 3];
            Memory a = new Memory();
            Memory b = new Memory();
            a.accept = endpoint(level, A, 5);
            b.accept = endpoint(level, B, 77);
            for (int i = 0; i < 2; i++) {
                b.receives.add(new Recv(ByteBuffer.allocate(1 + rnd.nextInt(3000))));
                a.receives.add(new Recv(ByteBuffer.allocate(3000)));
            }
            ViConnection ca = ViConnection.active(a, a.accept, B, 2, 0, 1_000_000_000L, Encapsulation.RDMATCP, ID);
            ViConnection cb = ViConnection.incoming(b, EngineOptions.of(null).withEncapsulation(Encapsulation.RDMATCP), 0);
            cb.receive(ByteBuffer.wrap(drain(ca)));
            ca.receive(ByteBuffer.wrap(drain(cb)));
            assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
            for (int w = rnd.nextInt(4); w >= 0; w--) {
                int len = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(3000);
                long remote = rnd.nextInt(70_000);
                int handle = rnd.nextInt(10) == 0 ? 8 : 7;
                int op = rnd.nextInt(level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 2 : 3);
                ca.post(new Work(op, ByteBuffer.allocate(len), remote, handle));
            }
            List<byte[]> frames = frames(drain(ca));
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            for (byte[] f : frames) {
                int what = rnd.nextInt(8);
                if (what == 0) {
                    continue; // dropped
                }
                stream.writeBytes(what < 4 ? mutateContent(f, rnd) : f);
                if (what == 7) {
                    stream.writeBytes(f); // repeated
                }
            }
            byte[] ab = stream.toByteArray();
            int max = MAX_CHUNK[rnd.nextInt(MAX_CHUNK.length)];
            byte[] ba = null;
            try {
                chunked(cb, ab, rnd, max);
                ba = drain(cb);
                chunked(ca, ba, rnd, max);
                chunked(cb, drain(ca), rnd, max);
                chunked(ca, drain(cb), rnd, max);
            } catch (Throwable t) {
                fail("pair " + p + " at " + level + " escaped: " + t + "\na->b " + hex(ab) + "\nb->a "
                        + (ba == null ? "" : hex(ba)), t);
            }
            for (ViConnection c : new ViConnection[] {ca, cb}) {
                assertThat(c.state()).isIn(ViConnection.State.CONNECTED, ViConnection.State.ERROR);
                if (c.state() == ViConnection.State.ERROR) {
                    assertThat(c.closeRequested()).isTrue();
                }
            }
            if (cb.state() == ViConnection.State.ERROR) {
                broken++;
            }
        }
        assertThat(broken).isBetween(PAIRS / 10, PAIRS - PAIRS / 10); // both outcomes are exercised
    }
}

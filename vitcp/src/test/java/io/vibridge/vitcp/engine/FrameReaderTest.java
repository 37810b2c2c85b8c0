package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.EngineTest.Recv;
import io.vibridge.vitcp.engine.EngineTest.Side;
import io.vibridge.vitcp.engine.EngineTest.Work;
import io.vibridge.vitcp.provider.HmacConnectSecurity;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.security.ConnectSigner;
import io.vibridge.vitcp.wire.ConnectAccept;
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
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine in seed-004 RDMA/TCP framing (VITCP-PROFILE §8, §9.11), pumped in memory, no sockets: the
 * {@link FrameReader} in front of the segment reader (frames found by length, verified before anything
 * of them goes on, in place or collected across reads, admission stops inside either), the
 * {@link FrameWriter} behind {@link ViConnection#produce}, the Connection ID the active side chose, the
 * framing failures that end a connection or its setup, and the HMAC over the frame header.
 */
class FrameReaderTest {

    static final long ID = 0x1D2C3B4A59687766L;
    static final EngineOptions FRAMED = EngineOptions.of(null).withEncapsulation(Encapsulation.RDMATCP);

    /** A side that records what reaches the owner: admissions, receives taken, placements. */
    static class Owner extends Side {
        final List<String> calls = new ArrayList<>();
        boolean admit = true;

        @Override
        public boolean admitMessage(SegmentType type, int messageNumber) {
            calls.add("admit " + type + " " + messageNumber + (admit ? "" : " refused"));
            return admit;
        }

        @Override
        public InboundReceive takeReceive() {
            calls.add("take");
            return super.takeReceive();
        }

        @Override
        public void rdmaPlace(long address, int handle, ByteBuffer src) {
            calls.add("place " + address + " " + src.remaining());
            super.rdmaPlace(address, handle, src);
        }

        /** What reached memory or a receive. */
        List<String> delivered() {
            return calls.stream().filter(c -> c.startsWith("place") || c.equals("take")).toList();
        }
    }

    static ViConnection active(Side a, ReliabilityLevel level, long id) {
        return ViConnection.active(a, EngineTest.endpoint(level, "a", 5), Discriminator.ofUtf8("b"), 0, 0,
                1_000_000_000L, Encapsulation.RDMATCP, id);
    }

    static ViConnection passive(Side b, ReliabilityLevel level) {
        b.accept = EngineTest.endpoint(level, "b", 77);
        return ViConnection.incoming(b, FRAMED, 0);
    }

    /** a (IMN 5, Connection ID {@link #ID}) connected to b (IMN 77) in RDMA/TCP framing. */
    static ViConnection[] connected(Side a, Side b, ReliabilityLevel level) {
        ViConnection ca = active(a, level, ID);
        ViConnection cb = passive(b, level);
        feed(cb, EngineTest.output(ca));
        feed(ca, EngineTest.output(cb));
        assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        a.events.clear();
        b.events.clear();
        if (b instanceof Owner o) {
            o.calls.clear();
        }
        return new ViConnection[] {ca, cb};
    }

    static void feed(ViConnection to, byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        to.receive(in);
        assertThat(in.hasRemaining()).isFalse();
    }

    /**
     * The frames of a stream an engine wrote, split at their Segment Lengths; each must check OK with
     * {@code id} and have zero padding (the sender MUST, seed 004 §3.4; the receiver ignores it).
     */
    static List<byte[]> frames(byte[] stream, long id) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(stream);
        int at = 0;
        while (at < stream.length) {
            int segmentLength = RdmaTcpFrame.segmentLength(b, at);
            int len = RdmaTcpFrame.frameLength(segmentLength);
            assertThat(RdmaTcpFrame.check(b, at, id, false)).as("frame at %d", at).isEqualTo(FrameCheck.OK);
            assertThat(Arrays.copyOfRange(stream, at + segmentLength, at + len - 4)).as("padding of the frame at %d", at)
                    .isEqualTo(new byte[RdmaTcpFrame.padding(segmentLength)]);
            out.add(Arrays.copyOfRange(stream, at, at + len));
            at += len;
        }
        return out;
    }

    /** The VI/TCP segment a frame carries. */
    static ByteBuffer unwrapped(byte[] frame) {
        ByteBuffer f = ByteBuffer.wrap(frame);
        int hdr = RdmaTcpFrame.headerLength(f, 0);
        return ByteBuffer.wrap(Arrays.copyOfRange(frame, hdr, RdmaTcpFrame.segmentLength(f, 0)));
    }

    static byte[] recrc(byte[] f) {
        RdmaTcpFrame.putCrc(ByteBuffer.wrap(f), f.length - 4, RdmaTcpCrc.of(f, 0, f.length - 4));
        return f;
    }

    static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        parts.forEach(o::writeBytes);
        return o.toByteArray();
    }

    // ------------------------------------------------------------------ data transfer

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void connectedPair_sendsWritesAndReads_inFramesCarryingTheConnectionId(ReliabilityLevel level) {
        for (int max : new int[] {1, 7, 100, 5000}) {
            Random rnd = new Random(max);
            Side a = new Side();
            Side b = new Side();
            b.receives.add(new Recv(5000));
            ViConnection[] c = connected(a, b, level);
            byte[] text = new byte[3500]; // four segments of 1000
            rnd.nextBytes(text);
            for (int i = 0; i < 3000; i++) {
                b.memory.put(10_000 + i, (byte) (i * 7));
            }
            c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(text), 0, false));
            c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(text, 0, 3001).slice(), 100, false));
            Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(3000), 10_000, false);
            if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                c[0].post(read);
            }
            byte[] ab = EngineTest.output(c[0]);
            List<byte[]> fab = frames(ab, ID);
            // Send 4 + Write 4 (+ Read Request 1), each segment one frame
            assertThat(fab).hasSize(level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 8 : 9);
            chunked(c[1], ab, rnd, max);
            assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 3500");
            byte[] ba = EngineTest.output(c[1]); // the Read Response, ACKs and credits
            frames(ba, ID);
            chunked(c[0], ba, rnd, max);
            assertThat(b.memory.slice(100, 3001)).isEqualTo(ByteBuffer.wrap(text, 0, 3001));
            if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                for (int i = 0; i < 3000; i++) {
                    assertThat(read.data.get(i)).isEqualTo((byte) (i * 7));
                }
            }
            assertThat(a.completed).hasSize(level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 2 : 3)
                    .allMatch(s -> !Status.isError(s));
        }
    }

    static void chunked(ViConnection to, byte[] all, Random rnd, int max) {
        int at = 0;
        while (at < all.length) {
            int len = Math.min(all.length - at, 1 + rnd.nextInt(max));
            ByteBuffer chunk = ByteBuffer.wrap(all, at, len).slice();
            to.receive(chunk);
            assertThat(chunk.hasRemaining()).isFalse();
            at += len;
        }
    }

    @Test
    void largestSegmentPayload_isCappedSoThatEveryFrameLengthFits16Bits() {
        Side a = new Side();
        Side b = new Side();
        b.accept = new LocalEndpoint(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false,
                false, false), Discriminator.ofUtf8("b"), 1 << 20, 4, 77, LocalEndpoint.MAX_SEGMENT_PAYLOAD, 8, null);
        ViConnection ca = ViConnection.active(a, new LocalEndpoint(b.accept.attributes(), Discriminator.ofUtf8("a"),
                1 << 20, 4, 5, LocalEndpoint.MAX_SEGMENT_PAYLOAD, 8, null), Discriminator.ofUtf8("b"), 0, 0,
                1_000_000_000L, Encapsulation.RDMATCP, ID);
        ViConnection cb = ViConnection.incoming(b, FRAMED, 0);
        feed(cb, EngineTest.output(ca));
        feed(ca, EngineTest.output(cb));
        byte[] data = new byte[200_000];
        new Random(3).nextBytes(data);
        b.receives.add(new Recv(200_000));
        for (int i = 0; i < 200_000; i++) {
            b.memory.put(300_000 + i, data[i]);
        }
        cb.receivePosted();
        ca.post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
        ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 0, false));
        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(200_000), 300_000, false);
        ca.post(read);
        byte[] ab = EngineTest.output(ca);
        for (byte[] f : frames(ab, ID)) {
            assertThat(unwrapped(f).limit()).isLessThanOrEqualTo(RdmaTcpFrame.MAX_SEGMENT_LENGTH - RdmaTcpFrame.SHORT_HEADER);
        }
        feed(cb, ab);
        byte[] ba = EngineTest.output(cb);
        frames(ba, ID);
        feed(ca, ba);
        assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 200000");
        assertThat(b.memory.slice(0, 200_000)).isEqualTo(ByteBuffer.wrap(data));
        assertThat(read.data.array()).isEqualTo(data);
        assertThat(a.completed).hasSize(3).allMatch(s -> !Status.isError(s));
    }

    // ------------------------------------------------------------------ any chunking

    /** What a passive engine did with a stream: its owner's events, memory, receives, and its output. */
    private record Outcome(List<String> events, List<String> calls, byte[] memory, List<String> received,
            byte[] output) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Outcome x && events.equals(x.events) && calls.equals(x.calls)
                    && Arrays.equals(memory, x.memory) && received.equals(x.received) && Arrays.equals(output, x.output);
        }

        @Override
        public int hashCode() {
            return events.hashCode();
        }
    }

    /** Everything a (Reliable Reception, Connection ID {@link #ID}) sends a fresh passive engine, from its Connect Request on. */
    private static byte[] scriptedStream() {
        Side a = new Side();
        Side b = new Side();
        for (int i = 0; i < 3; i++) {
            b.receives.add(new Recv(4000)); // announced in the Accept: credits for a's three Sends
        }
        ViConnection ca = active(a, ReliabilityLevel.RELIABLE_RECEPTION, ID);
        ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_RECEPTION);
        byte[] request = EngineTest.output(ca);
        feed(cb, request);
        feed(ca, EngineTest.output(cb));
        Random rnd = new Random(11);
        for (int m = 0; m < 9; m++) {
            byte[] data = new byte[m == 4 ? 0 : rnd.nextInt(2500) + 1];
            rnd.nextBytes(data);
            switch (m % 3) {
                case 0 -> ca.post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
                case 1 -> ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 3000L * m, false));
                default -> ca.post(new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(data.length),
                        500_000 + 3000L * m, false));
            }
        }
        byte[] data = EngineTest.output(ca);
        byte[] all = new byte[request.length + data.length];
        System.arraycopy(request, 0, all, 0, request.length);
        System.arraycopy(data, 0, all, request.length, data.length);
        return all;
    }

    private static Outcome outcomeOf(byte[] stream, List<int[]> chunks) {
        Owner b = new Owner();
        List<Recv> recvs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Recv r = new Recv(4000);
            recvs.add(r);
            b.receives.add(r);
        }
        for (int i = 0; i < 60_000; i++) {
            b.memory.put(500_000 + i, (byte) (i * 13));
        }
        ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_RECEPTION);
        for (int[] c : chunks) {
            ByteBuffer in = ByteBuffer.wrap(stream, c[0], c[1]).slice();
            cb.receive(in);
            assertThat(in.hasRemaining()).isFalse();
        }
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        List<String> received = recvs.stream()
                .map(r -> r.status + " " + r.length + " " + HexFormat.of().formatHex(r.buf.array()))
                .toList();
        byte[] memory = new byte[30_000];
        b.memory.get(0, memory);
        return new Outcome(b.events, b.calls, memory, received, EngineTest.output(cb));
    }

    private static List<int[]> split(int length, int... cuts) {
        List<int[]> out = new ArrayList<>();
        int at = 0;
        for (int c : cuts) {
            out.add(new int[] {at, c - at});
            at = c;
        }
        out.add(new int[] {at, length - at});
        return out;
    }

    @Test
    void theSameStream_inEveryChunking_givesTheSameResult() {
        byte[] stream = scriptedStream();
        List<byte[]> frames = frames(stream, ID);
        assertThat(frames.size()).isGreaterThan(12);
        Outcome whole = outcomeOf(stream, split(stream.length));
        assertThat(whole.events).contains("request", "connected").anyMatch(e -> e.startsWith("recv DONE"));
        assertThat(whole.calls).anyMatch(c -> c.startsWith("place"));
        // the Accept, then the Read Responses of the three Reads (with the ACKs)
        assertThat(frames(whole.output, ID)).filteredOn(f -> SegmentHeader.typeCode(unwrapped(f), 0)
                == SegmentType.RDMA_READ_RESPONSE.code()).hasSizeGreaterThanOrEqualTo(3);

        List<List<int[]>> chunkings = new ArrayList<>();
        List<int[]> bytes = new ArrayList<>();
        for (int i = 0; i < stream.length; i++) {
            bytes.add(new int[] {i, 1});
        }
        chunkings.add(bytes); // one byte at a time
        List<int[]> byFrame = new ArrayList<>();
        List<int[]> halves = new ArrayList<>();
        int at = 0;
        for (byte[] f : frames) {
            byFrame.add(new int[] {at, f.length});
            halves.add(new int[] {at, f.length / 2}); // every frame cut in two: each one collected
            halves.add(new int[] {at + f.length / 2, f.length - f.length / 2});
            at += f.length;
        }
        chunkings.add(byFrame);
        chunkings.add(halves);
        for (int seed = 0; seed < 40; seed++) { // random splits, small to large
            Random rnd = new Random(seed);
            int max = new int[] {2, 5, 33, 300, 4000}[seed % 5];
            List<int[]> c = new ArrayList<>();
            for (int p = 0; p < stream.length;) {
                int n = Math.min(stream.length - p, 1 + rnd.nextInt(max));
                c.add(new int[] {p, n});
                p += n;
            }
            chunkings.add(c);
        }
        // two pieces, cut at every position in and around the first three frames (the header, CRC and
        // padding of each), then every 11th byte
        int firstThree = frames.get(0).length + frames.get(1).length + frames.get(2).length;
        for (int cut = 1; cut < stream.length; cut += cut < firstThree + 8 ? 1 : 11) {
            chunkings.add(split(stream.length, cut));
        }
        for (List<int[]> c : chunkings) {
            assertThat(outcomeOf(stream, c)).isEqualTo(whole);
        }
    }

    @Test
    void aFrameSplitAcrossReads_isCollected_andNothingOfItIsPlacedBeforeItsLastByte() {
        Owner probe = new Owner();
        probe.receives.add(new Recv(100)); // a credit for the Send
        Side pa = new Side();
        ViConnection[] pc = connected(pa, probe, ReliabilityLevel.RELIABLE_DELIVERY);
        byte[] data = new byte[901]; // one segment, 3 bytes of padding
        new Random(5).nextBytes(data);
        pc[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 100, false));
        pc[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data, 0, 17).slice(), 0, false));
        List<byte[]> frames = frames(EngineTest.output(pc[0]), ID);
        assertThat(frames).hasSize(2);
        byte[] write = frames.get(0);
        byte[] send = frames.get(1);
        assertThat(RdmaTcpFrame.padding(RdmaTcpFrame.segmentLength(ByteBuffer.wrap(write), 0))).isEqualTo(3);
        for (int cut = 1; cut < write.length; cut += cut < 80 || cut > write.length - 12 ? 1 : 13) {
            Owner b = new Owner();
            b.receives.add(new Recv(100));
            ViConnection[] c = connected(new Side(), b, ReliabilityLevel.RELIABLE_DELIVERY);
            feed(c[1], Arrays.copyOfRange(write, 0, cut));
            assertThat(b.delivered()).as("cut at %d", cut).isEmpty();
            assertThat(b.memory.get(100)).isZero();
            byte[] rest = new byte[write.length - cut + send.length];
            System.arraycopy(write, cut, rest, 0, write.length - cut);
            System.arraycopy(send, 0, rest, write.length - cut, send.length);
            feed(c[1], rest);
            assertThat(b.memory.slice(100, data.length)).isEqualTo(ByteBuffer.wrap(data));
            assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 17");
            assertThat(c[1].state()).isEqualTo(ViConnection.State.CONNECTED);
        }
    }

    // ------------------------------------------------------------------ admission

    @Test
    void admissionStop_insideAFrameVerifiedInPlace_resumesAfterTheSegmentHeader() {
        Owner b = new Owner();
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(new Side(), b, ReliabilityLevel.RELIABLE_DELIVERY);
        byte[] data = new byte[50];
        new Random(1).nextBytes(data);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
        c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 700, false));
        c[0].post(new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(10), 700, false));
        byte[] stream = EngineTest.output(c[0]);
        List<byte[]> frames = frames(stream, ID);
        b.admit = false;
        ByteBuffer in = ByteBuffer.wrap(stream);
        c[1].receive(in);
        assertThat(c[1].awaitingAdmission()).isTrue();
        // stopped right after the VI/TCP header of the first frame (seed-004 header 24 + VI/TCP header 24)
        assertThat(in.position()).isEqualTo(RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH);
        c[1].receive(in); // asked again: refused again, nothing consumed
        c[1].receive(ByteBuffer.allocate(0));
        assertThat(in.position()).isEqualTo(RdmaTcpFrame.SHORT_HEADER + SegmentHeader.LENGTH);
        assertThat(b.delivered()).isEmpty();
        b.admit = true;
        c[1].receive(in);
        assertThat(in.hasRemaining()).isFalse();
        assertThat(c[1].awaitingAdmission()).isFalse();
        assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 50");
        assertThat(b.memory.slice(700, 50)).isEqualTo(ByteBuffer.wrap(data));
        assertThat(b.calls.stream().filter(s -> s.startsWith("admit")))
                .containsExactly("admit SEND 5 refused", "admit SEND 5 refused", "admit SEND 5 refused", "admit SEND 5",
                        "admit RDMA_WRITE 6", "admit RDMA_READ_REQUEST 7");
        // a header-only frame (the Read Request) refused in place: retried with an empty buffer, then its CRC
        assertThat(frames).hasSize(3);
        Owner b2 = new Owner();
        b2.receives.add(new Recv(100));
        ViConnection[] c2 = connected(new Side(), b2, ReliabilityLevel.RELIABLE_DELIVERY);
        feed(c2[1], concat(frames.subList(0, 2))); // the Send and the Write, admitted
        b2.admit = false;
        ByteBuffer in2 = ByteBuffer.wrap(frames.get(2));
        c2[1].receive(in2);
        assertThat(c2[1].awaitingAdmission()).isTrue();
        assertThat(in2.position()).isEqualTo(RdmaTcpFrame.LONG_HEADER + 40); // the whole VI/TCP segment
        assertThat(c2[1].hasOutput()).isFalse();
        b2.admit = true;
        c2[1].receive(ByteBuffer.allocate(0));
        assertThat(c2[1].awaitingAdmission()).isFalse();
        c2[1].receive(in2); // the frame's CRC word (no padding)
        assertThat(in2.hasRemaining()).isFalse();
        List<byte[]> response = frames(EngineTest.output(c2[1]), ID);
        assertThat(response).anyMatch(f -> SegmentHeader.typeCode(unwrapped(f), 0) == SegmentType.RDMA_READ_RESPONSE.code());
        assertThat(c2[1].state()).isEqualTo(ViConnection.State.CONNECTED);
    }

    @Test
    void admissionStop_insideACollectedFrame_resumesWithTheRestOfTheInput() {
        Owner b = new Owner();
        Recv r1 = new Recv(100);
        b.receives.add(r1);
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(new Side(), b, ReliabilityLevel.RELIABLE_RECEPTION);
        byte[] data = new byte[61];
        new Random(2).nextBytes(data);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data, 0, 30).slice(), 0, false));
        byte[] stream = EngineTest.output(c[0]);
        int first = frames(stream, ID).get(0).length;
        b.admit = false;
        ByteBuffer part1 = ByteBuffer.wrap(stream, 0, 20).slice();
        ByteBuffer part2 = ByteBuffer.wrap(stream, 20, stream.length - 20).slice();
        c[1].receive(part1);
        assertThat(part1.hasRemaining()).isFalse();
        assertThat(c[1].awaitingAdmission()).isFalse(); // the frame is not whole yet
        c[1].receive(part2);
        assertThat(c[1].awaitingAdmission()).isTrue();
        assertThat(part2.position()).isEqualTo(first - 20); // the collected frame is consumed; the next is left
        c[1].receive(part2);
        assertThat(part2.position()).isEqualTo(first - 20);
        assertThat(b.delivered()).isEmpty();
        b.admit = true;
        c[1].receive(ByteBuffer.allocate(0)); // retried alone
        assertThat(c[1].awaitingAdmission()).isFalse();
        assertThat(b.events).containsOnlyOnce("recv DONE|OP_RECEIVE|IMMEDIATE 61");
        c[1].receive(part2);
        assertThat(part2.hasRemaining()).isFalse();
        assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 30");
        assertThat(r1.buf.slice(0, 61)).isEqualTo(ByteBuffer.wrap(data));
    }

    @Test
    void refusedAdmissions_underAnyChunking_loseOrRepeatNoByte() {
        for (int max : new int[] {1, 5, 60, 3000}) {
            Random rnd = new Random(300 + max);
            Side a = new Side();
            EngineTest.Gate b = new EngineTest.Gate(new Random(max));
            ViConnection ca = active(a, ReliabilityLevel.RELIABLE_RECEPTION, ID ^ max);
            ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_RECEPTION);
            EngineTest.pump(ca, cb, rnd, 100);
            EngineTest.pump(cb, ca, rnd, 100);
            List<String> expected = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            List<Recv> posted = new ArrayList<>();
            List<Work> reads = new ArrayList<>();
            for (int m = 0; m < 24; m++) {
                byte[] data = new byte[rnd.nextInt(3500)];
                rnd.nextBytes(data);
                int msg = 5 + m;
                switch (m % 3) {
                    case 0 -> {
                        Recv r = new Recv(4000);
                        b.receives.add(r);
                        posted.add(r);
                        cb.receivePosted();
                        ca.post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
                        expected.add("SEND " + msg);
                    }
                    case 1 -> {
                        ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 4000L * m, false));
                        expected.add("RDMA_WRITE " + msg);
                    }
                    default -> {
                        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(data.length),
                                500_000 + 4000L * m, false);
                        b.memory.put(500_000 + 4000 * m, data);
                        reads.add(read);
                        ca.post(read);
                        expected.add("RDMA_READ_REQUEST " + msg);
                    }
                }
                sent.add(data);
            }
            for (int round = 0; round < 100 && a.completed.size() < 24; round++) {
                EngineTest.pumpThroughAdmission(ca, cb, rnd, max);
                EngineTest.pump(cb, ca, rnd, max);
            }
            assertThat(b.refused).isPositive();
            assertThat(b.admitted).containsExactlyElementsOf(expected);
            assertThat(a.completed).hasSize(24).allMatch(s -> !Status.isError(s));
            for (int m = 0, send = 0, read = 0; m < 24; m++) {
                byte[] data = sent.get(m);
                switch (m % 3) {
                    case 0 -> assertThat(posted.get(send++).buf.slice(0, data.length)).isEqualTo(ByteBuffer.wrap(data));
                    case 1 -> assertThat(b.memory.slice(4000 * m, data.length)).isEqualTo(ByteBuffer.wrap(data));
                    default -> assertThat(reads.get(read++).data).isEqualTo(ByteBuffer.wrap(data));
                }
            }
        }
    }

    // ------------------------------------------------------------------ framing failures after setup

    /** How a frame is broken. */
    enum Break {
        CRC(FrameCheck.CRC, f -> {
            f[f.length - 9] ^= 0x10; // a payload byte, CRC left as it was
            return f;
        }),
        CRC_WORD(FrameCheck.CRC, f -> {
            f[f.length - 1] ^= 1;
            return f;
        }),
        CONNECTION_ID(FrameCheck.CONNECTION_ID, f -> {
            f[11] ^= 0x40;
            return recrc(f);
        }),
        VERSION(FrameCheck.VERSION, f -> {
            f[0] = 2;
            return recrc(f);
        }),
        SEGMENT_LENGTH_TOO_SHORT(FrameCheck.LENGTH, f -> { // below header + VI/TCP header: refused on its first 4 bytes
            f[2] = 0;
            f[3] = 40;
            return f;
        }),
        CLEN_TOO_SMALL(FrameCheck.LENGTH, f -> {
            f[RdmaTcpFrame.OFF_CLEN] = 5; // 20 bytes of control data: no room for the VI/TCP header
            return recrc(f);
        }),
        MISMATCH(FrameCheck.MISMATCH, f -> {
            f[RdmaTcpFrame.OFF_MESSAGE_NUMBER + 3] ^= 1; // the frame's message number only
            return recrc(f);
        });

        final FrameCheck check;
        final UnaryOperator<byte[]> apply;

        Break(FrameCheck check, UnaryOperator<byte[]> apply) {
            this.check = check;
            this.apply = apply;
        }
    }

    @ParameterizedTest
    @EnumSource(Break.class)
    void brokenFrame_isAProtocolErrorNamingTheCheck_andNothingOfItIsPlaced(Break how) {
        for (ReliabilityLevel level : ReliabilityLevel.values()) {
            for (boolean split : new boolean[] {false, true}) {
                for (boolean write : new boolean[] {true, false}) {
                    Owner b = new Owner();
                    b.receives.add(new Recv(2000));
                    b.receives.add(new Recv(2000));
                    ViConnection[] c = connected(new Side(), b, level);
                    byte[] data = new byte[1000];
                    Arrays.fill(data, (byte) 0x77);
                    c[0].post(write ? new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 100, false)
                            : new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
                    c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data, 0, 10).slice(), 0, false));
                    List<byte[]> frames = frames(EngineTest.output(c[0]), ID);
                    byte[] bad = how.apply.apply(frames.get(0).clone());
                    byte[] stream = concat(List.of(bad, frames.get(1)));
                    String what = how + " " + level + (split ? " split" : " whole") + (write ? " write" : " send");
                    if (split) { // collected across reads
                        feed(c[1], Arrays.copyOfRange(stream, 0, 30));
                        feed(c[1], Arrays.copyOfRange(stream, 30, stream.length));
                    } else {
                        feed(c[1], stream);
                    }
                    assertThat(c[1].framingFailure()).as(what).isEqualTo(how.check);
                    assertThat(c[1].lastProtocolError()).as(what).contains(how.check.description());
                    assertThat(b.events).as(what).containsExactly("broken PROTOCOL_ERROR 0/0");
                    assertThat(b.delivered()).as(what).isEmpty();
                    assertThat(b.calls).as(what).noneMatch(s -> s.startsWith("admit"));
                    assertThat(b.memory.get(100)).isZero();
                    assertThat(c[1].state()).isEqualTo(ViConnection.State.ERROR);
                    assertThat(c[1].closeRequested()).isTrue();
                    assertThat(c[1].hasOutput()).as("no report at any level (VITCP-PROFILE §9.8)").isFalse();
                    c[1].receive(ByteBuffer.wrap(frames.get(1))); // later input is dropped
                    assertThat(b.delivered()).isEmpty();
                }
            }
        }
    }

    @Test
    void activeSide_refusesAFrameWithAnotherConnectionId() {
        Side a = new Side();
        Side b = new Side();
        ViConnection ca = active(a, ReliabilityLevel.RELIABLE_DELIVERY, ID);
        ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_DELIVERY);
        feed(cb, EngineTest.output(ca));
        byte[] accept = EngineTest.output(cb);
        assertThat(RdmaTcpFrame.connectionId(ByteBuffer.wrap(accept), 0)).isEqualTo(ID);
        ByteBuffer.wrap(accept).putLong(RdmaTcpFrame.OFF_CONNECTION_ID, ID + 1);
        feed(ca, recrc(accept));
        assertThat(ca.framingFailure()).isEqualTo(FrameCheck.CONNECTION_ID);
        assertThat(ca.failure()).isEqualTo(ConnectFailure.PROTOCOL);
        assertThat(a.events).containsExactly("failed PROTOCOL 0");
        assertThat(ca.hasOutput()).isFalse();
    }

    // ------------------------------------------------------------------ setup

    @ParameterizedTest
    @EnumSource(value = Break.class, names = {"CRC", "CRC_WORD", "VERSION", "SEGMENT_LENGTH_TOO_SHORT", "CLEN_TOO_SMALL"})
    void brokenFirstFrame_closesWithoutAnswer(Break how) {
        for (boolean split : new boolean[] {false, true}) {
            Side a = new Side();
            Side b = new Side();
            ViConnection ca = active(a, ReliabilityLevel.RELIABLE_DELIVERY, ID);
            ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_DELIVERY);
            byte[] request = how.apply.apply(EngineTest.output(ca));
            if (split) {
                for (byte x : request) {
                    cb.receive(ByteBuffer.wrap(new byte[] {x}));
                }
            } else {
                feed(cb, request);
            }
            assertThat(cb.framingFailure()).isEqualTo(how.check);
            assertThat(b.events).containsExactly("failed PROTOCOL 0");
            assertThat(cb.closeRequested()).isTrue();
            assertThat(cb.hasOutput()).isFalse();
            assertThat(EngineTest.output(cb)).isEmpty();
        }
    }

    @Test
    void viVersionOtherThan1_insideAValidFrame_isAnsweredWithAFramedConnectRejectIs9() {
        for (int version : new int[] {0, 2, 0xFF}) {
            Side a = new Side();
            Side b = new Side();
            ViConnection ca = active(a, ReliabilityLevel.RELIABLE_DELIVERY, ID);
            ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_DELIVERY);
            ByteBuffer seg = unwrapped(EngineTest.output(ca));
            seg.put(SegmentHeader.OFF_VERSION, (byte) version);
            ByteBuffer frame = RdmaTcpFrame.frame(seg, 0, seg.limit(), ID ^ version);
            assertThat(RdmaTcpFrame.check(frame, 0, ID ^ version, false)).isEqualTo(FrameCheck.OK);
            feed(cb, frame.array());
            assertThat(cb.framingFailure()).isNull();
            List<byte[]> answer = frames(EngineTest.output(cb), ID ^ version); // framed, with the request's ID
            assertThat(answer).hasSize(1);
            ByteBuffer reject = unwrapped(answer.get(0));
            assertThat(ControlSegment.decode(reject, 0, reject.limit()))
                    .isEqualTo(new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES));
            assertThat(b.events).containsExactly("failed REJECTED 9");
            assertThat(cb.closeRequested()).isTrue();
        }
    }

    @Test
    void passiveSide_answersWithTheConnectionIdTheRequestNamed() {
        Random rnd = new Random(8);
        for (int i = 0; i < 20; i++) {
            long id = i == 0 ? 0 : i == 1 ? -1 : rnd.nextLong();
            Side a = new Side();
            Side b = new Side();
            ViConnection ca = active(a, ReliabilityLevel.RELIABLE_RECEPTION, id);
            ViConnection cb = passive(b, ReliabilityLevel.RELIABLE_RECEPTION);
            // the owner may poll the engine before the first frame: nothing to send yet
            assertThat(cb.produce(ByteBuffer.allocate(ViConnection.MAX_HEADER), new ByteBuffer[4])).isEqualTo(-1);
            byte[] request = EngineTest.output(ca);
            assertThat(RdmaTcpFrame.connectionId(ByteBuffer.wrap(request), 0)).isEqualTo(id);
            feed(cb, request);
            byte[] accept = EngineTest.output(cb);
            List<byte[]> fa = frames(accept, id);
            assertThat(fa).hasSize(1);
            assertThat(RdmaTcpFrame.connectionId(ByteBuffer.wrap(accept), 0)).isEqualTo(id);
            feed(ca, accept);
            assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
            b.memory.put(0, new byte[3000]);
            ca.post(new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(3000), 0, false));
            ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(10), 0, false));
            feed(cb, EngineTest.output(ca));
            List<byte[]> fb = frames(EngineTest.output(cb), id); // Read Responses and the ACK, all with the id
            assertThat(fb).hasSizeGreaterThanOrEqualTo(3);
            for (byte[] f : fb) {
                assertThat(RdmaTcpFrame.connectionId(ByteBuffer.wrap(f), 0)).isEqualTo(id);
            }
        }
    }

    @Test
    void framesOfAMultiSegmentMessage_carryBOnTheFirstAndEOnTheLast() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(5000));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(3001), 0, false));
        c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(2000), 0, false));
        List<String> flags = new ArrayList<>();
        for (byte[] f : frames(EngineTest.output(c[0]), ID)) {
            ByteBuffer fb = ByteBuffer.wrap(f);
            flags.add(RdmaTcpFrame.type(fb, 0) + (RdmaTcpFrame.begin(fb, 0) ? " B" : "")
                    + (RdmaTcpFrame.end(fb, 0) ? " E" : "") + " " + RdmaTcpFrame.messageNumber(fb, 0));
        }
        assertThat(flags).containsExactly("SEND B 5", "SEND 5", "SEND 5", "SEND E 5", "RDMA_WRITE B 6",
                "RDMA_WRITE E 6");
    }

    // ------------------------------------------------------------------ security (§9.11)

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochMilli(1_800_000_000_000L));

    static ConnectSecurity hmac() {
        return new HmacConnectSecurity(new ConnectSigner(KEY, CLOCK));
    }

    static LocalEndpoint signed(String disc, int imn) {
        return new LocalEndpoint(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false,
                false), Discriminator.ofUtf8(disc), 1 << 20, 4, imn, 1000, 8, hmac());
    }

    /** A keyed passive engine in RDMA/TCP framing; its owner accepts with a keyed endpoint. */
    static ViConnection keyedPassive(Side b) {
        b.accept = signed("b", 77);
        return ViConnection.incoming(b, EngineOptions.of(hmac()).withEncapsulation(Encapsulation.RDMATCP), 0);
    }

    /** The Connect Request "a" sends to "b", toBeSigned (Security Type 1, zero timestamp and HMAC). */
    static ByteBuffer unsignedRequest() {
        ConnectRequest r = new ConnectRequest(5, 0, ConnectionHeader.toBeSigned(ConnectionAttributes.of(
                ReliabilityLevel.RELIABLE_DELIVERY, true, true, false, false, false), Discriminator.ofUtf8("a"),
                1 << 20, 4, Discriminator.ofUtf8("b")));
        ByteBuffer seg = ByteBuffer.allocate(r.encodedLength());
        r.encode(seg, 0);
        return seg;
    }

    /** Offset in the request segment of the 8-byte timestamp ("a" and "b": one padded word each). */
    static final int TIMESTAMP = SegmentHeader.LENGTH + 8 + 4 + 4 + 4 + 4;

    /** HMAC-SHA256 with {@link #KEY} over {@code bytes} with the 32 bytes at {@code mac} zeroed (javax.crypto). */
    static byte[] mac(byte[] bytes, int mac) throws Exception {
        byte[] copy = bytes.clone();
        Arrays.fill(copy, mac, mac + 32, (byte) 0);
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(KEY, "HmacSHA256"));
        return m.doFinal(copy);
    }

    /** The answer of a keyed passive engine to {@code frame}: the decoded segment of its one output frame. */
    private static ControlSegment answer(Side b, ViConnection cb, byte[] frame, long id) {
        feed(cb, frame);
        List<byte[]> out = frames(EngineTest.output(cb), id);
        assertThat(out).hasSize(1);
        ByteBuffer seg = unwrapped(out.get(0));
        return ControlSegment.decode(seg, 0, seg.limit());
    }

    @Test
    void signedRequest_hmacOverFrameHeaderAndSegment_isAccepted() throws Exception {
        ByteBuffer seg = unsignedRequest();
        seg.putLong(TIMESTAMP, CLOCK.millis());
        byte[] frame = RdmaTcpFrame.frame(seg, 0, seg.limit(), ID).array();
        int segmentLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(frame), 0);
        assertThat(RdmaTcpFrame.padding(segmentLength)).isZero();
        int macAt = RdmaTcpFrame.SHORT_HEADER + TIMESTAMP + 8;
        byte[] h = mac(Arrays.copyOf(frame, segmentLength), macAt);
        System.arraycopy(h, 0, frame, macAt, 32);
        Side b = new Side();
        ViConnection cb = keyedPassive(b);
        assertThat(answer(b, cb, recrc(frame), ID)).isInstanceOf(ConnectAccept.class);
        assertThat(b.events).containsExactly("request", "connected");
    }

    @Test
    void signedRequest_hmacOverTheNativeSegmentOnly_isRejectedIs11() throws Exception {
        ByteBuffer seg = unsignedRequest();
        seg.putLong(TIMESTAMP, CLOCK.millis());
        byte[] native_ = seg.array();
        byte[] h = mac(native_, TIMESTAMP + 8); // as native VI/TCP framing signs (§5)
        System.arraycopy(h, 0, native_, TIMESTAMP + 8, 32);
        assertThat(new ConnectSigner(KEY, CLOCK).verify(ByteBuffer.wrap(native_), 0, native_.length).isOk()).isTrue();
        byte[] frame = RdmaTcpFrame.frame(ByteBuffer.wrap(native_), 0, native_.length, ID).array();
        Side b = new Side();
        ViConnection cb = keyedPassive(b);
        assertThat(answer(b, cb, frame, ID)).isEqualTo(new ConnectReject(IsCode.SECURITY_REJECTED));
        assertThat(b.events).containsExactly("failed SECURITY 11");
        assertThat(cb.closeRequested()).isTrue();
    }

    @Test
    void keyedPair_connects_andTheSignatureCoversTheConnectionId() throws Exception {
        Side a = new Side();
        Side b = new Side();
        ViConnection ca = ViConnection.active(a, signed("a", 5), Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L,
                Encapsulation.RDMATCP, ID);
        byte[] request = EngineTest.output(ca);
        // the engine's signature is the one computed independently over frame header and segment
        int segmentLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(request), 0);
        int macAt = RdmaTcpFrame.SHORT_HEADER + TIMESTAMP + 8;
        assertThat(Arrays.copyOfRange(request, macAt, macAt + 32))
                .isEqualTo(mac(Arrays.copyOf(request, segmentLength), macAt));

        // the same request under another Connection ID (CRC recomputed): the HMAC no longer matches
        byte[] moved = request.clone();
        ByteBuffer.wrap(moved).putLong(RdmaTcpFrame.OFF_CONNECTION_ID, ID ^ 0x100);
        Side other = new Side();
        assertThat(answer(other, keyedPassive(other), recrc(moved), ID ^ 0x100))
                .isEqualTo(new ConnectReject(IsCode.SECURITY_REJECTED));

        ViConnection cb = keyedPassive(b);
        feed(cb, request);
        byte[] accept = EngineTest.output(cb);
        int acceptLength = RdmaTcpFrame.segmentLength(ByteBuffer.wrap(accept), 0);
        int acceptMac = RdmaTcpFrame.SHORT_HEADER + TIMESTAMP + 8; // "b" and "a": the same layout
        assertThat(Arrays.copyOfRange(accept, acceptMac, acceptMac + 32))
                .isEqualTo(mac(Arrays.copyOf(accept, acceptLength), acceptMac));
        feed(ca, accept);
        assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);

        // an Accept signed over its native segment only: the active side refuses it (a security failure)
        Side a2 = new Side();
        ViConnection ca2 = ViConnection.active(a2, signed("a", 5), Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L,
                Encapsulation.RDMATCP, ID);
        EngineTest.output(ca2);
        ByteBuffer acc = unwrapped(accept);
        byte[] nativeAccept = Arrays.copyOf(acc.array(), acc.limit());
        System.arraycopy(mac(nativeAccept, TIMESTAMP + 8), 0, nativeAccept, TIMESTAMP + 8, 32);
        feed(ca2, RdmaTcpFrame.frame(ByteBuffer.wrap(nativeAccept), 0, nativeAccept.length, ID).array());
        assertThat(a2.events).containsExactly("failed SECURITY 11");
    }
}

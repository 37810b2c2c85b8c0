package io.vibridge.iwarp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.engine.IwarpConnection.State;
import io.vibridge.iwarp.engine.Recorder.ReadResp;
import io.vibridge.iwarp.engine.Recorder.Send;
import io.vibridge.iwarp.engine.SiwSegments.Segment;
import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaKey;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.mpa.Rtr;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The engine in the server's place of a recorded siw-to-siw {@code rping -V} (src/test/resources/siw,
 * replayed from the extracts in siw/segments/): the client's TCP segments go into {@link IwarpConnection#receive}
 * as siw's TCP delivered them, in capture order, and where the siw server sent a message the engine is asked
 * for the same message (same sizes, STags, offsets, payload), which must come out byte for byte as siw's,
 * CRC included.
 *
 * <p>One thing cannot match: the sink STag and Tagged Offset of the server's Read Requests are siw's own
 * (a random STag, a heap address), the engine picks its own. So the server's Read Requests are compared with
 * the sink fields replaced by the engine's (and the CRC recomputed), and the client's Read Responses are
 * either fed verbatim, when they must fail with {@code DDP_TAGGED_INVALID_STAG} as siw's own check would
 * ({@code siw_rresp_check_ntoh}), or re-aimed at the engine's sink (STag, TO relative to the request's,
 * CRC recomputed; nothing else changes), when every client FPDU of the capture must be delivered.
 */
class SiwReplayTest {

    /** A siw Read Request mapped to the engine's: Read Responses to siw's sink are re-aimed at the engine's. */
    private record Mapped(int siwStag, long siwTo, int size, int engineStag, long engineTo) {
    }

    private static final class Replay {
        final List<Segment> segments;
        final boolean reaim;
        final Random chunks;
        final Recorder rec = new Recorder();
        final IwarpConnection engine;
        boolean crc;

        /** The client's stream, re-aimed in place as its FPDUs come up. */
        final byte[] client;
        final List<int[]> clientFpdus = new ArrayList<>();      // {offset, length} after the Request
        int clientFed;
        int nextClientFpdu;

        /** The server's stream as captured, its FPDUs taken message by message. */
        final ByteArrayOutputStream server = new ByteArrayOutputStream();
        int serverTaken;
        boolean replied;
        final List<byte[]> message = new ArrayList<>();

        final ArrayDeque<Mapped> reads = new ArrayDeque<>();
        int serverMessages;
        int failedAtFrame = -1;
        final List<String> engineOps = new ArrayList<>();

        Replay(String name, int maxFpdu, boolean reaim, Random chunks) {
            this.segments = SiwSegments.load(name);
            this.reaim = reaim;
            this.chunks = chunks;
            engine = new IwarpConnection(false, maxFpdu, rec);
            rec.engine = engine;
            client = SiwSegments.stream(segments, true);
            int at = MpaFrame.HEADER_LENGTH + (ByteBuffer.wrap(client).getShort(18) & 0xFFFF);
            while (at < client.length) {
                int n = Fpdu.length(Fpdu.ulpduLength(ByteBuffer.wrap(client), at));
                clientFpdus.add(new int[] {at, n});
                at += n;
            }
            assertThat(at).as("the client stream ends on an FPDU boundary").isEqualTo(client.length);
        }

        Replay run() {
            for (Segment s : segments) {
                if (s.fromClient()) {
                    fromClient(s);
                } else {
                    fromServer(s);
                }
            }
            return this;
        }

        private void fromClient(Segment s) {
            int end = clientFed + s.payload().length;
            while (nextClientFpdu < clientFpdus.size() && clientFpdus.get(nextClientFpdu)[0] < end) {
                reaim(clientFpdus.get(nextClientFpdu++));
            }
            boolean before = engine.state() != State.TERMINATED;
            int at = clientFed;
            while (at < end) {
                int n = chunks == null ? end - at : 1 + chunks.nextInt(end - at);
                ByteBuffer in = ByteBuffer.wrap(client, at, n).slice();
                boolean ok = engine.receive(in);
                if (engine.state() == State.TERMINATED) {
                    assertThat(ok).isFalse();                  // at the failed FPDU; nothing more is read
                } else {
                    assertThat(ok).as("frame %d: %s", s.frame(), engine.failure()).isTrue();
                    assertThat(in.hasRemaining()).isFalse();
                }
                at += n;
            }
            clientFed = end;
            if (before && engine.state() == State.TERMINATED) {
                failedAtFrame = s.frame();
            }
        }

        /** Re-aims a client Read Response at the engine's sink (when asked to), in the stream copy. */
        private void reaim(int[] fpdu) {
            ByteBuffer b = ByteBuffer.wrap(client);
            int u = fpdu[0] + Fpdu.LENGTH_FIELD;
            if (!reaim || (b.get(u) & 0x80) == 0 || RdmapOpcode.of(b.get(u + 1)) != RdmapOpcode.READ_RESPONSE) {
                return;
            }
            Mapped m = reads.peek();
            assertThat(m).as("a Read Response with no Read Request of the server's").isNotNull();
            int stag = b.getInt(u + 2);
            long to = b.getLong(u + 6);
            assertThat(stag).isEqualTo(m.siwStag());
            b.putInt(u + 2, m.engineStag()).putLong(u + 6, m.engineTo() + (to - m.siwTo()));
            Fpdu.seal(b, fpdu[0], Fpdu.ulpduLength(b, fpdu[0]), crc ? new CRC32C() : null);
            if ((b.get(u) & 0x40) != 0) {
                reads.poll();
            }
        }

        private void fromServer(Segment s) {
            server.writeBytes(s.payload());
            byte[] all = server.toByteArray();
            if (!replied) {
                int n = MpaFrame.HEADER_LENGTH + (ByteBuffer.wrap(all).getShort(18) & 0xFFFF);
                MpaFrame siwReply = MpaFrame.decode(ByteBuffer.wrap(all), 0, all.length,
                        MpaKey.REPLY);
                MpaV2Params p = siwReply.v2Params();
                assertThat(engine.state()).isEqualTo(State.DECIDING);
                engine.accept(p.ird(), p.ord(), new byte[0]);
                crc = engine.settings().crc();
                assertThat(Wire.bytes(engine.pollControl())).as("the Reply").isEqualTo(Arrays.copyOf(all, n));
                replied = true;
                serverTaken = n;
            }
            ByteBuffer b = ByteBuffer.wrap(all);
            while (all.length - serverTaken >= 2) {
                int n = Fpdu.length(Fpdu.ulpduLength(b, serverTaken));
                if (all.length - serverTaken < n) {
                    break;
                }
                message.add(Arrays.copyOfRange(all, serverTaken, serverTaken + n));
                serverTaken += n;
                if ((b.get(serverTaken - n + 2) & 0x40) != 0) {
                    serverMessage();
                }
            }
        }

        /** The engine lays out what siw's server sent; the bytes must be siw's. */
        private void serverMessage() {
            byte[] siw = Wire.concat(message.toArray(byte[][]::new));
            message.clear();
            if (engine.state() == State.TERMINATED) {
                return;                                        // the verbatim replay ended at a Read Response
            }
            assertThat(engine.canTransmit()).isTrue();
            List<Wire.Seg> segs = Wire.decode(siw, crc);       // siw's own CRCs check out
            Wire.Seg first = segs.getFirst();
            byte[] payload = Wire.concat(segs.stream().map(Wire.Seg::payload).toArray(byte[][]::new));
            ByteBuffer out;
            switch (first.op()) {
                case SEND, SEND_SE, SEND_INVALIDATE, SEND_SE_INVALIDATE -> {
                    out = ByteBuffer.allocate(engine.length(first.op(), payload.length));
                    engine.send(out, ByteBuffer.wrap(payload), 0, payload.length, first.op().solicited(),
                            first.invalidateStag());
                }
                case RDMA_WRITE -> {
                    out = ByteBuffer.allocate(engine.length(RdmapOpcode.RDMA_WRITE, payload.length));
                    engine.write(out, first.stag(), first.to(), ByteBuffer.wrap(payload), 0, payload.length);
                }
                case READ_REQUEST -> {
                    ReadRequest r = first.readRequest();
                    assertThat(engine.canReadRequest()).isTrue();
                    out = ByteBuffer.allocate(engine.readRequestLength());
                    engine.readRequest(out, r.size(), r.sourceStag(), r.sourceOffset(), "read " + (reads.size() + 1)
                            + " at #" + serverMessages);
                    ReadRequest mine = Wire.decode(out.array(), crc).getFirst().readRequest();
                    reads.add(new Mapped(r.sinkStag(), r.sinkOffset(), r.size(), mine.sinkStag(), mine.sinkOffset()));
                    // siw's bytes with the engine's sink: everything else (MSN, sizes, source, layout) is siw's
                    ByteBuffer patched = ByteBuffer.wrap(siw.clone());
                    new ReadRequest(mine.sinkStag(), mine.sinkOffset(), r.size(), r.sourceStag(), r.sourceOffset())
                            .encode(patched, Fpdu.LENGTH_FIELD + DdpSegment.UNTAGGED_HEADER);
                    Fpdu.seal(patched, 0, Fpdu.ulpduLength(patched, 0), crc ? new CRC32C() : null);
                    siw = patched.array();
                }
                default -> throw new AssertionError("the siw server sent " + first.op());
            }
            assertThat(out.hasRemaining()).isFalse();
            assertThat(out.array()).as("server message %d (%s, %d FPDUs)", serverMessages, first.op(), segs.size())
                    .isEqualTo(siw);
            engineOps.add(first.op() + " x" + segs.size());
            serverMessages++;
        }

        /** The client's FPDUs as captured (before any re-aiming), decoded. */
        List<Wire.Seg> clientSegments() {
            byte[] original = SiwSegments.stream(segments, true);
            return Wire.decode(Arrays.copyOfRange(original, clientFpdus.getFirst()[0], original.length), crc);
        }
    }

    // ------------------------------------------------------------------------------------------------------

    private static void assertEveryClientFpduDelivered(Replay r) {
        assertThat(r.engine.failure()).isNull();
        assertThat(r.engine.state()).isEqualTo(State.ESTABLISHED);
        assertThat(r.rec.of(Recorder.Requested.class)).hasSize(1);
        List<Wire.Seg> sent = r.clientSegments();
        List<Send> sends = r.rec.of(Send.class);
        List<ReadResp> responses = r.rec.of(ReadResp.class);
        int s = 0;
        int rr = 0;
        int msn = 1;
        long offset = 0;
        for (Wire.Seg g : sent) {
            switch (g.op()) {
                case SEND -> {
                    Send got = sends.get(s++);
                    assertThat(got.msn()).isEqualTo(g.msn()).isEqualTo(msn++);
                    assertThat(got.mo()).isZero();
                    assertThat(got.last()).isTrue();
                    assertThat(got.payload()).isEqualTo(Wire.HEX.formatHex(g.payload()));
                }
                case READ_RESPONSE -> {
                    ReadResp got = responses.get(rr++);
                    assertThat(got.offset()).isEqualTo(offset);
                    assertThat(got.last()).isEqualTo(g.last());
                    assertThat(got.payload()).isEqualTo(Wire.HEX.formatHex(g.payload()));
                    offset = g.last() ? 0 : offset + g.payload().length;
                }
                case RDMA_WRITE -> assertThat(g.payload()).as("only the RTR: zero length").isEmpty();
                default -> throw new AssertionError("the siw client sent " + g);
            }
        }
        assertThat(sends).hasSize(s);
        assertThat(responses).hasSize(rr);
        assertThat(r.rec.of(Recorder.Write.class)).as("the RTR goes no further").isEmpty();
        assertThat(r.engine.hasControl()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "siw-rping-crc-on,                1448, 4, 2, 8",
        "siw-rping-crc-off,               1448, 4, 2, 8",
        "siw-rping-p2p,                   1448, 2, 1, 4",
        "siw-rping-65000-crc-on,          1448, 2, 46, 4",
        "siw-rping-65000-lo64k-crc-on,   32768, 2, 2, 4"})
    void reaimedEveryClientFpduIsDeliveredAndTheServersBytesAreSiws(String name, int maxFpdu, int sends,
            int responseSegments, int serverMessages) {
        Replay r = new Replay(name, maxFpdu, true, null).run();
        assertEveryClientFpduDelivered(r);
        assertThat(r.rec.of(Send.class)).hasSize(sends);
        assertThat(r.rec.of(ReadResp.class)).hasSize(responseSegments);
        assertThat(r.serverMessages).as("server messages rebuilt: %s", r.engineOps).isEqualTo(serverMessages);
        assertThat(r.reads).as("every Read answered").isEmpty();
        assertThat(r.engine.canReadRequest()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"siw-rping-crc-on, 1448", "siw-rping-p2p, 1448", "siw-rping-65000-crc-on, 1448",
        "siw-rping-65000-lo64k-crc-on, 32768"})
    void reaimedInRandomPiecesAsWell(String name, int maxFpdu) {
        for (int seed = 0; seed < 20; seed++) {
            assertEveryClientFpduDelivered(new Replay(name, maxFpdu, true, new Random(seed)).run());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"siw-rping-crc-on, 10", "siw-rping-crc-off, 10", "siw-rping-p2p, 12", "siw-rping-65000-crc-on, 10"})
    void verbatimTheFirstReadResponseHitsAnUnknownStag(String name, int frame) {
        Replay r = new Replay(name, 1448, false, null).run();
        assertThat(r.failedAtFrame).isEqualTo(frame);
        assertThat(r.engine.failure().code()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG);
        assertThat(r.rec.of(ReadResp.class)).isEmpty();
        assertThat(r.rec.of(Send.class)).as("only the Send before it").hasSize(1);
        assertThat(r.rec.of(Send.class).getFirst().msn()).isEqualTo(1);
        List<Wire.Seg> control = Wire.decode(Wire.concat(drain(r.engine).toArray(byte[][]::new)), r.crc);
        assertThat(control).singleElement().satisfies(t -> {
            assertThat(t.op()).isEqualTo(RdmapOpcode.TERMINATE);
            assertThat(t.terminate().code()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG);
        });
    }

    private static List<byte[]> drain(IwarpConnection engine) {
        List<byte[]> out = new ArrayList<>();
        for (ByteBuffer b; (b = engine.pollControl()) != null; ) {
            out.add(Wire.bytes(b));
        }
        return out;
    }

    @Test
    void whatRpingsClientSends() {
        Replay r = new Replay("siw-rping-crc-on", 1448, true, null).run();
        List<Send> sends = r.rec.of(Send.class);
        // rping_rdma_info {be64 buf; be32 rkey; be32 size}: source buffer, sink buffer, source, sink
        ByteBuffer first = ByteBuffer.wrap(Wire.HEX.parseHex(sends.getFirst().payload()));
        assertThat(first.getLong(0)).isEqualTo(0x00005571ec423570L);
        assertThat(first.getInt(8)).isEqualTo(0x8b375400);
        assertThat(first.getInt(12)).isEqualTo(64);
        List<ReadResp> data = r.rec.of(ReadResp.class);
        assertThat(data).extracting(ReadResp::token).containsExactly("read 1 at #0", "read 1 at #4");
        assertThat(new String(Wire.HEX.parseHex(data.get(0).payload()), StandardCharsets.US_ASCII))
                .startsWith("rdma-ping-0: ABCDEFGHIJKLMNOPQR");
        assertThat(new String(Wire.HEX.parseHex(data.get(1).payload()), StandardCharsets.US_ASCII))
                .startsWith("rdma-ping-1: BCDEFGHIJKLMNOPQRS");
        assertThat(r.engineOps).containsExactly("READ_REQUEST x1", "SEND x1", "RDMA_WRITE x1", "SEND x1",
                "READ_REQUEST x1", "SEND x1", "RDMA_WRITE x1", "SEND x1");
    }

    @Test
    void peerToPeerTheRtrIsAbsorbed() {
        Replay r = new Replay("siw-rping-p2p", 1448, true, null).run();
        assertThat(r.engine.settings().rtr()).isEqualTo(Rtr.WRITE);
        assertThat(r.clientSegments().getFirst()).satisfies(g -> {
            assertThat(g.op()).isEqualTo(RdmapOpcode.RDMA_WRITE);
            assertThat(g.stag()).isEqualTo(1);
            assertThat(g.payload()).isEmpty();
        });
        assertThat(r.rec.events.get(1)).isInstanceOfSatisfying(Send.class, s -> assertThat(s.msn()).isEqualTo(1));
    }

    @Test
    void sixtyFiveThousandBytesArriveInFortySixPiecesAtTheirOffsets() {
        Replay r = new Replay("siw-rping-65000-crc-on", 1448, true, null).run();
        List<ReadResp> segs = r.rec.of(ReadResp.class);
        assertThat(segs).hasSize(46);
        for (int i = 0; i < 46; i++) {
            assertThat(segs.get(i).offset()).isEqualTo(1428L * i);
            assertThat(segs.get(i).to()).isEqualTo(1428L * i);
            assertThat(segs.get(i).last()).isEqualTo(i == 45);
        }
        assertThat(segs.getLast().payload()).hasSize(2 * 740);
        assertThat(r.engineOps).contains("RDMA_WRITE x46");
    }
}

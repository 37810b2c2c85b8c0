package io.vibridge.iwarp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.engine.IwarpConnection.State;
import io.vibridge.iwarp.engine.Recorder.ReadReq;
import io.vibridge.iwarp.engine.Recorder.ReadResp;
import io.vibridge.iwarp.engine.Recorder.Send;
import io.vibridge.iwarp.engine.Recorder.Write;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine against itself: {@link IwarpConnection#initiator} as the client, the responder as the gateway,
 * joined by two in-memory byte pipes cut at random, each side with its own CRC wish and FPDU size, each
 * refusing deliveries at random. Both send Sends and Writes and read from each other; every message must
 * arrive whole and in order, every Read come back with the bytes the other side answered, and neither side
 * may fail.
 */
class InitiatorResponderPropertiesTest {

    private static final class Side {
        final Recorder rec = new Recorder();
        final IwarpConnection engine;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final List<byte[]> sent = new ArrayList<>();          // Send payloads, in order
        final List<byte[]> written = new ArrayList<>();
        final List<byte[]> readAnswers = new ArrayList<>();    // what this side answered, in order
        final List<Integer> readsAsked = new ArrayList<>();    // sizes this side read from the other

        Side(Function<Recorder, IwarpConnection> make, Random rnd) {
            engine = make.apply(rec);
            rec.engine = engine;
            boolean[] last = {false};
            rec.refuse = e -> last[0] = !last[0] && rnd.nextInt(5) == 0;
        }

        void control() {
            for (ByteBuffer b; (b = engine.pollControl()) != null; ) {
                out.writeBytes(Wire.bytes(b));
            }
        }

        /** Answers the other side's Read Requests owed now, with bytes that name the request. */
        void answer() {
            for (ReadRequest r; engine.canTransmit() && (r = engine.oldestOwedRead()) != null; ) {
                byte[] data = Wire.pattern(r.size(), readAnswers.size() + 7);
                ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.READ_RESPONSE, r.size()));
                engine.readResponse(b, ByteBuffer.wrap(data), 0);
                readAnswers.add(data);
                out.writeBytes(b.array());
            }
        }

        void send(byte[] p, Random rnd) {
            boolean se = rnd.nextBoolean();
            int inv = rnd.nextInt(3) == 0 ? rnd.nextInt() | 1 : 0;
            ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.SEND, p.length));
            engine.send(b, ByteBuffer.wrap(p), 0, p.length, se, inv);
            sent.add(p);
            out.writeBytes(b.array());
        }

        void write(byte[] p) {
            ByteBuffer b = ByteBuffer.allocate(engine.length(RdmapOpcode.RDMA_WRITE, p.length));
            engine.write(b, 0x4200, 0x1000L * written.size(), ByteBuffer.wrap(p), 0, p.length);
            written.add(p);
            out.writeBytes(b.array());
        }

        boolean read(int size) {
            if (!engine.canReadRequest()) {
                return false;
            }
            ByteBuffer b = ByteBuffer.allocate(engine.readRequestLength());
            engine.readRequest(b, size, 0x9900, 0, readsAsked.size());
            readsAsked.add(size);
            out.writeBytes(b.array());
            return true;
        }
    }

    /** Moves what {@code from} wrote into {@code to}, in pieces of at most {@code max} bytes, retrying refusals. */
    private static void pump(Side from, Side to, Random rnd, int max) {
        from.control();
        byte[] bytes = from.out.toByteArray();
        from.out.reset();
        int at = 0;
        while (at < bytes.length) {
            int n = Math.min(bytes.length - at, 1 + rnd.nextInt(max));
            ByteBuffer in = ByteBuffer.wrap(bytes, at, n).slice();
            for (int tries = 0; !to.engine.receive(in); tries++) {
                assertThat(to.engine.state()).as("%s", to.engine.failure()).isNotEqualTo(State.TERMINATED);
                assertThat(tries).isLessThan(1000);
                to.answer();
            }
            at += n;
            to.answer();
        }
    }

    /** Reassembles Send messages from their delivered segments. */
    private static List<byte[]> messages(List<Send> segs) {
        List<byte[]> out = new ArrayList<>();
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        int msn = 1;
        for (Send s : segs) {
            assertThat(s.msn()).isEqualTo(msn);
            assertThat(s.mo()).isEqualTo(cur.size());
            cur.writeBytes(Wire.HEX.parseHex(s.payload()));
            if (s.last()) {
                out.add(cur.toByteArray());
                cur.reset();
                msn++;
            }
        }
        return out;
    }

    private static List<byte[]> reads(List<ReadResp> segs) {
        List<byte[]> out = new ArrayList<>();
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        for (ReadResp r : segs) {
            assertThat(r.token()).isEqualTo(out.size());
            assertThat(r.offset()).isEqualTo(cur.size());
            cur.writeBytes(Wire.HEX.parseHex(r.payload()));
            if (r.last()) {
                out.add(cur.toByteArray());
                cur.reset();
            }
        }
        return out;
    }

    private static List<byte[]> writes(List<Write> segs) {
        List<byte[]> out = new ArrayList<>();
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        for (Write w : segs) {
            assertThat(w.stag()).isEqualTo(0x4200);
            assertThat(w.to()).isEqualTo(0x1000L * out.size() + cur.size());
            cur.writeBytes(Wire.HEX.parseHex(w.payload()));
            if (w.last()) {
                out.add(cur.toByteArray());
                cur.reset();
            }
        }
        return out;
    }

    private static void assertSame(List<byte[]> got, List<byte[]> want) {
        assertThat(got).hasSameSizeAs(want);
        for (int i = 0; i < want.size(); i++) {
            assertThat(got.get(i)).as("message %d", i).isEqualTo(want.get(i));
        }
    }

    private static byte[] payload(Random rnd) {
        byte[] b = new byte[rnd.nextInt(8) == 0 ? rnd.nextInt(70_000) : rnd.nextInt(600)];
        rnd.nextBytes(b);
        return b;
    }

    @Property(tries = 150)
    void bothWaysEverythingArrives(@ForAll long seed, @ForAll boolean clientCrc, @ForAll boolean gatewayCrc,
            @ForAll @IntRange(min = 1, max = 4) int clientIrd, @ForAll @IntRange(min = 1, max = 4) int gatewayIrd,
            @ForAll @IntRange(min = 0, max = 3) int clientFpdu, @ForAll @IntRange(min = 0, max = 3) int gatewayFpdu) {
        Random rnd = new Random(seed);
        int[] sizes = {64, 256, 1448, 65535};
        Side client = new Side(rec -> IwarpConnection.initiator(clientCrc, clientIrd, clientIrd, sizes[clientFpdu],
                rec), rnd);
        Side gateway = new Side(rec -> new IwarpConnection(gatewayCrc, sizes[gatewayFpdu], rec), rnd);
        int max = 1 + rnd.nextInt(rnd.nextBoolean() ? 16 : 5000);

        pump(client, gateway, rnd, max);                                  // the Request
        assertThat(gateway.engine.state()).isEqualTo(State.DECIDING);
        gateway.engine.accept(gatewayIrd, gatewayIrd, new byte[0]);
        pump(gateway, client, rnd, max);                                  // the Reply
        assertThat(client.engine.state()).isEqualTo(State.ESTABLISHED);
        assertThat(client.engine.settings().crc()).isEqualTo(gateway.engine.settings().crc())
                .isEqualTo(clientCrc || gatewayCrc);
        assertThat(gateway.engine.canTransmit()).isFalse();

        for (int step = 0; step < 30; step++) {
            Side who = step == 0 || rnd.nextBoolean() ? client : gateway;
            if (who.engine.canTransmit()) {
                switch (rnd.nextInt(3)) {
                    case 0 -> who.send(payload(rnd), rnd);
                    case 1 -> who.write(payload(rnd));
                    default -> who.read(payload(rnd).length);
                }
            }
            if (rnd.nextInt(3) == 0) {
                pump(client, gateway, rnd, max);
                pump(gateway, client, rnd, max);
            }
        }
        for (int i = 0; i < 4; i++) {
            pump(client, gateway, rnd, max);
            pump(gateway, client, rnd, max);
        }

        for (Side s : List.of(client, gateway)) {
            assertThat(s.engine.failure()).isNull();
            assertThat(s.engine.state()).isEqualTo(State.ESTABLISHED);
            assertThat(s.rec.of(Recorder.Failed.class)).isEmpty();
        }
        assertSame(messages(gateway.rec.of(Send.class)), client.sent);
        assertSame(messages(client.rec.of(Send.class)), gateway.sent);
        assertSame(writes(gateway.rec.of(Write.class)), client.written);
        assertSame(writes(client.rec.of(Write.class)), gateway.written);
        assertSame(reads(client.rec.of(ReadResp.class)), gateway.readAnswers);
        assertSame(reads(gateway.rec.of(ReadResp.class)), client.readAnswers);
        assertThat(gateway.rec.of(ReadReq.class)).extracting(r -> r.request().size())
                .containsExactlyElementsOf(client.readsAsked);
        assertThat(client.rec.of(ReadReq.class)).extracting(r -> r.request().size())
                .containsExactlyElementsOf(gateway.readsAsked);
        assertThat(client.engine.readsOwedToClient()).isZero();
        assertThat(gateway.engine.readsOwedToClient()).isZero();
        assertThat(client.engine.canReadRequest() && gateway.engine.canReadRequest()).isTrue();
    }
}

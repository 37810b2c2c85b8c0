package io.vibridge.iwarp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.engine.IwarpConnection.State;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaInitiator;
import io.vibridge.iwarp.mpa.MpaKey;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.mpa.Rtr;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * 100,000 client byte streams through a fresh engine each, in random pieces (heap and direct buffers), with
 * a handler that refuses deliveries at random (never twice running), answers the client's Read Requests and
 * sends Read Requests of its own from inside its callbacks, and decides the MPA Request in the ways an owner
 * may (accept later or at once, reject, terminate). A quarter of the streams are valid, built with
 * {@link MpaInitiator} and {@link Wire} against a model of the engine's IRD/ORD/MSN state: those must end
 * without failure and deliver every segment. The rest are mutated (bits, bytes, cuts, deletions,
 * insertions, duplications, noise).
 *
 * <p>For every stream: {@code receive} returns normally (the engine turns protocol errors into Terminates
 * itself: any exception escaping is a bug), returning true only when it took everything; the state only
 * moves forward; data reaches the handler only while ESTABLISHED; {@code failed} and {@code terminated}
 * come at most once, not both; the control output is at most the Reply, one zero-length Read Response per
 * Read RTR, then at most one Terminate (naming the failure's code) or Reject Reply, and nothing after it;
 * once TERMINATED, nothing more is read, delivered or queued.
 */
class IwarpConnectionFuzzTest {

    private static final int STREAMS = 100_000;
    private static final byte[] REPLY_KEY = MpaKey.REPLY.text().getBytes(StandardCharsets.US_ASCII);
    private static final int[] FPDU_SIZES = {56, 64, 100, 256, 1448, 9000, 32768, 65535};

    /** A valid client stream and what it should deliver. */
    private record Plan(boolean crcRequired, int maxFpdu, int ird, int ord, byte[] replyPd, byte[] stream,
                        int requestLength, int[] gatewayReads, int sendSegments, int writeSegments, int readRequests,
                        int responseSegments, boolean endsWithTerminate) {
    }

    private static final class Handler implements IwarpConnection.Handler {
        final Random rnd;
        final int[] gatewayReads;
        IwarpConnection engine;
        boolean acceptAtOnce;
        int ird;
        int ord;
        byte[] replyPd;
        boolean lastRefused;
        int issued;
        int sends;
        int writes;
        int readRequests;
        int responses;
        int refusals;
        int terminated;
        int failed;
        final ByteBuffer scratch = ByteBuffer.allocate(70_000);
        final ByteBuffer src = ByteBuffer.allocate(70_000);

        Handler(Random rnd, int[] gatewayReads) {
            this.rnd = rnd;
            this.gatewayReads = gatewayReads;
        }

        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            if (engine.state() != State.DECIDING) {
                throw new AssertionError("requested while " + engine.state());
            }
            if (acceptAtOnce) {
                engine.accept(ird, ord, replyPd);
            }
        }

        /** On every delivery: answer the client's Read Requests, and read from it while the ORD allows. */
        private boolean deliver(DdpSegment s) {
            if (engine.state() != State.ESTABLISHED) {
                throw new AssertionError("a delivery while " + engine.state());
            }
            if (!lastRefused && rnd.nextInt(5) == 0) {      // no buffer now: nothing done, offered again later
                lastRefused = true;
                refusals++;
                return false;
            }
            lastRefused = false;
            if (s != null && (s.payloadLength() < 0 || s.payloadOffset() + s.payloadLength() > s.buffer().limit())) {
                throw new AssertionError("payload outside the buffer");
            }
            for (ReadRequest r; (r = engine.oldestOwedRead()) != null; ) {
                if (Integer.compareUnsigned(r.size(), 65_000) > 0) {
                    break;                   // the owner's to refuse (terminate); not answered here
                }
                int n = engine.length(RdmapOpcode.READ_RESPONSE, r.size());
                ByteBuffer dst = n <= scratch.capacity() ? scratch.clear().limit(n) : ByteBuffer.allocate(n);
                engine.readResponse(dst, src, 0);
                if (dst.position() != n) {
                    throw new AssertionError("length() " + n + " but " + dst.position() + " written");
                }
            }
            while (issued < gatewayReads.length && engine.canReadRequest()) {
                scratch.clear();
                engine.readRequest(scratch, gatewayReads[issued], 0x77, issued, issued);
                issued++;
            }
            return true;
        }

        @Override
        public boolean send(DdpSegment s) {
            if (!s.opcode().isSend()) {
                throw new AssertionError(s.opcode() + " as a Send");
            }
            return deliver(s) && ++sends > 0;
        }

        @Override
        public boolean write(DdpSegment s) {
            return deliver(s) && ++writes > 0;
        }

        @Override
        public boolean readRequest(ReadRequest request) {
            return deliver(null) && ++readRequests > 0;
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment s) {
            if (!(token instanceof Integer i) || i >= issued || offset < 0 || offset + s.payloadLength()
                    > gatewayReads[i]) {
                throw new AssertionError("Read Response for " + token + " at " + offset);
            }
            return deliver(s) && ++responses > 0;
        }

        @Override
        public void terminated(Terminate terminate) {
            if (terminated + failed > 0 || engine.state() != State.TERMINATED) {
                throw new AssertionError("terminated twice or while " + engine.state());
            }
            terminate.toString();
            terminated++;
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            if (terminated + failed > 0 || engine.state() != State.TERMINATED) {
                throw new AssertionError("failed twice or while " + engine.state());
            }
            failed++;
        }
    }

    // ----------------------------------------------------------------------------------------- valid streams

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static int size(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> 0;
            case 1 -> r.nextInt(3000);
            default -> r.nextInt(200);
        };
    }

    /** Cuts {@code n} bytes into random segments (any sizes: the client's FPDU size is its own). */
    private static List<Integer> cuts(Random r, int n) {
        List<Integer> c = new ArrayList<>();
        int max = 1 + r.nextInt(r.nextBoolean() ? 64 : 2000);
        do {
            int k = Math.min(n, 1 + r.nextInt(max));
            c.add(k);
            n -= k;
        } while (n > 0);
        return c;
    }

    private static Plan plan(Random r) {
        boolean clientCrc = r.nextInt(3) == 0;
        boolean crcRequired = r.nextInt(6) == 0;
        boolean p2p = r.nextInt(3) == 0;
        MpaV2Params offer = new MpaV2Params(r.nextInt(5), r.nextInt(5), p2p, false, p2p && r.nextBoolean(),
                p2p && r.nextBoolean());
        MpaInitiator client = new MpaInitiator(clientCrc, offer, bytes(r, r.nextInt(3) == 0 ? r.nextInt(40) : 0));
        byte[] request = client.request();
        int maxFpdu = FPDU_SIZES[r.nextInt(FPDU_SIZES.length)];
        int ird = r.nextInt(5);
        int ord = r.nextInt(5);
        byte[] replyPd = bytes(r, r.nextInt(4) == 0 ? r.nextInt(30) : 0);

        // what the engine will settle, from a dry run
        IwarpConnection dry = new IwarpConnection(crcRequired, maxFpdu, new Recorder());
        dry.receive(ByteBuffer.wrap(request));
        MpaSettings st = dry.accept(ird, ord, replyPd);
        boolean crc = st.crc();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(request);
        int sendMsn = 1;
        int readMsn = 1;
        if (st.rtr() == Rtr.WRITE) {
            out.writeBytes(Wire.tagged(crc, RdmapOpcode.RDMA_WRITE, true, 1, 0, new byte[0]));
        } else if (st.rtr() == Rtr.READ) {
            out.writeBytes(Wire.readRequest(crc, readMsn++, new ReadRequest(r.nextInt(), r.nextLong(), 0, 1, 0)));
        }
        int[] gatewayReads = new int[r.nextInt(4)];
        for (int i = 0; i < gatewayReads.length; i++) {
            gatewayReads[i] = size(r);
        }
        int issued = 0;
        int completed = 0;
        int owed = 0;
        int sendSegs = 0;
        int writeSegs = 0;
        int rrs = 0;
        int respSegs = 0;
        for (int m = r.nextInt(12); m > 0; m--) {
            int kind = r.nextInt(10);
            if (kind <= 3 || kind == 9) {
                RdmapOpcode op = RdmapOpcode.values()[RdmapOpcode.SEND.ordinal() + r.nextInt(4)];
                int inv = op.invalidates() ? r.nextInt() : 0;
                byte[] p = bytes(r, kind == 9 ? 0 : size(r));
                int mo = 0;
                for (int k : cuts(r, p.length)) {
                    out.writeBytes(Wire.untagged(crc, op, mo + k == p.length, inv, sendMsn, mo,
                            Arrays.copyOfRange(p, mo, mo + k)));
                    mo += k;
                    sendSegs++;
                }
                sendMsn++;
            } else if (kind == 4) {
                byte[] p = bytes(r, size(r));
                int stag = r.nextInt();
                long to = r.nextLong() >>> 2;
                int done = 0;
                for (int k : cuts(r, p.length)) {
                    out.writeBytes(Wire.tagged(crc, RdmapOpcode.RDMA_WRITE, done + k == p.length, stag, to + done,
                            Arrays.copyOfRange(p, done, done + k)));
                    done += k;
                    writeSegs++;
                }
            } else if (kind <= 6) {
                if (owed >= st.ird()) {
                    continue;                                  // beyond the IRD: not in a valid stream
                }
                out.writeBytes(Wire.readRequest(crc, readMsn++, new ReadRequest(r.nextInt(), r.nextLong(),
                        size(r), r.nextInt(), r.nextLong())));
                owed++;                                        // (the engine holds 1 here: an upper bound)
                rrs++;
                issued = Math.min(gatewayReads.length, Math.max(issued, completed + st.ord()));
                continue;
            } else {
                if (issued == completed) {
                    continue;
                }
                int len = gatewayReads[completed];
                int stag = 0x100 * (completed + 1);           // the engine's sink STags, in order
                int done = 0;
                for (int k : cuts(r, len)) {
                    out.writeBytes(Wire.tagged(crc, RdmapOpcode.READ_RESPONSE, done + k == len, stag, done,
                            Arrays.copyOfRange(bytes(r, k), 0, k)));
                    done += k;
                    respSegs++;
                }
                completed++;
                owed = 0;
                issued = Math.min(gatewayReads.length, Math.max(issued, completed - 1 + st.ord()));
                continue;
            }
            // a Send or Write was delivered: owed reads answered, reads issued up to the ORD
            owed = 0;
            issued = Math.min(gatewayReads.length, Math.max(issued, completed + st.ord()));
        }
        boolean terminate = r.nextInt(10) == 0;
        if (terminate) {
            TerminateCode c = TerminateCode.values()[r.nextInt(TerminateCode.values().length)];
            out.writeBytes(Wire.terminate(crc, 1, Terminate.of(c)));
        }
        return new Plan(crcRequired, maxFpdu, ird, ord, replyPd, out.toByteArray(), request.length, gatewayReads,
                sendSegs, writeSegs, rrs, respSegs, terminate);
    }

    // ----------------------------------------------------------------------------------------- mutation

    private static byte[] mutate(Random r, byte[] s, int requestLength) {
        for (int ops = 1 + r.nextInt(3); ops > 0; ops--) {
            int at = s.length == 0 ? 0 : r.nextInt(10) < 8 && s.length > requestLength
                    ? requestLength + r.nextInt(s.length - requestLength) : r.nextInt(s.length);
            switch (r.nextInt(8)) {
                case 0, 1 -> {
                    for (int k = 1 + r.nextInt(4); k > 0 && s.length > 0; k--) {
                        int i = k == 1 ? Math.min(at, s.length - 1) : r.nextInt(s.length);
                        s[i] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                case 2 -> {
                    for (int k = 1 + r.nextInt(8); k > 0 && at < s.length; k--) {
                        s[at++] = (byte) r.nextInt();
                    }
                }
                case 3 -> s = Arrays.copyOf(s, Math.min(at, s.length));
                case 4 -> {
                    int n = Math.min(s.length - at, 1 + r.nextInt(100));
                    byte[] t = new byte[s.length - n];
                    System.arraycopy(s, 0, t, 0, at);
                    System.arraycopy(s, at + n, t, at, s.length - at - n);
                    s = t;
                }
                case 5 -> s = Wire.concat(Arrays.copyOf(s, at), bytes(r, 1 + r.nextInt(60)),
                        Arrays.copyOfRange(s, at, s.length));
                case 6 -> {
                    int from = s.length == 0 ? 0 : r.nextInt(s.length);
                    int n = Math.min(s.length - from, r.nextInt(300));
                    s = Wire.concat(Arrays.copyOf(s, at), Arrays.copyOfRange(s, from, from + n),
                            Arrays.copyOfRange(s, at, s.length));
                }
                default -> {
                    if (r.nextInt(4) == 0) {
                        s = Wire.concat(Arrays.copyOf(s, Math.min(at, s.length)), bytes(r, r.nextInt(400)));
                    } else if (at + 2 <= s.length) {
                        s[at] = (byte) r.nextInt();                 // e.g. an FPDU's length field
                        s[at + 1] = (byte) r.nextInt();
                    }
                }
            }
        }
        return s;
    }

    // ----------------------------------------------------------------------------------------- one stream

    private static final class Run {
        final Random r;
        final Plan plan;
        final boolean valid;
        final byte[] stream;
        final Handler h;
        final IwarpConnection engine;
        boolean decided;
        boolean accepted;
        boolean rejected;
        boolean ownerTerminated;
        int replies;
        int rtrAnswers;
        int ends;                    // Terminates and Reject Replies seen
        State seen = State.AWAITING_REQUEST;
        final Map<TerminateCode, Integer> codes;

        Run(Random r, Plan plan, boolean valid, byte[] stream, Map<TerminateCode, Integer> codes) {
            this.r = r;
            this.plan = plan;
            this.valid = valid;
            this.stream = stream;
            this.codes = codes;
            h = new Handler(new Random(r.nextLong()), plan.gatewayReads());
            h.ird = plan.ird();
            h.ord = plan.ord();
            h.replyPd = plan.replyPd();
            h.acceptAtOnce = r.nextInt(4) == 0;
            engine = new IwarpConnection(plan.crcRequired(), plan.maxFpdu(), h);
            h.engine = engine;
        }

        void go() {
            int split = valid || r.nextInt(3) > 0 ? Math.min(plan.requestLength(), stream.length)
                    : r.nextInt(stream.length + 1);
            feed(0, split);
            decide();
            feed(split, stream.length);
            decide();
            check();
            if (engine.state() == State.TERMINATED) {
                int events = h.sends + h.writes + h.readRequests + h.responses + h.terminated + h.failed;
                ByteBuffer more = ByteBuffer.wrap(bytes(r, 1 + r.nextInt(100)));
                assertThat(engine.receive(more)).isFalse();
                assertThat(h.sends + h.writes + h.readRequests + h.responses + h.terminated + h.failed)
                        .isEqualTo(events);
                assertThat(engine.pollControl()).isNull();
            }
        }

        private void decide() {
            if (engine.state() != State.DECIDING || decided) {
                return;
            }
            decided = true;
            int d = valid ? 0 : r.nextInt(20);
            if (d == 1) {
                engine.reject(bytes(r, r.nextInt(10)));
                rejected = true;
            } else if (d == 2) {
                engine.terminate(TerminateCode.RDMAP_CATASTROPHIC_STREAM, "the InfiniBand side refused");
                ownerTerminated = true;
            } else {
                engine.accept(plan.ird(), plan.ord(), plan.replyPd());
            }
            check();
        }

        private void feed(int from, int to) {
            int at = from;
            int max = switch (r.nextInt(4)) {
                case 0 -> 8;
                case 1 -> 100;
                case 2 -> 3000;
                default -> 70_000;
            };
            while (at < to) {
                int n = Math.min(to - at, 1 + r.nextInt(max));
                ByteBuffer in = r.nextBoolean() ? ByteBuffer.allocate(n + 16) : ByteBuffer.allocateDirect(n + 16);
                in.position(r.nextInt(16));
                in.put(stream, at, n).flip().position(in.limit() - n);
                at += n;
                for (int tries = 0; ; tries++) {
                    int before = in.position();
                    boolean ok = engine.receive(in);
                    check();
                    assertThat(in.position()).as("receive moves forward only").isGreaterThanOrEqualTo(before);
                    if (ok) {
                        assertThat(in.hasRemaining()).as("true only when all is taken").isFalse();
                        break;
                    }
                    if (engine.state() == State.TERMINATED) {
                        break;
                    }
                    assertThat(tries).as("no progress").isLessThan(100_000);
                }
                decide();
            }
        }

        /** State forward only; control output as promised. */
        private void check() {
            State now = engine.state();
            assertThat(now.ordinal()).as("state %s after %s", now, seen).isGreaterThanOrEqualTo(seen.ordinal());
            seen = now;
            if (engine.state() == State.AWAITING_FIRST_FPDU || engine.state() == State.ESTABLISHED) {
                accepted = true;
            }
            for (ByteBuffer b; (b = engine.pollControl()) != null; ) {
                assertThat(ends).as("nothing after a Terminate or Reject").isZero();
                byte[] c = Wire.bytes(b);
                if (c.length >= 16 && Arrays.equals(c, 0, 16, REPLY_KEY, 0, 16)) {
                    MpaFrame f = MpaFrame.decode(ByteBuffer.wrap(c), 0, c.length, MpaKey.REPLY);
                    assertThat(f).isNotNull();
                    assertThat(f.length()).isEqualTo(c.length);
                    if (f.reject()) {
                        ends++;
                        assertThat(now).isEqualTo(State.TERMINATED);
                        assertThat(rejected || engine.failure() != null).isTrue();
                    } else {
                        assertThat(replies++).as("one Reply").isZero();
                        assertThat(rtrAnswers).isZero();
                    }
                    continue;
                }
                assertThat(replies).as("an FPDU before the Reply").isEqualTo(1);
                List<Wire.Seg> segs = Wire.decode(c, engine.settings().crc());
                assertThat(segs).hasSize(1);
                Wire.Seg g = segs.getFirst();
                if (g.op() == RdmapOpcode.TERMINATE) {
                    ends++;
                    assertThat(now).isEqualTo(State.TERMINATED);
                    TerminateCode code = g.terminate().code();
                    assertThat(engine.failure()).isNotNull();
                    assertThat(code).isEqualTo(engine.failure().code());
                    codes.merge(code, 1, Integer::sum);
                } else {
                    assertThat(g.op()).isEqualTo(RdmapOpcode.READ_RESPONSE);
                    assertThat(g.payload()).isEmpty();
                    assertThat(engine.settings().rtr()).isEqualTo(Rtr.READ);
                    assertThat(rtrAnswers++).as("one Read RTR answer").isZero();
                }
            }
            if (engine.failure() != null) {
                assertThat(now).isEqualTo(State.TERMINATED);
                assertThat(h.failed).isEqualTo(1);
            }
        }

        void checkValid() {
            assertThat(engine.failure()).as("a valid stream failed").isNull();
            assertThat(h.failed).isZero();
            assertThat(h.sends).isEqualTo(plan.sendSegments());
            assertThat(h.writes).isEqualTo(plan.writeSegments());
            assertThat(h.readRequests).isEqualTo(plan.readRequests());
            assertThat(h.responses).isEqualTo(plan.responseSegments());
            assertThat(h.terminated).isEqualTo(plan.endsWithTerminate() ? 1 : 0);
            assertThat(engine.state()).isIn(plan.endsWithTerminate() ? List.of(State.TERMINATED)
                    : List.of(State.ESTABLISHED, State.AWAITING_FIRST_FPDU));
        }
    }

    @Test
    void hundredThousandStreamsNothingEscapes() {
        Random seeds = new Random(0x1_5EED_2026L);
        Map<TerminateCode, Integer> codes = new EnumMap<>(TerminateCode.class);
        int valid = 0;
        int failedStreams = 0;
        int refusals = 0;
        long bytes = 0;
        for (int i = 0; i < STREAMS; i++) {
            long seed = seeds.nextLong();
            Random r = new Random(seed);
            Plan plan = plan(r);
            boolean isValid = r.nextInt(4) == 0;
            byte[] stream = isValid ? plan.stream() : mutate(r, plan.stream().clone(), plan.requestLength());
            Run run = new Run(r, plan, isValid, stream, codes);
            try {
                run.go();
                if (isValid) {
                    run.checkValid();
                }
            } catch (Throwable t) {
                throw new AssertionError("stream " + i + " (seed " + seed + ", " + (isValid ? "valid" : "mutated")
                        + ", " + stream.length + " bytes): " + HexFormat.of().formatHex(stream, 0,
                        Math.min(stream.length, 400)), t);
            }
            valid += isValid ? 1 : 0;
            failedStreams += run.engine.failure() != null ? 1 : 0;
            refusals += run.h.refusals;
            bytes += stream.length;
        }
        String stats = String.format("%d streams (%d valid), %d bytes, %d failed, %d refusals, Terminates %s",
                STREAMS, valid, bytes, failedStreams, refusals, codes);
        assertThat(valid).as(stats).isGreaterThan(STREAMS / 5);
        assertThat(failedStreams).as(stats).isGreaterThan(STREAMS / 3);
        assertThat(refusals).as(stats).isGreaterThan(STREAMS);
        assertThat(codes).as(stats).containsKeys(TerminateCode.MPA_CRC, TerminateCode.DDP_UNTAGGED_MSN_RANGE,
                TerminateCode.DDP_UNTAGGED_INVALID_MO, TerminateCode.DDP_TAGGED_INVALID_STAG,
                TerminateCode.DDP_TAGGED_BASE_BOUNDS, TerminateCode.RDMAP_UNEXPECTED_OPCODE,
                TerminateCode.DDP_UNTAGGED_VERSION, TerminateCode.RDMAP_VERSION);
    }
}

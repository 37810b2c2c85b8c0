package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.mpa.FpduReader;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaInitiator;
import io.vibridge.iwarp.mpa.MpaResponder;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.mpa.Rtr;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * One iWARP stream, responder side (the gateway's), without I/O: bytes from TCP go in through
 * {@link #receive}, decoded messages come out to a {@link Handler}, and what the owner wants to send is
 * laid out into its buffers whole, one message at a time. It holds what RFC 5040/5041 make per-stream
 * state: the MPA setup (RFC 5044 §7, RFC 6581), the inbound MSN and Message Offset of each untagged queue,
 * the client's Read Requests still owed a Read Response (at most the IRD this side announced), the
 * gateway's own Read Requests to the client (at most the ORD agreed, each with a sink STag of the
 * gateway's own), and the RTR exchange of peer-to-peer mode.
 *
 * <p>Order of life: {@link State#AWAITING_REQUEST} -> the Request is handed to
 * {@link Handler#requested} ({@link State#DECIDING}: the owner connects the InfiniBand side first) ->
 * {@link #accept} gives the Reply ({@link State#AWAITING_FIRST_FPDU}: RFC 5044 §7.1.2, the responder
 * sends nothing until it has the initiator's first FPDU, which in peer-to-peer mode is the RTR, absorbed
 * here) -> {@link State#ESTABLISHED}. A protocol error queues a Terminate (RFC 5040 §7) and ends in
 * {@link State#TERMINATED}; so does a Terminate from the client. Single-threaded.
 */
public final class IwarpConnection {

    public enum State {
        /** Initiator: the Request went out (in {@link #pollControl}); no whole Reply yet. */
        AWAITING_REPLY,
        /** TCP is up; no whole MPA Request yet. */
        AWAITING_REQUEST,
        /** A valid Request awaits {@link #accept} or {@link #reject}. */
        DECIDING,
        /** The Reply went out; nothing may be sent until the client's first FPDU arrives. */
        AWAITING_FIRST_FPDU,
        ESTABLISHED,
        /** A Terminate was sent or received, or the Request was refused: only close remains. */
        TERMINATED
    }

    /** What the stream delivers, one method per message kind; a {@code false} return refuses it for now. */
    public interface Handler {
        /** The client's MPA Request, valid for revision 2: decide with {@link #accept} or {@link #reject}. */
        void requested(MpaFrame request, MpaV2Params params);

        /**
         * One segment of a client Send (any of the four kinds, {@link DdpSegment#opcode()}); segments of a
         * message come in order, the last with {@link DdpSegment#last()}. The view is valid during the call.
         */
        boolean send(DdpSegment segment);

        /** One segment of a client RDMA Write (STag and Tagged Offset as the client sent them). */
        boolean write(DdpSegment segment);

        /** A client Read Request (within the IRD): answer it, in order, with {@link #readResponse}. */
        boolean readRequest(ReadRequest request);

        /**
         * One segment of the Read Response to the gateway's Read Request {@code token} ({@link #readRequest}),
         * at {@code offset} of the requested data; checked against the request's sink STag and bounds.
         */
        boolean readResponse(Object token, long offset, DdpSegment segment);

        /** The client sent a Terminate: the stream is over. */
        void terminated(Terminate terminate);

        /** The stream failed (a protocol error, or a refused Request): a Terminate or a Reject Reply is queued. */
        void failed(IwarpProtocolException cause);
    }

    /** A Read Request of the gateway's, owed a Read Response by the client. */
    private record OwedRead(int sinkStag, int length, Object token) {
    }

    private final Handler handler;
    private final int maxFpdu;
    private final MpaResponder mpa;
    /** The initiator role's MPA side (a test or benchmark client of the gateway), else null. */
    private final MpaInitiator initiator;
    private final FpduReader reader;
    private final DdpSegment segment = new DdpSegment();
    private State state = State.AWAITING_REQUEST;
    private MpaSettings settings;
    private RdmapWriter writer;
    /** Control output the engine generated itself (the Reply, a Read Response to a Read RTR, a Terminate). */
    private final ArrayDeque<ByteBuffer> control = new ArrayDeque<>(2);
    private IwarpProtocolException failure;
    private Terminate received;
    /** Initiator: the Reply that rejected the Request, or null. */
    private MpaFrame rejectReply;

    /** Inbound: next MSN per untagged queue, and the next Message Offset of the current Send. */
    private final int[] expectedMsn = {1, 1, 1};
    private int sendOffset;

    /** The client's Read Requests not answered yet, oldest first. */
    private final ArrayDeque<ReadRequest> owedToClient = new ArrayDeque<>();
    /** The gateway's Read Requests the client has not answered yet, oldest first. */
    private final ArrayDeque<OwedRead> owedByClient = new ArrayDeque<>();
    /** Bytes of the oldest owed Read Response received so far. */
    private long responseReceived;
    /** Bytes of the Read Response to the oldest client Read Request laid out so far. */
    private long responseSent;
    private int nextSinkStag = 0x100;

    /**
     * @param crcRequired ask for CRC32C even when the client does not (RFC 5044 §7.1)
     * @param maxFpdu     the largest FPDU this side emits (see {@link RdmapWriter})
     */
    public IwarpConnection(boolean crcRequired, int maxFpdu, Handler handler) {
        this(handler, maxFpdu, new MpaResponder(crcRequired), null);
    }

    private IwarpConnection(Handler handler, int maxFpdu, MpaResponder mpa, MpaInitiator initiator) {
        this.handler = handler;
        this.maxFpdu = maxFpdu;
        this.mpa = mpa;
        this.initiator = initiator;
        this.reader = new FpduReader(this::ulpdu);
        RdmapWriter.maxUlpdu(maxFpdu); // fails early on a useless size
        if (initiator != null) {
            state = State.AWAITING_REPLY;
            control.add(ByteBuffer.wrap(initiator.request()));
        }
    }

    /**
     * The initiator side (a client of the gateway: tests, {@code perf}): the MPA Request, revision 2 with
     * {@code ird}/{@code ord} and no peer-to-peer mode, is the first control output; once the Reply
     * accepts, the stream is {@link State#ESTABLISHED} at once (RFC 5044 §7.1.1: the initiator speaks first).
     */
    public static IwarpConnection initiator(boolean crc, int ird, int ord, int maxFpdu, Handler handler) {
        return initiator(crc, ird, ord, maxFpdu, new byte[0], handler);
    }

    /** As {@link #initiator(boolean, int, int, int, Handler)}, the Request carrying the ULP's {@code privateData}. */
    public static IwarpConnection initiator(boolean crc, int ird, int ord, int maxFpdu, byte[] privateData,
            Handler handler) {
        return new IwarpConnection(handler, maxFpdu, null, new MpaInitiator(crc, MpaV2Params.of(ird, ord), privateData));
    }

    public State state() {
        return state;
    }

    /** What the MPA exchange settled (null before {@link #accept}). */
    public MpaSettings settings() {
        return settings;
    }

    /** The protocol error that ended the stream, or null. */
    public IwarpProtocolException failure() {
        return failure;
    }

    /** Initiator: the Reply that rejected the Request (its ULP private data says why), or null. */
    public MpaFrame rejectReply() {
        return rejectReply;
    }

    /** The client's Terminate, or null. */
    public Terminate receivedTerminate() {
        return received;
    }

    // ================================================================================ input

    /**
     * Consumes bytes from TCP. Returns false when the handler refused a message (or the stream ended):
     * {@code in}'s position is then at the first byte not taken, to be offered again later.
     */
    public boolean receive(ByteBuffer in) {
        try {
            if (state == State.AWAITING_REPLY) {
                switch (initiator.receive(in)) {
                    case MpaInitiator.Verdict.NeedMore n -> {
                        return true;
                    }
                    case MpaInitiator.Verdict.Accepted a -> {
                        established(a.settings());
                        state = State.ESTABLISHED;
                    }
                    case MpaInitiator.Verdict.Rejected r -> {
                        state = State.TERMINATED;
                        rejectReply = r.reply();
                        fail(new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "MPA Reply", 0,
                                "rejected: " + new String(r.reply().privateData(), StandardCharsets.US_ASCII)));
                        return false;
                    }
                }
            }
            if (state == State.AWAITING_REQUEST) {
                switch (mpa.receive(in)) {
                    case MpaResponder.Outcome.NeedMore n -> {
                        return true;
                    }
                    case MpaResponder.Outcome.Requested r -> {
                        state = State.DECIDING;
                        if (in.hasRemaining()) {
                            // in the Request's own read, so sent before any Reply: checked before the owner is
                            // asked, who may accept at once (bytes would then pass as the first FPDU)
                            throw bytesBeforeReply();
                        }
                        handler.requested(r.request(), r.params());
                    }
                    case MpaResponder.Outcome.Refused r -> {
                        state = State.TERMINATED;
                        control.add(ByteBuffer.wrap(r.reply()));
                        fail(new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "MPA Request", 0,
                                r.reason()));
                        return false;
                    }
                }
            }
            if (state == State.DECIDING) {
                if (in.hasRemaining()) {
                    throw bytesBeforeReply();
                }
                return true;
            }
            if (state == State.TERMINATED) {
                in.position(in.limit()); // after a Terminate nothing more is read (RFC 5040 §5.4)
                return false;
            }
            return reader.receive(in);
        } catch (IwarpProtocolException e) {
            terminate(e);
            return false;
        }
    }

    /** RFC 5044 §7.1.2: the initiator sends nothing after its Request before it has the Reply. */
    private static IwarpProtocolException bytesBeforeReply() {
        return new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "FPDU", 0,
                "bytes after the MPA Request before the Reply");
    }

    private boolean ulpdu(ByteBuffer buf, int off, int length) {
        DdpSegment s = segment.wrap(buf, off, length);
        if (state == State.AWAITING_FIRST_FPDU) {
            state = State.ESTABLISHED;
            if (absorbRtr(s)) {
                return true;
            }
        } else if (state != State.ESTABLISHED) {
            return false;
        }
        return switch (s.opcode()) {
            case SEND, SEND_INVALIDATE, SEND_SE, SEND_SE_INVALIDATE -> send(s);
            case RDMA_WRITE -> handler.write(s);
            case READ_REQUEST -> readRequest(s);
            case READ_RESPONSE -> readResponse(s);
            case TERMINATE -> {
                checkMsn(s, RdmapOpcode.QN_TERMINATE);
                received = s.terminate();
                state = State.TERMINATED;
                handler.terminated(received);
                yield false;
            }
        };
    }

    /**
     * RFC 6581 §5: in peer-to-peer mode the initiator's first FPDU is the RTR the Reply chose, a zero-length
     * RDMA Write (siw sends it to STag 1) or a zero-length Read Request, answered by a zero-length Read
     * Response. It is the stream's own and goes no further.
     */
    private boolean absorbRtr(DdpSegment s) {
        Rtr rtr = settings.rtr();
        if (rtr == Rtr.WRITE && s.opcode() == RdmapOpcode.RDMA_WRITE && s.last() && s.payloadLength() == 0) {
            return true;
        }
        if (rtr == Rtr.READ && s.opcode() == RdmapOpcode.READ_REQUEST) {
            ReadRequest r = s.readRequest();
            if (r.size() == 0) {
                checkMsn(s, RdmapOpcode.QN_READ_REQUEST);
                ByteBuffer b = ByteBuffer.allocate(writer.length(RdmapOpcode.READ_RESPONSE, 0));
                writer.tagged(b, RdmapOpcode.READ_RESPONSE, r.sinkStag(), r.sinkOffset(), b, 0, 0);
                control.add(b.flip());
                return true;
            }
        }
        return false;
    }

    private boolean send(DdpSegment s) {
        int msn = expectedMsn[RdmapOpcode.QN_SEND];
        if (s.msn() != msn) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_MSN_RANGE, "MSN", s.payloadOffset() - 8,
                    "Send MSN " + Integer.toUnsignedString(s.msn()) + ", expected " + Integer.toUnsignedString(msn));
        }
        if (s.messageOffset() != sendOffset) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_INVALID_MO, "MO", s.payloadOffset() - 4,
                    "Send segment at offset " + Integer.toUnsignedString(s.messageOffset()) + ", expected "
                            + sendOffset);
        }
        if (!handler.send(s)) {
            return false;
        }
        if (s.last()) {
            expectedMsn[RdmapOpcode.QN_SEND] = msn + 1;
            sendOffset = 0;
        } else {
            sendOffset += s.payloadLength();
        }
        return true;
    }

    private boolean readRequest(DdpSegment s) {
        if (owedToClient.size() >= settings.ird()) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_MSN_RANGE, "MSN", s.payloadOffset() - 8,
                    "a Read Request beyond the IRD of " + settings.ird() + " agreed in the MPA Reply");
        }
        int msn = expectedMsn[RdmapOpcode.QN_READ_REQUEST];
        checkMsn(s, RdmapOpcode.QN_READ_REQUEST);
        ReadRequest r = s.readRequest();
        owedToClient.add(r); // owed before the handler runs: it may answer at once (a zero-length Read)
        if (!handler.readRequest(r)) {
            owedToClient.pollLast();
            expectedMsn[RdmapOpcode.QN_READ_REQUEST] = msn;
            return false;
        }
        return true;
    }

    private boolean readResponse(DdpSegment s) {
        OwedRead head = owedByClient.peek();
        if (head == null) {
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Opcode", s.payloadOffset() - 13,
                    "a Read Response without an outstanding Read Request");
        }
        if (s.stag() != head.sinkStag) {
            throw new IwarpProtocolException(TerminateCode.DDP_TAGGED_INVALID_STAG, "STag", s.payloadOffset() - 12,
                    String.format("Read Response to STag 0x%08x, the oldest Read Request's sink is 0x%08x", s.stag(),
                            head.sinkStag));
        }
        long at = responseReceived;
        int n = s.payloadLength();
        if (s.taggedOffset() != at || at + n > head.length || (s.last() != (at + n == head.length))) {
            throw new IwarpProtocolException(TerminateCode.DDP_TAGGED_BASE_BOUNDS, "Tagged Offset",
                    s.payloadOffset() - 8, "Read Response of " + n + " bytes at " + s.taggedOffset() + (s.last()
                            ? " (last)" : "") + " for a " + head.length + "-byte Read with " + at + " received");
        }
        if (!handler.readResponse(head.token, at, s)) {
            return false;
        }
        if (s.last()) {
            owedByClient.poll();
            responseReceived = 0;
        } else {
            responseReceived = at + n;
        }
        return true;
    }

    private void checkMsn(DdpSegment s, int queue) {
        int msn = expectedMsn[queue];
        if (s.msn() != msn) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_MSN_RANGE, "MSN", s.payloadOffset() - 8,
                    "queue " + queue + " MSN " + Integer.toUnsignedString(s.msn()) + ", expected "
                            + Integer.toUnsignedString(msn));
        }
        expectedMsn[queue] = msn + 1;
    }

    // ================================================================================ setup

    /**
     * Accepts the Request (once the InfiniBand side is connected): the Reply is queued as control output.
     * {@code ird} and {@code ord} are the depths this side offers (from the target's REP).
     */
    public MpaSettings accept(int ird, int ord, byte[] ulpPrivateData) {
        requireState(State.DECIDING);
        MpaResponder.Accepted a = mpa.accept(ird, ord, ulpPrivateData);
        established(a.settings());
        control.add(ByteBuffer.wrap(a.reply()));
        state = State.AWAITING_FIRST_FPDU;
        return settings;
    }

    private void established(MpaSettings s) {
        settings = s;
        reader.crc(s.crc());
        writer = new RdmapWriter(maxFpdu, s.crc());
    }

    /**
     * Client/server mode: this side sends without waiting for the initiator's first FPDU, as Linux siw does as
     * responder ({@code siw_accept}: RTS and ESTABLISHED right after the Reply), which server-first applications
     * rely on. RFC 5044 §7.1.2 has the responder wait; siw as initiator never sends a first message of its own.
     * In peer-to-peer mode the RTR must come first (RFC 6581 §5), as siw waits for it.
     */
    public void sendFirst() {
        requireState(State.AWAITING_FIRST_FPDU);
        if (settings.rtr() != Rtr.NONE) {
            throw new IllegalStateException("peer-to-peer mode: the initiator's " + settings.rtr() + " RTR comes first");
        }
        state = State.ESTABLISHED;
    }

    /** Rejects the Request (the InfiniBand side refused): the Reject Reply is queued; then close. */
    public void reject(byte[] ulpPrivateData) {
        requireState(State.DECIDING);
        control.add(ByteBuffer.wrap(mpa.reject(ulpPrivateData)));
        state = State.TERMINATED;
    }

    // ================================================================================ output

    /** Output the engine generated itself, oldest first, or null: send it before anything else. */
    public ByteBuffer pollControl() {
        return control.poll();
    }

    public boolean hasControl() {
        return !control.isEmpty();
    }

    /** Whether messages may be sent: the client's first FPDU has arrived (RFC 5044 §7.1.2). */
    public boolean canTransmit() {
        return state == State.ESTABLISHED;
    }

    /** Wire bytes of a Send (or Write, Read Response) of {@code payload} bytes. */
    public int length(RdmapOpcode op, int payload) {
        return writer.length(op, payload);
    }

    /**
     * Lays out a Send of {@code len} bytes of {@code src} at {@code srcOff} at {@code dst}'s position (and
     * advances it): with {@code solicited} the Solicited Event kind, with {@code invalidateStag != 0} the
     * Invalidate kind.
     */
    public void send(ByteBuffer dst, ByteBuffer src, int srcOff, int len, boolean solicited, int invalidateStag) {
        requireTransmit();
        RdmapOpcode op = invalidateStag != 0
                ? (solicited ? RdmapOpcode.SEND_SE_INVALIDATE : RdmapOpcode.SEND_INVALIDATE)
                : (solicited ? RdmapOpcode.SEND_SE : RdmapOpcode.SEND);
        writer.send(dst, op, invalidateStag, src, srcOff, len);
    }

    /** Lays out an RDMA Write of {@code len} bytes to the client's {@code stag} at {@code to}. */
    public void write(ByteBuffer dst, int stag, long to, ByteBuffer src, int srcOff, int len) {
        requireTransmit();
        writer.tagged(dst, RdmapOpcode.RDMA_WRITE, stag, to, src, srcOff, len);
    }

    /** Whether another Read Request of the gateway's fits in the ORD agreed. */
    public boolean canReadRequest() {
        return canTransmit() && owedByClient.size() < settings.ord();
    }

    /** Wire bytes of a Read Request. */
    public int readRequestLength() {
        return writer.length(RdmapOpcode.READ_REQUEST, 0);
    }

    /**
     * Lays out a Read Request of {@code length} bytes of the client's {@code sourceStag} at {@code sourceTo},
     * into a sink STag of the gateway's own; its Read Response comes back to {@link Handler#readResponse}
     * with {@code token}.
     */
    public void readRequest(ByteBuffer dst, int length, int sourceStag, long sourceTo, Object token) {
        requireTransmit();
        if (length < 0) {
            throw new IllegalArgumentException("a Read Request of " + length + " bytes");
        }
        if (!canReadRequest()) {
            throw new IllegalStateException("the ORD of " + settings.ord() + " Read Requests is used up");
        }
        int stag = nextSinkStag;
        nextSinkStag = nextSinkStag + 0x100 == 0 ? 0x100 : nextSinkStag + 0x100; // key byte 0, never STag 0
        writer.readRequest(dst, new ReadRequest(stag, 0, length, sourceStag, sourceTo));
        owedByClient.add(new OwedRead(stag, length, token));
    }

    /** Client Read Requests still owed a Read Response. */
    public int readsOwedToClient() {
        return owedToClient.size();
    }

    /** The oldest client Read Request still owed a Read Response, or null. */
    public ReadRequest oldestOwedRead() {
        return owedToClient.peek();
    }

    /**
     * Lays out the Read Response to the oldest client Read Request: its {@code size} bytes from {@code src}.
     * A Read of 2 GiB or more (its size has the top bit set) cannot be laid out from a ByteBuffer: it stays
     * owed and this throws; the owner refuses it with {@link #terminate}.
     */
    public void readResponse(ByteBuffer dst, ByteBuffer src, int srcOff) {
        ReadRequest r = owedToClient.peek();
        if (r == null) {
            throw new IllegalStateException("no Read Request is owed a response");
        }
        if (r.size() < 0) {
            throw new IllegalStateException("a Read of " + r.sizeUnsigned() + " bytes cannot be answered");
        }
        readResponse(dst, src, srcOff, r.size());
    }

    /**
     * Lays out the next {@code len} bytes of the Read Response to the oldest client Read Request, after what
     * earlier calls laid out (an owner that reads the source in parts answers in parts, RFC 5040 §5.4: one
     * message, its segments in order); the run that completes it ends the message and the Request is answered.
     * Nothing else may go to the client while a Read Response is {@linkplain #readResponseUnfinished unfinished}:
     * its segments and another message's must not interleave.
     */
    public void readResponse(ByteBuffer dst, ByteBuffer src, int srcOff, int len) {
        requireTransmit();
        ReadRequest r = owedToClient.peek();
        if (r == null) {
            throw new IllegalStateException("no Read Request is owed a response");
        }
        long end = responseSent + len;
        if (len < 0 || end > r.sizeUnsigned()) {
            throw new IllegalArgumentException(len + " more bytes after " + responseSent + " of a " + r.sizeUnsigned()
                    + "-byte Read");
        }
        boolean ends = end == r.sizeUnsigned();
        writer.tagged(dst, RdmapOpcode.READ_RESPONSE, r.sinkStag(), r.sinkOffset() + responseSent, src, srcOff, len,
                ends);
        if (ends) {
            owedToClient.poll();
            responseSent = 0;
        } else {
            responseSent = end;
        }
    }

    /** Whether part of a Read Response went out and the rest must follow before anything else. */
    public boolean readResponseUnfinished() {
        return responseSent > 0;
    }

    /**
     * Ends the stream from this side (e.g. the InfiniBand side failed): a Terminate with {@code code} is
     * queued as control output. Nothing is queued before the Reply went out.
     */
    public void terminate(TerminateCode code, String reason) {
        terminate(new IwarpProtocolException(code, "-", 0, reason));
    }

    private void terminate(IwarpProtocolException e) {
        // before the Reply there is no FPDU stream to carry a Terminate: a bad Request is closed on (RFC 5044
        // §7.1.2), a refused one answered by reject()
        boolean streaming = state == State.ESTABLISHED || state == State.AWAITING_FIRST_FPDU;
        state = State.TERMINATED;
        if (streaming) {
            Terminate t = Terminate.of(e.code());
            ByteBuffer b = ByteBuffer.allocate(RdmapWriter.terminateLength(t));
            writer.terminate(b, t);
            control.add(b.flip());
        }
        fail(e);
    }

    private void fail(IwarpProtocolException e) {
        if (failure == null) {
            failure = e;
            handler.failed(e);
        }
    }

    private void requireState(State s) {
        if (state != s) {
            throw new IllegalStateException("the stream is " + state + ", not " + s);
        }
    }

    private void requireTransmit() {
        if (!canTransmit()) {
            throw new IllegalStateException("nothing may be sent while the stream is " + state);
        }
    }
}

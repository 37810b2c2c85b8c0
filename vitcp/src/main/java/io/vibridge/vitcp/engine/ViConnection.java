package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.engine.Unwritten.Produced;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectNoMatch;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ProtocolException;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.ViErrorType;
import java.nio.ByteBuffer;

/**
 * One VI/TCP connection, free of I/O (sans-I/O): bytes in through {@link #receive}, events out
 * through a {@link ConnectionPeer}, bytes out through {@link #produce} / {@link #written}. No
 * sockets, threads, clocks or locks: the caller serialises every call and passes time in.
 *
 * <p>State machines: draft section 4 (figures 4.2, 4.3) with VITCP-PROFILE §7. Data path:
 * VITCP-PROFILE §3, §4, §6, §9.
 *
 * <p>Output protocol: while {@link #hasOutput()}, call {@link #produce} (header bytes written to the
 * given buffer from index 0, payload views appended to the given array), write header then payload
 * to TCP, then call {@link #written()}. Segments may be produced in batches of up to
 * {@link #MAX_UNWRITTEN} and written with one gathering write, then confirmed in order with one
 * {@link #written()} each. When {@link #closeRequested()} and no output remains, close TCP.
 *
 * <p>Encapsulation (VITCP-PROFILE §8): with {@link Encapsulation#RDMATCP} every segment travels in a
 * seed-004 frame; {@link FrameReader} checks and unwraps the frames in front of the segment reader,
 * {@link FrameWriter} wraps what {@link #produce} emits (the CRC-32 and padding then follow the payload
 * as one more payload view). Everything else is the same for both.
 *
 * <p>This class is the façade and the establishment state machine; once connected the work is done by
 * package-private collaborators: {@link SegmentReader} (framing), {@link InboundAssembler} (messages
 * in), {@link OutboundSegmenter} (segments out), {@link ReadResponderWindow}, {@link Credits} and
 * {@link AckTracker}.
 */
public final class ViConnection {

    /** Connection states: draft figures 4.2 (active) and 4.3 (passive). */
    public enum State {
        /** Active: Connect Request sent, waiting for Accept/Reject/No Match (draft 4.2 Pending Accept). */
        ACTIVE_PENDING_ACCEPT,
        /** Passive: TCP accepted, waiting for the Connect Request (draft 4.3 Incoming). */
        PASSIVE_INCOMING,
        /** Passive: request matched, waiting for the consumer's accept or reject (draft 4.3 Pending Accept). */
        PASSIVE_PENDING_ACCEPT,
        CONNECTED,
        /** Broken by an error (VIA 5.4): inbound refused, waiting for TCP close. */
        ERROR,
        /** Establishment ended or the consumer disconnected (draft: Disconnected). */
        DISCONNECTED
    }

    /** Header buffer size {@link #produce} needs. */
    public static final int MAX_HEADER = 256;
    /** Passive "Incoming" timeout (VITCP-PROFILE §7), the default of {@link EngineOptions}. */
    public static final long INCOMING_TIMEOUT_NANOS = EngineOptions.DEFAULT_INCOMING_TIMEOUT_NANOS;
    public static final long MIN_MTU = ConnectionHeader.MIN_MTU;
    /** Segments {@link #produce} may emit before {@link #written()} confirms the oldest. */
    public static final int MAX_UNWRITTEN = 16;

    private static final int RDMA_PROTECTION = ViErrorType.RDMA_PROTECTION.code();

    private final ConnectionPeer peer;
    private final EngineOptions.SecurityResolver passiveSecurity;
    private final Callbacks callbacks = new Callbacks();
    private final SegmentReader reader = new SegmentReader(callbacks);
    /** Seed-004 framing in and out (VITCP-PROFILE §8), or null for native segments. */
    private final FrameReader frames;
    private FrameWriter framer;
    private final Credits credits = new Credits();
    private final AckTracker acks = new AckTracker();
    private final Unwritten unwritten = new Unwritten(MAX_UNWRITTEN);
    private State state;
    private LocalEndpoint local;
    private Negotiated negotiated;
    private boolean rr;
    private long deadline = Long.MAX_VALUE;
    private boolean closeRequested;
    private ConnectRequest request;
    private ConnectFailure failure;
    private int failureIsCode;
    private String lastProtocolError;
    private ControlSegment pendingControl;
    // the data path, from establishment on
    private ReadResponderWindow responder;
    private OutboundSegmenter outbound;
    private InboundAssembler inbound;

    private ViConnection(ConnectionPeer peer, EngineOptions.SecurityResolver passiveSecurity, State state,
            Encapsulation encapsulation) {
        this.peer = peer;
        this.passiveSecurity = passiveSecurity;
        this.state = state;
        this.frames = encapsulation == Encapsulation.RDMATCP ? new FrameReader(reader, callbacks) : null;
    }

    /**
     * Active side, TCP already established (draft 4.2 "TCP connection established - ConnectRequest").
     *
     * @param initialRxPosted receives posted before the connection (initial credits, §9.4)
     * @param timeoutNanos the consumer's connect timeout
     */
    public static ViConnection active(ConnectionPeer peer, LocalEndpoint local, Discriminator called,
            int initialRxPosted, long now, long timeoutNanos) {
        return active(peer, local, called, initialRxPosted, now, timeoutNanos, Encapsulation.VITCP, 0);
    }

    /**
     * As {@link #active(ConnectionPeer, LocalEndpoint, Discriminator, int, long, long)} in the given
     * encapsulation; {@code connectionId} is the seed-004 Connection ID this side chose (seed 004 §3.4:
     * random, from a secure generator), ignored for native framing.
     */
    public static ViConnection active(ConnectionPeer peer, LocalEndpoint local, Discriminator called,
            int initialRxPosted, long now, long timeoutNanos, Encapsulation encapsulation, long connectionId) {
        ViConnection c = new ViConnection(peer, EngineOptions.SecurityResolver.NONE, State.ACTIVE_PENDING_ACCEPT,
                encapsulation);
        if (c.frames != null) {
            c.frames.connectionId(connectionId);
            c.framer = new FrameWriter(connectionId);
        }
        c.local = local;
        c.credits.initial(initialRxPosted);
        ConnectionHeader h = header(local, local.discriminator(), local.mtu(), called);
        c.pendingControl = new ConnectRequest(local.initialMessageNumber(), 0, initialRxPosted & 0xFFFF, h);
        c.deadline = saturatedAdd(now, timeoutNanos);
        return c;
    }

    /** Passive side, TCP just accepted (draft 4.3 Incoming); {@code security} is the listener's key or null. */
    public static ViConnection passive(ConnectionPeer peer, ConnectSecurity security, long now) {
        return incoming(peer, EngineOptions.of(security), now);
    }

    /**
     * Passive side, TCP just accepted (draft 4.3 Incoming): times out and verifies as {@code options}
     * say. Not an overload of {@code passive}, so that {@code passive(peer, null, now)} stays unambiguous.
     */
    public static ViConnection incoming(ConnectionPeer peer, EngineOptions options, long now) {
        ViConnection c = new ViConnection(peer, options.security(), State.PASSIVE_INCOMING, options.encapsulation());
        c.deadline = saturatedAdd(now, options.incomingTimeoutNanos());
        return c;
    }

    private static ConnectionHeader header(LocalEndpoint local, Discriminator calling, long mtu, Discriminator called) {
        return local.security() == null
                ? ConnectionHeader.unsigned(local.attributes(), calling, mtu, local.rdmaReadWindow(), called)
                : ConnectionHeader.toBeSigned(local.attributes(), calling, mtu, local.rdmaReadWindow(), called);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    // =====================================================================================
    // queries

    public State state() {
        return state;
    }

    /** Agreed parameters, once connected. */
    public Negotiated negotiated() {
        return negotiated;
    }

    /** Passive: the Connect Request being decided. */
    public ConnectRequest request() {
        return request;
    }

    public ConnectFailure failure() {
        return failure;
    }

    public int failureIsCode() {
        return failureIsCode;
    }

    /** Close TCP once {@link #hasOutput()} is false. */
    public boolean closeRequested() {
        return closeRequested;
    }

    /** Earliest time {@link #tick} must be called, or {@code Long.MAX_VALUE}. */
    public long deadline() {
        return deadline;
    }

    /**
     * Receives the peer has announced (Rx Descriptors Posted) and this side has not yet used, mod 2^16;
     * meaningful as a hint even without descriptor flow control (e.g. a gateway holding Sends back).
     */
    public int peerCredits() {
        return credits.peerCredits();
    }

    /** Inbound messages dropped for receiver-detected errors at Unreliable Delivery (VITCP-PROFILE §6). */
    public long droppedMessages() {
        return inbound == null ? 0 : inbound.dropped();
    }

    /** Outbound works not yet completed (queued, in progress, awaiting ACK or Read Response). */
    public int outstandingWork() {
        return outbound == null ? 0 : outbound.outstanding();
    }

    /** Why the last protocol error closed the connection (diagnostics). */
    public String lastProtocolError() {
        return lastProtocolError;
    }

    public Encapsulation encapsulation() {
        return frames == null ? Encapsulation.VITCP : Encapsulation.RDMATCP;
    }

    /** The seed-004 frame check that ended the connection (a bad CRC, an unknown Connection ID, ...), or null. */
    public FrameCheck framingFailure() {
        return frames == null ? null : frames.failure();
    }

    // =====================================================================================
    // consumer events

    /** Passive: accept with this side's parameters. Returns false (and rejects, IS 9) on a reliability mismatch. */
    public boolean accept(LocalEndpoint endpoint, int initialRxPosted) {
        requireState(State.PASSIVE_PENDING_ACCEPT);
        ConnectionHeader req = request.header();
        if (req.attributes().reliabilityCode() != endpoint.attributes().reliabilityCode()) {
            reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES); // VITCP-PROFILE §5
            return false;
        }
        this.local = endpoint;
        long mtu = Math.min(endpoint.mtu(), req.mtu());
        credits.initial(initialRxPosted);
        ConnectionHeader h = header(endpoint, req.called(), mtu, req.calling());
        ReliabilityLevel lvl = endpoint.attributes().reliability();
        pendingControl = new ConnectAccept(endpoint.initialMessageNumber(),
                ConnectAccept.messageAckFor(lvl, request.initialMessageNumber()), initialRxPosted & 0xFFFF, h);
        establish(req, mtu, request.initialMessageNumber(), request.rxDescriptorsPosted());
        return true;
    }

    /** Passive: Connect Reject with the IS code (8 when the consumer refuses), then close. */
    public void reject(int isCode) {
        if (state != State.PASSIVE_PENDING_ACCEPT && state != State.PASSIVE_INCOMING) {
            throw new IllegalStateException("reject in state " + state);
        }
        pendingControl = new ConnectReject(isCode);
        endSetup(ConnectFailure.REJECTED, isCode);
    }

    /** Passive: no VipConnectWait matches the called discriminator: Connect No Match, close (draft 4.3). */
    public void noMatch() {
        requireState(State.PASSIVE_PENDING_ACCEPT);
        pendingControl = new ConnectNoMatch();
        endSetup(ConnectFailure.NO_MATCH, 0);
    }

    /** A receive descriptor was posted (VITCP-PROFILE §6: lifetime count). */
    public void receivePosted() {
        credits.receivePosted();
    }

    /**
     * Queues outbound work (VIA 6.2). The caller rejects work in states other than Connected (VIA 5:
     * completed in error) and validates the descriptor locally before posting.
     */
    public void post(OutboundWork work) {
        requireState(State.CONNECTED);
        outbound.post(work);
    }

    /** The consumer disconnects (VIA 4.2): everything outstanding completes flushed, then TCP closes. */
    public void disconnect() {
        if (state == State.CONNECTED || state == State.ERROR) {
            boolean wasConnected = state == State.CONNECTED;
            state = State.DISCONNECTED;
            flush(false);
            if (wasConnected) {
                peer.broken(this, BreakCause.LOCAL_DISCONNECT, 0, 0);
            }
        } else if (state != State.DISCONNECTED) {
            endSetup(ConnectFailure.CLOSED, 0);
        }
        pendingControl = null;
        reader.kill();
        closeRequested = true;
    }

    /** TCP closed or reset (draft 2.2.2.2.2: closing TCP closes the VI). */
    public void transportClosed() {
        reader.kill();
        closeRequested = true;
        switch (state) {
            case CONNECTED -> {
                state = State.ERROR;
                // VIA 10.2 bit 6: an RDMA Read in flight when the transport failed also gets Transport Error
                flush(true);
                peer.broken(this, BreakCause.TRANSPORT_CLOSED, 0, 0);
            }
            case ACTIVE_PENDING_ACCEPT, PASSIVE_INCOMING, PASSIVE_PENDING_ACCEPT -> {
                pendingControl = null;
                endSetup(ConnectFailure.CLOSED, 0);
            }
            default -> {
            }
        }
        unwritten.clear();
    }

    /** Timers: call when {@code now >= deadline()}. */
    public void tick(long now) {
        if (now < deadline) {
            return;
        }
        deadline = Long.MAX_VALUE;
        if (state == State.ACTIVE_PENDING_ACCEPT || state == State.PASSIVE_INCOMING) {
            pendingControl = null;
            endSetup(ConnectFailure.TIMEOUT, IsCode.TIMEOUT);
            reader.kill();
        }
    }

    /**
     * For owners that complete inbound Sends and RDMA Writes asynchronously (the gateway: only once
     * the far side completed the matching work): with {@code manual}, the Message ACK covers a Send or
     * RDMA Write only after {@link #inboundCompleted} names it. Set before data flows.
     */
    public void manualInboundCompletion(boolean manual) {
        acks.manual(manual);
    }

    /** The inbound Send or RDMA Write {@code messageNumber} is complete (with {@link #manualInboundCompletion}). */
    public void inboundCompleted(int messageNumber) {
        acks.markDone(messageNumber);
    }

    /**
     * An inbound message failed at the owner after the engine accepted it (e.g. the far side of a
     * gateway refused it): handled like a receiver-detected error (VITCP-PROFILE §6) for that message.
     */
    public void failInbound(int messageNumber, int viErrorType, int isCode) {
        if (state == State.CONNECTED) {
            inbound.fail(messageNumber, viErrorType, isCode);
        }
    }

    /** A {@link ConnectionPeer#rdmaSource} that returned null now has its data. */
    public void readSourceReady() {
        if (responder != null) {
            responder.unblock();
        }
    }

    private void requireState(State s) {
        if (state != s) {
            throw new IllegalStateException("expected state " + s + " but is " + state);
        }
    }

    // =====================================================================================
    // establishment

    private void endSetup(ConnectFailure why, int isCode) {
        State was = state;
        state = State.DISCONNECTED;
        deadline = Long.MAX_VALUE;
        closeRequested = true;
        failure = why;
        failureIsCode = isCode;
        if (was == State.ACTIVE_PENDING_ACCEPT || was == State.PASSIVE_INCOMING
                || was == State.PASSIVE_PENDING_ACCEPT) {
            peer.connectFailed(this, why, isCode);
        }
    }

    private void establish(ConnectionHeader peerHeader, long mtu, int peerImn, int peerRx) {
        ReliabilityLevel level = local.attributes().reliability();
        rr = level == ReliabilityLevel.RELIABLE_RECEPTION;
        boolean flowControl = local.attributes().flowControl() && peerHeader.attributes().flowControl();
        negotiated = new Negotiated(peerHeader, level, mtu, flowControl, local.rdmaReadWindow(),
                peerHeader.rdmaReadWindow(), local.initialMessageNumber(), peerImn);
        credits.establish(flowControl, local.creditThreshold(), peerRx);
        acks.start(rr, peerImn);
        responder = new ReadResponderWindow(local.rdmaReadWindow());
        int segmentPayload = frames == null ? local.segmentPayload()
                : Math.min(local.segmentPayload(), RdmaTcpFrame.MAX_PAYLOAD); // the frame's 16-bit length (§8)
        outbound = new OutboundSegmenter(peer, callbacks, credits, acks, unwritten, responder, negotiated,
                segmentPayload);
        inbound = new InboundAssembler(callbacks, peer, reader, credits, acks, responder, outbound, negotiated);
        state = State.CONNECTED;
        deadline = Long.MAX_VALUE;
        peer.connected(this);
    }

    /** A segment with another Version (VITCP-PROFILE §2). */
    private void onUnsupportedVersion(int version) {
        if (state == State.PASSIVE_INCOMING) {
            request = null;
            state = State.PASSIVE_PENDING_ACCEPT;
            reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES); // VITCP-PROFILE §2
            reader.kill();
            return;
        }
        protocolError("version " + version);
    }

    private void onConnectionSegment(ByteBuffer seg) {
        ControlSegment c;
        try {
            c = ControlSegment.decode(seg, 0, seg.limit());
        } catch (ProtocolException e) {
            if (state == State.PASSIVE_INCOMING) {
                state = State.PASSIVE_PENDING_ACCEPT;
                reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES);
                reader.kill();
            } else {
                protocolError(e.getMessage());
            }
            return;
        }
        switch (state) {
            case PASSIVE_INCOMING -> {
                if (!(c instanceof ConnectRequest cr)) {
                    protocolError("expected Connect Request, got " + c.type());
                    return;
                }
                onConnectRequest(cr, seg);
            }
            case ACTIVE_PENDING_ACCEPT -> {
                switch (c) {
                    case ConnectAccept ca -> onConnectAccept(ca, seg);
                    case ConnectReject rj -> {
                        reader.kill();
                        endSetup(ConnectFailure.REJECTED, rj.isErrorCode());
                    }
                    case ConnectNoMatch nm -> {
                        reader.kill();
                        endSetup(ConnectFailure.NO_MATCH, 0);
                    }
                    default -> protocolError("unexpected " + c.type());
                }
            }
            // VITCP-PROFILE §9.8: a connection segment on a connected VI is a protocol error
            default -> protocolError("connection segment " + c.type() + " in state " + state);
        }
    }

    private void onConnectRequest(ConnectRequest cr, ByteBuffer seg) {
        request = cr;
        state = State.PASSIVE_PENDING_ACCEPT;
        deadline = Long.MAX_VALUE;
        ConnectionHeader h = cr.header();
        ConnectSecurity sec = passiveSecurity.forCalled(h.called());
        // VITCP-PROFILE §5: a side holding a key rejects (IS 11) an unsigned or wrongly signed request,
        // including Security Type 1 with a Security Length other than 40, and answers IS 14 when its replay
        // memory is full; a side without a key does not look at the security information
        int securityCode = sec == null ? IsCode.NONE
                : !h.isHmacSha256() ? IsCode.SECURITY_REJECTED : verifyRequest(sec, seg);
        if (securityCode != IsCode.NONE) {
            reader.kill(); // nothing may follow a reject
            pendingControl = new ConnectReject(securityCode);
            endSetup(ConnectFailure.SECURITY, securityCode);
            return;
        }
        int isCode = !h.attributes().conformsToProfile() ? IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES // §9.9
                : h.mtu() < MIN_MTU ? IsCode.MTU_TOO_SMALL // VITCP-PROFILE §5
                : 0;
        if (isCode != 0) {
            reader.kill();
            reject(isCode);
            return;
        }
        peer.connectRequested(this);
    }

    /** {@link #verify} of a Connect Request, as the IS code to answer (0: accepted). */
    private int verifyRequest(ConnectSecurity sec, ByteBuffer seg) {
        if (frames == null) {
            return sec.verifyRequest(seg, 0, seg.limit(), 0);
        }
        int hdr = frames.framedHeaderLength();
        return sec.verifyRequest(frames.framed(seg), hdr, seg.limit(), hdr);
    }

    /** The signature covers the seed-004 frame header too (VITCP-PROFILE §9.11). */
    private boolean verify(ConnectSecurity sec, ByteBuffer seg) {
        if (frames == null) {
            return sec.verify(seg, 0, seg.limit());
        }
        int hdr = frames.framedHeaderLength();
        return sec.verify(frames.framed(seg), hdr, seg.limit(), hdr);
    }

    private void onConnectAccept(ConnectAccept ca, ByteBuffer seg) {
        ConnectionHeader h = ca.header();
        ConnectSecurity sec = local.security();
        // VITCP-PROFILE §5: an active side holding a key verifies the Accept; a bad one (unsigned, badly
        // framed security information, wrong HMAC) is a security failure
        if (sec != null && (!h.isHmacSha256() || !verify(sec, seg))) {
            reader.kill();
            endSetup(ConnectFailure.SECURITY, IsCode.SECURITY_REJECTED);
            return;
        }
        if (!h.attributes().hasValidReliability()
                || h.attributes().reliabilityCode() != local.attributes().reliabilityCode()
                || h.mtu() < MIN_MTU || h.mtu() > local.mtu()) {
            protocolError("Connect Accept does not match the request: " + h);
            return;
        }
        establish(h, h.mtu(), ca.initialMessageNumber(), ca.rxDescriptorsPosted());
    }

    // =====================================================================================
    // output

    /** True when {@link #produce} has a segment to emit. */
    public boolean hasOutput() {
        if (pendingControl != null) {
            return true;
        }
        if (state != State.CONNECTED || unwritten.full()) {
            return false; // when full, confirm written segments first
        }
        return outbound.hasOutput();
    }

    /**
     * Emits the next segment: header bytes into {@code header} (from index 0; position 0, limit =
     * header length), payload views into {@code payload}. Returns the number of payload buffers, or -1
     * when there is nothing to send. Call {@link #written()} once the bytes went to TCP.
     */
    public int produce(ByteBuffer header, ByteBuffer[] payload) {
        return produce(header, payload, 0);
    }

    /**
     * As {@link #produce(ByteBuffer, ByteBuffer[])}, payload views stored from {@code payload[index]}.
     * In seed-004 framing the last payload view is the frame's padding and CRC (one more view than the
     * segment's payload, none when it has no payload).
     */
    public int produce(ByteBuffer header, ByteBuffer[] payload, int index) {
        header.clear();
        if (unwritten.full()) {
            return -1; // confirm written segments first
        }
        if (pendingControl == null && state != State.CONNECTED) {
            return -1; // nothing to send; a passive side must not fix its Connection ID before the first frame
        }
        FrameWriter f = frames == null ? null : framer();
        ByteBuffer out = f == null ? header : f.segment();
        if (pendingControl != null) {
            ControlSegment c = pendingControl;
            pendingControl = null;
            int len = c.encode(out, 0);
            out.limit(len);
            ConnectSecurity sec = local != null ? local.security() : null;
            boolean signed = sec != null && (c instanceof ConnectRequest || c instanceof ConnectAccept);
            if (f != null) {
                f.frame(header, payload, index, 0, signed ? sec : null);
            } else if (signed) {
                sec.sign(header, 0, len);
            }
            unwritten.add(Produced.CONTROL, true, null, false, false, 0);
            return 0;
        }
        if (state != State.CONNECTED) {
            return -1;
        }
        int n = outbound.produce(out, payload, index);
        return f == null || n < 0 ? n : f.frame(header, payload, index, n, null);
    }

    /** The passive side frames with the Connection ID its peer's first frame named (seed 004 §3.4). */
    private FrameWriter framer() {
        if (framer == null) {
            framer = new FrameWriter(frames.connectionId());
        }
        return framer;
    }

    /** The bytes of the oldest {@link #produce} not yet confirmed were handed to TCP. */
    public void written() {
        if (unwritten.isEmpty()) {
            return;
        }
        if (unwritten.kind() == Produced.CONTROL) {
            unwritten.remove();
        } else {
            outbound.written();
        }
    }

    // =====================================================================================
    // input

    /**
     * Consumes bytes from TCP (any chunking). Everything in {@code in} is consumed unless
     * {@link ConnectionPeer#admitMessage} refused a message: then {@code in.position()} is the first
     * byte after that segment's header (the engine keeps the header) and {@link #awaitingAdmission()}
     * is true. Call again with the rest of the input, or with an empty buffer, to retry the admission.
     */
    public void receive(ByteBuffer in) {
        if (frames != null) {
            frames.receive(in);
        } else {
            reader.receive(in);
        }
    }

    /** True while a refused message's header waits for {@link ConnectionPeer#admitMessage}. */
    public boolean awaitingAdmission() {
        return reader.awaitingAdmission();
    }

    private void onDataHeader(ByteBuffer hdr, int payload) {
        if (state != State.CONNECTED) {
            if (state == State.ERROR || state == State.DISCONNECTED) {
                reader.kill();
                return;
            }
            protocolError("data segment before the connection is established");
            return;
        }
        // credits and acknowledgement travel in every segment (VITCP-PROFILE §6); taking them again when
        // an admission is retried changes nothing
        credits.peerRxPosted(SegmentHeader.rxDescriptorsPosted(hdr, 0));
        if (rr && !onAck(SegmentHeader.messageAck(hdr, 0), SegmentHeader.viErrorType(hdr, 0),
                SegmentHeader.isErrorCode(hdr, 0))) {
            return;
        }
        inbound.onHeader(hdr, payload);
    }

    /**
     * A Message ACK (Reliable Reception). Returns false when the segment reported an error (VITCP-PROFILE
     * §6: the Message ACK then names the failing message) and the connection broke.
     */
    private boolean onAck(int ack, int viErrorType, int isCode) {
        if (viErrorType == ViErrorType.NONE.code()) {
            outbound.acknowledged(ack);
            return true;
        }
        outbound.reportedError(ack, viErrorType == RDMA_PROTECTION);
        breakConnection(BreakCause.REMOTE_ERROR, viErrorType, isCode);
        return false;
    }

    // =====================================================================================
    // errors

    /** VITCP-PROFILE §9.8: close without report, at every level. */
    private void protocolError(String why) {
        lastProtocolError = why; // before the callbacks, so that an owner can log it from broken()
        reader.kill();
        closeRequested = true;
        switch (state) {
            case CONNECTED -> breakConnection(BreakCause.PROTOCOL_ERROR, 0, 0);
            case ACTIVE_PENDING_ACCEPT, PASSIVE_INCOMING, PASSIVE_PENDING_ACCEPT -> endSetup(ConnectFailure.PROTOCOL, 0);
            default -> {
            }
        }
    }

    /** Connected to Error (VIA 5.4): inbound refused, everything outstanding flushed, TCP to close. */
    private void breakConnection(BreakCause cause, int viErrorType, int isCode) {
        if (state != State.CONNECTED) {
            return;
        }
        state = State.ERROR;
        reader.kill();
        closeRequested = true;
        flush(false);
        peer.broken(this, cause, viErrorType, isCode);
    }

    /** VIA 5.4: inbound and outbound work complete flushed. */
    private void flush(boolean transportLost) {
        acks.flushDeferred(peer, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
        inbound.flush();
        outbound.flush(transportLost);
    }

    /** The collaborators' way back in, kept off the public API. */
    private final class Callbacks implements SegmentReader.Sink {

        @Override
        public void unsupportedVersion(int version) {
            onUnsupportedVersion(version);
        }

        @Override
        public void connectionSegment(ByteBuffer segment) {
            onConnectionSegment(segment);
        }

        @Override
        public void dataHeader(ByteBuffer header, int payload) {
            onDataHeader(header, payload);
        }

        @Override
        public void payload(ByteBuffer slice) {
            inbound.place(slice);
        }

        @Override
        public void segmentEnd() {
            inbound.segmentEnd();
        }

        @Override
        public void protocolError(String why) {
            ViConnection.this.protocolError(why);
        }

        @Override
        public void breakConnection(BreakCause cause, int viErrorType, int isCode) {
            ViConnection.this.breakConnection(cause, viErrorType, isCode);
        }
    }
}

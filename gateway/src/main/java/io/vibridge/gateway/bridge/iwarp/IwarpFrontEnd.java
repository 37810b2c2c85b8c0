package io.vibridge.gateway.bridge.iwarp;

import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.Phase;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.bridge.TargetOp;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.mpa.Rtr;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The iWARP front end (Linux siw, Chelsio, irdma; cm-mapping/IWARP-MAPPING.md): the sans-I/O
 * {@link IwarpConnection} on the client's socket. MPA names no service: the listener's port and the
 * client's address choose the route. The MPA Reply waits for the target's REP; a refusal is an MPA
 * Reject whose private data says why (RFC 6581 §5).
 * <ul>
 *   <li>client Send -> a staging slot -> InfiniBand SEND (posted once whole);</li>
 *   <li>client RDMA Write -> its contiguous segments gathered in a slot -> RDMA WRITE with STag/TO as
 *       R_Key/VA;</li>
 *   <li>client Read Request -> RDMA READ into a slot -> Read Response, in request order;</li>
 *   <li>target SEND -> Send; target RDMA WRITE (per packet) -> RDMA Write; target RDMA READ -> Read
 *       Request into a sink STag of the engine's -> the Read Response answers the READ.</li>
 * </ul>
 * What goes to the client ({@link RdmaOutput}) leaves in the order the target issued it, each message
 * laid out whole, so nothing interleaves.
 */
public final class IwarpFrontEnd implements FrontEnd {
    private final GatewayConfig.IwarpListener listener;
    private Host host;
    private Logger log;
    private GatewayMetrics metrics;
    private IwarpConnection engine;
    private Route route;
    /** The MPA Reply went out: the stream carries RDMA. */
    private boolean accepted;
    /** The connection drained or was refused: TCP is half-closed once what is queued went out. */
    private boolean closing;
    /** The stream terminated and the connection was told (once). */
    private boolean ended;
    /** Why the stream terminated (a Terminate either way, a protocol error). */
    private String endReason;

    /** Largest client Send the target can take (its receive size, less the FlowC 0 header). */
    private int maxSend;
    /** Whether the gateway's side posts SENDs with Invalidate. */
    private boolean sendWithInvalidate;
    /** The client Send being gathered, or -1. */
    private int curSend = -1;
    /** The client RDMA Write being gathered (contiguous segments to one STag), or -1. */
    private int curWrite = -1;
    /** Read Responses and the target's operations, on their way to the client. */
    private RdmaOutput output;
    /**
     * A client Read Request longer than a staging slot, read from the target in slot-sized READs as slots come
     * free; the client's next message waits until every part is staged (IBA 9.5: nothing overtakes it).
     */
    private long splitAddress;
    private int splitKey;
    /** Bytes of the split Read not yet staged as READs (0: none is being split). */
    private long splitRemaining;

    /** A stream on {@code listener}'s port. */
    public IwarpFrontEnd(GatewayConfig.IwarpListener listener) {
        this.listener = listener;
    }

    @Override
    public void start(Host h) {
        this.host = h;
        this.log = ConnectionLogger.of(IwarpFrontEnd.class, h.id());
        this.metrics = h.metrics();
        this.route = listener.routeFor(h.clientAddress()); // MPA names no service: the port and the client choose
        GatewayConfig.Iwarp iw = h.config().iwarp();
        this.engine = new IwarpConnection(iw.crcRequired(), iw.maxFpdu(), new Handler());
        this.output = new RdmaOutput(h, engine, this::freeSlot);
    }

    @Override
    public ClientProtocol protocol() {
        return ClientProtocol.IWARP;
    }

    // ================================================================================ the socket

    @Override
    public void receive(ByteBuffer in) {
        engine.receive(in);
    }

    @Override
    public boolean takesMore() {
        // a refused message waits for a slot; a stream that ended or is closing takes nothing more
        return engine.state() != IwarpConnection.State.TERMINATED && !closing && host.phase() != Phase.DRAINING;
    }

    /** Control output (MPA frames, Terminate), then Read Responses and what the target sent, while TCP takes it. */
    @Override
    public void writeOutput() {
        ClientSocket socket = host.socket();
        ByteBuffer c;
        while ((c = engine.pollControl()) != null) {
            ByteBuffer dst = socket.reserve(c.remaining());
            dst.put(c);
            socket.commit(dst);
        }
        if (accepted) {
            output.write(socket);
        }
    }

    @Override
    public void outputWritten() {
        if (closing && idle()) {
            host.socket().end(); // IWARP-MAPPING "Disconnects": TCP FIN once what is queued went out
        }
        if (engine.state() == IwarpConnection.State.TERMINATED && !ended) {
            ended = true;
            host.clientEnded(endReason == null ? "stream terminated" : endReason);
        }
    }

    @Override
    public void socketClosed() {
        // the connection drains: IWARP-MAPPING "Disconnects", the client's FIN becomes a DREQ
        dropUnfinished();
    }

    /** A Send or RDMA Write the stream ended inside was never staged: its slot goes back (the drain waits for it). */
    private void dropUnfinished() {
        if (curSend >= 0) {
            int l = curSend;
            curSend = -1;
            freeSlot(l);
        }
        if (curWrite >= 0) {
            int l = curWrite;
            curWrite = -1;
            freeSlot(l);
        }
    }

    // ================================================================================ setup

    @Override
    public Duration requestTimeout() {
        return host.config().iwarp().requestTimeout();
    }

    @Override
    public String requestName() {
        return "MPA Request";
    }

    @Override
    public boolean awaitingRequest() {
        return engine.state() == IwarpConnection.State.AWAITING_REQUEST;
    }

    @Override
    public void requestTimedOut() {
        metrics.rejected(RejectReason.PROTOCOL);
        host.socket().close();
    }

    /**
     * The client's MPA Request (RFC 6581): the InfiniBand side is connected, the private data after the IRD/ORD
     * word in the CM REQ behind what the route puts first (IWARP-MAPPING §2.1); the Reply waits for the REP. Private
     * data longer than the route's REQ carries is refused at once: cut, it would tell the target something else.
     */
    private void requested(MpaFrame request, MpaV2Params params) {
        byte[] ulp = request.ulpPrivateData();
        int room = route.target().ulpPrivateDataRoom();
        if (ulp.length > room) {
            String why = "private data of " + ulp.length + " bytes; the CM REQ of route " + route.name() + " (cm-format "
                    + route.target().parameters().cmFormat().configName() + ") carries at most " + room;
            closing = true;
            metrics.rejected(RejectReason.PRIVATE_DATA);
            engine.reject(why.getBytes(StandardCharsets.US_ASCII));
            log.info("conn {} {}:{} MPA Reject ({})", host.id(), host.clientAddress().getHostAddress(),
                    host.clientPort(), why);
            return;
        }
        metrics.privateData(ClientProtocol.IWARP, Direction.CLIENT_TO_TARGET, ulp.length);
        host.connect(route, new ClientRequest(params.ird(), Math.max(params.ord(), 1), ulp));
    }

    /**
     * An MPA Reject Reply: after the IRD/ORD word, the target application's own REJ private data when it
     * rejected (NVMe-oF puts its status there), else the reason in ASCII.
     */
    @Override
    public String targetRefused(Refusal refusal, String why, byte[] privateData) {
        closing = true;
        if (engine.state() != IwarpConnection.State.DECIDING) {
            return "closed";
        }
        if (privateData != null) {
            metrics.privateData(ClientProtocol.IWARP, Direction.TARGET_TO_CLIENT, privateData.length);
        }
        engine.reject(privateData != null ? privateData : why.getBytes(StandardCharsets.US_ASCII));
        return privateData != null ? "MPA Reject with the target's private data" : "MPA Reject";
    }

    @Override
    public boolean targetAccepted(TargetTerms terms) {
        StagingSlots slots = host.slots();
        sendWithInvalidate = terms.sendWithInvalidate();
        maxSend = (int) Math.min(slots.payloadCapacity(),
                terms.targetReceiveSize() - (terms.flowC0() ? StagingSlots.HEADROOM : 0));
        // IRD: the client's Read Requests this side takes at once = the READs the target accepts; ORD: the
        // gateway's Read Requests = the READs the target issues (IWARP-MAPPING "Read depths")
        MpaSettings s = engine.accept(terms.readsIn(), terms.readsOut(), terms.privateData());
        GatewayConfig.Iwarp iw = host.config().iwarp();
        if (s.rtr() == Rtr.NONE) {
            host.schedule(iw.firstSendDelay(), this::sendFirst);
        } else {
            host.schedule(iw.requestTimeout(), () -> rtrOverdue(iw.requestTimeout()));
        }
        metrics.privateData(ClientProtocol.IWARP, Direction.TARGET_TO_CLIENT, terms.privateData().length);
        accepted = true;
        log.debug("conn {} {}:{} iWARP bridged route {}: MPA CRC {}, IRD {} ORD {}, RTR {}", host.id(),
                host.clientAddress().getHostAddress(), host.clientPort(), route.discriminator(), s.crc() ? "on" : "off",
                s.ird(), s.ord(), s.rtr());
        return true;
    }

    /**
     * The client has not sent its first FPDU {@code iwarp.first-send-delay} after the Reply: the target's messages
     * go anyway, as Linux siw sends as responder (IWARP-MAPPING §2, step 6), or a server-first application waits
     * for ever while its target retries against full receive slots.
     */
    private void sendFirst() {
        if (engine.state() == IwarpConnection.State.AWAITING_FIRST_FPDU) {
            engine.sendFirst();
            host.pump();
        }
    }

    /** Peer-to-peer mode: the client's RTR did not come within {@code iwarp.request-timeout} of the Reply. */
    private void rtrOverdue(Duration timeout) {
        if (engine.state() == IwarpConnection.State.AWAITING_FIRST_FPDU) {
            metrics.iwarpRtrTimeout();
            host.fail("no RTR (" + engine.settings().rtr() + ") from the client within " + timeout
                    + " of the MPA Reply (peer-to-peer mode)");
        }
    }

    // ================================================================================ client -> target

    private boolean clientSend(DdpSegment s) {
        StagingSlots slots = host.slots();
        int n = s.payloadLength();
        int mo = s.messageOffset();
        if (curSend < 0) {
            if (!admitSlot()) {
                return false;
            }
            curSend = slots.takeAdmitted();
            slots.beginSend(curSend, 0);
        }
        if ((long) mo + n > maxSend) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_TOO_LONG, "Message Offset", s.payloadOffset(),
                    "a Send longer than the " + maxSend + " bytes the target takes");
        }
        int l = curSend;
        slots.place(l, mo, s.buffer(), s.payloadOffset(), n);
        if (s.last()) {
            boolean invalidates = s.opcode().invalidates();
            if (invalidates && !sendWithInvalidate) {
                throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Opcode", s.payloadOffset(),
                        "Send with Invalidate: the gateway's verbs provider cannot post SEND with Invalidate");
            }
            curSend = -1;
            // IWARP-MAPPING §3: the Solicited Event bit kept; the STag to invalidate is the target's R_Key
            slots.endedSend(l, mo + n, s.opcode().solicited(), invalidates, s.invalidateStag());
            metrics.message(Direction.CLIENT_TO_TARGET, Operation.SEND, mo + n);
            if (invalidates) {
                metrics.sendInvalidate(ClientProtocol.IWARP, Direction.CLIENT_TO_TARGET);
            }
            host.stage(l);
        }
        return true;
    }

    /** Contiguous Write segments to one STag gather in one slot: one RDMA WRITE per message or full slot. */
    private boolean clientWrite(DdpSegment s) {
        StagingSlots slots = host.slots();
        int n = s.payloadLength();
        int l = curWrite;
        if (l >= 0 && (slots.remoteKey(l) != s.stag() || slots.remoteAddress(l) + slots.length(l) != s.taggedOffset()
                || slots.length(l) + n > slots.payloadCapacity())) {
            flushWrite();
            l = -1;
        }
        if (l < 0) {
            if (!admitSlot()) {
                return false;
            }
            l = slots.takeAdmitted();
            curWrite = l;
            slots.beginWrite(l, 0, s.taggedOffset(), s.stag(), 0);
        }
        slots.append(l, s.buffer(), s.payloadOffset(), n);
        if (s.last()) {
            flushWrite();
        }
        return true;
    }

    private void flushWrite() {
        int l = curWrite;
        curWrite = -1;
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_WRITE, host.slots().length(l));
        host.stage(l);
    }

    /**
     * A client Read Request: one RDMA READ into a staging slot, or, longer than a slot, slot-sized READs whose
     * Read Response parts go out in order as one message (IWARP-MAPPING §3).
     */
    private boolean clientReadRequest(ReadRequest r) {
        if (r.sizeUnsigned() > Integer.MAX_VALUE) {
            // IBA 9.4.3: an RC message is at most 2^31 bytes
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNSPECIFIED, "RDMA Read Message Size", 0,
                    "a Read of " + r.sizeUnsigned() + " bytes; InfiniBand reads at most 2 GiB - 1 in one READ");
        }
        if (!admitSlot()) {
            return false;
        }
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, r.size());
        splitAddress = r.sourceOffset();
        splitKey = r.sourceStag();
        splitRemaining = r.size();
        stageReadParts(true);
        if (r.size() == 0) {
            host.pump(); // answered without an InfiniBand READ
        }
        return true;
    }

    /** Stages the split Read's next parts while slots are free ({@code admitted}: one is already). */
    private void stageReadParts(boolean admitted) {
        StagingSlots slots = host.slots();
        do {
            if (!admitted && !host.admit()) {
                return;
            }
            admitted = false;
            int l = slots.takeAdmitted();
            int n = (int) Math.min(splitRemaining, slots.payloadCapacity());
            slots.beginRead(l, 0, splitAddress, splitKey, n);
            splitAddress += n;
            splitRemaining -= n;
            host.stage(l);
        } while (splitRemaining > 0);
    }

    private boolean admitSlot() {
        return !closing && splitRemaining == 0 && host.admit();
    }

    /** A client slot's InfiniBand work is over: the slot goes back, to a split Read's next part first. */
    private void freeSlot(int l) {
        host.slots().free(l);
        if (splitRemaining > 0 && !closing) {
            stageReadParts(false);
        }
        host.slotFreed();
    }

    @Override
    public void clientOpDone(int slot) {
        freeSlot(slot);
    }

    @Override
    public boolean clientOpFailed(int slot, boolean accessError) {
        return false; // no per-message report in iWARP: the stream is Terminated ({@link #fail})
    }

    @Override
    public void clientOpEnded(int slot) {
        freeSlot(slot);
    }

    @Override
    public void readDone(int slot) {
        host.pump();
    }

    // ================================================================================ target -> client

    @Override
    public boolean up() {
        return host.phase() == Phase.CONNECTED;
    }

    @Override
    public void deliver(TargetOp op) {
        output.deliver(op);
    }

    // ================================================================================ teardown

    @Override
    public boolean idle() {
        return output.empty() || engine.state() == IwarpConnection.State.TERMINATED;
    }

    @Override
    public void close() {
        closing = true; // FIN after what is queued (outputWritten), as siw closes a stream it disconnects
    }

    /** A failure on the InfiniBand side or in what the target asks: the client gets a Terminate. */
    @Override
    public void fail(String why, boolean accessError) {
        log.info("conn {} {}: terminating the iWARP stream", host.id(), why);
        if (engine.canTransmit() || engine.state() == IwarpConnection.State.AWAITING_FIRST_FPDU) {
            engine.terminate(accessError ? TerminateCode.RDMAP_ACCESS_RIGHTS : TerminateCode.RDMAP_CATASTROPHIC_STREAM,
                    why);
        }
    }

    @Override
    public void forceClose() {
        closing = true;
    }

    @Override
    public void released() {
        output.released();
    }

    @Override
    public String debugState() {
        return "engine=" + engine.state() + " " + output + " closing=" + closing;
    }

    /** The engine's events. */
    private final class Handler implements IwarpConnection.Handler {
        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            IwarpFrontEnd.this.requested(request, params);
        }

        @Override
        public boolean send(DdpSegment segment) {
            return clientSend(segment);
        }

        @Override
        public boolean write(DdpSegment segment) {
            return clientWrite(segment);
        }

        @Override
        public boolean readRequest(ReadRequest request) {
            return clientReadRequest(request);
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment segment) {
            return output.readResponse(token, offset, segment);
        }

        @Override
        public void terminated(Terminate t) {
            endReason = "client Terminate " + (t.code() == null ? t : t.code().description());
            dropUnfinished();
            log.info("conn {} client sent Terminate {}", host.id(), t);
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            if (endReason == null) {
                endReason = "protocol error: " + cause.getMessage();
            }
            dropUnfinished();
            if (host.phase() != Phase.AWAITING_REQUEST) {
                log.warn("conn {} {}:{} {}", host.id(), host.clientAddress().getHostAddress(), host.clientPort(),
                        endReason);
            } else {
                metrics.rejected(RejectReason.PROTOCOL);
                host.setupFailed(SetupFailure.PROTOCOL, endReason); // not MPA at all
            }
        }
    }
}

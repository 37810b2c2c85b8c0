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
 * client's address choose the route. The MPA Request's private data goes into the CM REQ; the MPA Reply
 * waits for the target's REP and carries its private data; a refusal is an MPA Reject whose private data is
 * the target application's or says why (RFC 6581 §5, IWARP-MAPPING §2).
 * <ul>
 *   <li>client Sends, RDMA Writes and Read Requests -> staging slots -> SEND, RDMA WRITE, RDMA READ
 *       ({@link ClientMessages});</li>
 *   <li>target SEND -> Send; target RDMA WRITE (per packet) -> RDMA Write; target RDMA READ -> Read
 *       Request into a sink STag of the engine's -> the Read Response answers the READ ({@link RdmaOutput}).</li>
 * </ul>
 * What goes to the client leaves in the order the target issued it, each message laid out whole, so nothing
 * interleaves.
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

    /** The client's messages, staged for the target. */
    private ClientMessages toTarget;
    /** Read Responses and the target's operations, on their way to the client. */
    private RdmaOutput output;

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
        this.toTarget = new ClientMessages(h, () -> closing);
        this.output = new RdmaOutput(h, engine, toTarget::freeSlot);
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
        toTarget.dropUnfinished();
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
        toTarget.accepted((int) Math.min(slots.payloadCapacity(),
                terms.targetReceiveSize() - (terms.flowC0() ? StagingSlots.HEADROOM : 0)), terms.sendWithInvalidate());
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

    @Override
    public void clientOpDone(int slot) {
        toTarget.freeSlot(slot);
    }

    @Override
    public boolean clientOpFailed(int slot, boolean accessError) {
        return false; // no per-message report in iWARP: the stream is Terminated ({@link #fail})
    }

    @Override
    public void clientOpEnded(int slot) {
        toTarget.freeSlot(slot);
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
            return toTarget.send(segment);
        }

        @Override
        public boolean write(DdpSegment segment) {
            return toTarget.write(segment);
        }

        @Override
        public boolean readRequest(ReadRequest request) {
            return toTarget.readRequest(request);
        }

        @Override
        public boolean readResponse(Object token, long offset, DdpSegment segment) {
            return output.readResponse(token, offset, segment);
        }

        @Override
        public void terminated(Terminate t) {
            endReason = "client Terminate " + (t.code() == null ? t : t.code().description());
            toTarget.dropUnfinished();
            log.info("conn {} client sent Terminate {}", host.id(), t);
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            if (endReason == null) {
                endReason = "protocol error: " + cause.getMessage();
            }
            toTarget.dropUnfinished();
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

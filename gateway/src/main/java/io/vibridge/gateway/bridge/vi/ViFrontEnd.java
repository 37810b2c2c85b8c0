package io.vibridge.gateway.bridge.vi;

import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.TargetOp;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.engine.EngineOptions;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;

/**
 * The VI/TCP front end (native framing or seed-004 frames, VITCP-PROFILE §8): the sans-I/O
 * {@link ViConnection} with its {@link EnginePeer} on the client's socket. Its establishment is the
 * draft's: the Connect Request names a route by discriminator (answered No Match when none has it), is
 * verified with the route's key (VITCP-PROFILE §5), and gets its Connect Accept once the target's REP
 * came, or a Connect Reject with the IS code of the refusal (VITCP-PROFILE §2).
 */
public final class ViFrontEnd implements FrontEnd {
    private final Encapsulation encapsulation;
    private final RouteKeys keys;
    private Host host;
    private Logger log;
    private ViConnection engine;
    private EnginePeer peer;
    /** The route the Connect Request named (null before it came). */
    private Route route;
    /** The gateway answered the Connect Request (a refusal of its own, not the engine's). */
    private boolean answered;
    private final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    private final ByteBuffer[] io = new ByteBuffer[4];

    /** A connection on a listener of {@code encapsulation}, its Connect Request verified with {@code keys}. */
    public ViFrontEnd(Encapsulation encapsulation, RouteKeys keys) {
        this.encapsulation = encapsulation;
        this.keys = keys;
    }

    @Override
    public void start(Host h) {
        this.host = h;
        this.log = ConnectionLogger.of(ViFrontEnd.class, h.id());
        this.peer = new EnginePeer(h.metrics(), new Lifecycle());
        EngineOptions options = new EngineOptions(h.config().vi().incomingTimeout().toNanos(), this::security,
                encapsulation);
        this.engine = ViConnection.incoming(peer, options, System.nanoTime());
        peer.engine(engine);
    }

    @Override
    public ClientProtocol protocol() {
        return ClientProtocol.of(encapsulation);
    }

    // ============================================================================ the socket

    @Override
    public void receive(ByteBuffer in) {
        engine.receive(in);
    }

    @Override
    public boolean takesMore() {
        return !engine.closeRequested(); // the engine refused a new message: it waits for a free staging slot
    }

    /** Copies the engine's segments ({@link ViConnection#produce}: a header and gather views) into the batch. */
    @Override
    public void writeOutput() {
        ClientSocket socket = host.socket();
        while (engine.hasOutput() && !socket.writeQueueFull()) {
            int n = engine.produce(header, io, 0);
            if (n < 0) {
                break;
            }
            int total = header.remaining();
            for (int i = 0; i < n; i++) {
                total += io[i].remaining();
            }
            ByteBuffer dst = socket.reserve(total);
            dst.put(header);
            for (int i = 0; i < n; i++) {
                dst.put(io[i]);
                io[i] = null;
            }
            socket.commit(dst);
            engine.written();
            peer.afterWritten(); // outside the engine: its callbacks must not call back in
        }
    }

    @Override
    public void outputWritten() {
        if (engine.closeRequested() && !engine.hasOutput()) {
            host.socket().end();
        }
    }

    @Override
    public void socketClosed() {
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.transportClosed();
        }
    }

    // ============================================================================ establishment

    @Override
    public Duration requestTimeout() {
        // 1 ms late: the engine's deadline counts from its creation, a little before the timer starts
        return host.config().vi().incomingTimeout().plusMillis(1);
    }

    @Override
    public String requestName() {
        return "Connect Request";
    }

    @Override
    public boolean awaitingRequest() {
        return engine.state() == ViConnection.State.PASSIVE_INCOMING;
    }

    @Override
    public void requestTimedOut() {
        engine.tick(System.nanoTime()); // draft 4.3 "Incoming" timeout: the engine fails and closes
    }

    /**
     * VITCP-PROFILE §5: a gateway holding a key (the route's or the global one) verifies the Connect
     * Request for that route; an unknown discriminator is not verified (it is answered No Match).
     */
    private ConnectSecurity security(Discriminator called) {
        var found = host.config().routes().lookup(called.bytes());
        // the client's share of the replay memory
        return found.isEmpty() ? null : keys.security(found.get().discriminator(), host.clientAddress());
    }

    private void connectRequested() {
        byte[] called = engine.request().header().called().bytes();
        var found = host.config().routes().lookup(called);
        if (found.isEmpty()) {
            log.info("conn {} {}:{} no route for discriminator {}: Connect No Match", host.id(),
                    host.clientAddress().getHostAddress(), host.clientPort(), printable(called));
            host.metrics().rejected(RejectReason.NO_ROUTE);
            engine.noMatch();
            return;
        }
        route = found.get();
        host.connect(route, ClientRequest.CONFIGURED); // VI/TCP's Connect Request carries no application data
    }

    @Override
    public String targetRefused(Refusal refusal, String why, byte[] privateData) {
        int is = switch (refusal) {
            case LIMIT -> IsCode.RESOURCES_EXHAUSTED; // VITCP-PROFILE §2 carries no text: the log line names the limit
            case TARGET_UNREACHABLE -> IsCode.NO_ROUTE;
            case TARGET_REJECTED -> IsCode.TARGET_REJECTED;
            case TARGET_GONE -> IsCode.REMOTE_TRANSPORT_ERROR;
        };
        answered = true;
        if (engine.state() == ViConnection.State.PASSIVE_PENDING_ACCEPT) {
            engine.reject(is);
        }
        return "Connect Reject IS " + is;
    }

    @Override
    public boolean targetAccepted(TargetTerms target) {
        ConnectionHeader req = engine.request().header();
        AcceptTerms terms = AcceptTerms.negotiate(req, target, host.config(), host.slots().clientSlots);
        answered = true;
        if (terms.mtuTooSmall()) {
            log.info("conn {} {}:{} Connect Reject IS {} (agreed MTU {} below 32 KiB (target ActRcvSz {}))", host.id(),
                    host.clientAddress().getHostAddress(), host.clientPort(), IsCode.MTU_TOO_SMALL, terms.mtu(),
                    terms.targetReceiveSize());
            host.metrics().rejected(RejectReason.MTU);
            engine.reject(IsCode.MTU_TOO_SMALL);
            return false;
        }
        LocalEndpoint ep = terms.endpoint(req, host.config().vi(), ThreadLocalRandom.current().nextInt(),
                keys.security(route.discriminator()));
        peer.attach(host.slots(), host);
        if (!engine.accept(ep, host.slots().clientSlots)) {
            host.metrics().rejected(RejectReason.ATTRIBUTES);
            return false;
        }
        peer.accepted(terms.reliability() == ReliabilityLevel.RELIABLE_RECEPTION);
        host.splitTargetReads(terms.mtu()); // a target READ longer than one VI message: several VI RDMA Reads
        if (log.isDebugEnabled()) {
            log.debug("conn {} {}:{} bridged route {} ({} FlowC {} MTU {})", host.id(),
                    host.clientAddress().getHostAddress(), host.clientPort(), route.discriminator(), terms.reliability(),
                    target.flowC0() ? 0 : 1, terms.mtu());
        }
        return true;
    }

    private void connectFailed(ConnectFailure failure, int isCode) {
        String why = switch (failure) {
            case SECURITY -> isCode == IsCode.RESOURCES_EXHAUSTED
                    ? "replay memory full (security.replay-capacity, replay-per-client)"
                    : "security information rejected";
            case PROTOCOL -> "PROTOCOL (" + engine.lastProtocolError() + ")";
            case TIMEOUT -> "no Connect Request";
            case REJECTED -> "Connect Reject IS " + isCode;
            case CLOSED -> "client closed TCP";
            case NO_MATCH -> "no route";
        };
        switch (failure) {
            case SECURITY -> {
                log.info("conn {} {}:{} Connect Reject IS {} ({})", host.id(), host.clientAddress().getHostAddress(),
                        host.clientPort(), isCode, why);
                host.metrics().rejected(RejectReason.SECURITY);
            }
            case PROTOCOL -> {
                host.setupFailed(SetupFailure.PROTOCOL, "connection setup failed: " + why);
                host.metrics().rejected(RejectReason.PROTOCOL);
                countFrameError();
            }
            case TIMEOUT -> host.metrics().rejected(RejectReason.PROTOCOL); // logged by the connection's timer
            case REJECTED -> {
                if (!answered) {
                    // rejected by the engine itself (attributes, MTU, version), not by the gateway's answer
                    host.metrics().rejected(isCode == IsCode.MTU_TOO_SMALL ? RejectReason.MTU : RejectReason.ATTRIBUTES);
                    log.info("conn {} {}:{} Connect Reject IS {}", host.id(), host.clientAddress().getHostAddress(),
                            host.clientPort(), isCode);
                }
            }
            case CLOSED, NO_MATCH -> {
                // counted by the connection (closed in setup) or when answered (connectRequested)
            }
        }
        host.clientEnded(why); // answered or counted: setup is over, and the bridge closes
    }

    // ============================================================================ data

    @Override
    public boolean up() {
        return engine.state() == ViConnection.State.CONNECTED;
    }

    @Override
    public void deliver(TargetOp op) {
        if (engine.state() != ViConnection.State.CONNECTED) {
            if (op instanceof TargetOp.Rdma r) {
                r.finish(false);
            }
            return; // the client is gone: a SEND's slot stays unposted until teardown
        }
        if (op instanceof TargetOp.Send s && s.invalidates()) {
            // VI has no remote invalidation (VIA memory handles are the client's to deregister): a plain Send
            host.metrics().sendInvalidate(ClientProtocol.VITCP, Direction.TARGET_TO_CLIENT);
        }
        if (op instanceof TargetOp.Send s && s.length() > engine.negotiated().mtu()) {
            log.warn("conn {} target SEND of {} bytes exceeds the agreed MTU {}", host.id(), s.length(),
                    engine.negotiated().mtu());
            host.fail("target SEND larger than the agreed MTU");
            return;
        }
        peer.post(op);
    }

    @Override
    public void clientOpDone(int slot) {
        peer.clientMessageDone(slot);
    }

    /**
     * The engine handles a failed client message per reliability level (VITCP-PROFILE §6): Reliable Reception
     * reports it (remote access error: VI Error Type 1, else type 2; IS 16) and then closes, Reliable Delivery
     * closes without a report, Unreliable Delivery drops the message.
     */
    @Override
    public boolean clientOpFailed(int slot, boolean accessError) {
        return peer.clientMessageFailed(slot, accessError ? 1 : 2);
    }

    @Override
    public void clientOpEnded(int slot) {
        peer.freeClientSlot(slot);
    }

    @Override
    public void readDone(int slot) {
        peer.readDone();
    }

    // ============================================================================ teardown

    @Override
    public boolean idle() {
        return engine.state() != ViConnection.State.CONNECTED || engine.outstandingWork() == 0;
    }

    @Override
    public void close() {
        disconnect();
    }

    @Override
    public void fail(String why, boolean accessError) {
        disconnect();
    }

    private void disconnect() {
        if (engine.state() == ViConnection.State.CONNECTED || engine.state() == ViConnection.State.ERROR) {
            engine.disconnect(); // a VI Disconnect, then the engine closes TCP
        }
    }

    @Override
    public void forceClose() {
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.disconnect();
        }
    }

    @Override
    public void released() {
        // the engine's outstanding work ended with the socket; cut-through operations failed with the ordering
    }

    private void broken(BreakCause cause, int viErrorType, int isCode) {
        String why = switch (cause) {
            case PROTOCOL_ERROR -> "protocol error: " + engine.lastProtocolError();
            case TRANSPORT_CLOSED -> "client closed TCP";
            case LOCAL_DISCONNECT -> "gateway disconnect";
            case LOCAL_RECEIVE_ERROR -> "receive error IS " + isCode;
            case REMOTE_ERROR -> "client reported error type " + viErrorType + " IS " + isCode;
        };
        if (cause == BreakCause.PROTOCOL_ERROR) {
            countFrameError();
        }
        if (cause == BreakCause.PROTOCOL_ERROR || cause == BreakCause.LOCAL_RECEIVE_ERROR) {
            log.warn("conn {} {}:{} disconnected: {}", host.id(), host.clientAddress().getHostAddress(),
                    host.clientPort(), why);
        } else {
            log.debug("conn {} VI connection ended: {}", host.id(), why);
        }
        host.clientEnded(why);
    }

    /** A bad CRC, an unknown Connection ID, ... ended the connection (seed-004 framing): counted by check. */
    private void countFrameError() {
        FrameCheck c = engine.framingFailure();
        if (c != null) {
            host.metrics().frameError(c);
        }
    }

    @Override
    public String debugState() {
        return "engine=" + engine.state() + " hasOutput=" + engine.hasOutput() + " outstandingWork="
                + engine.outstandingWork() + " closeRequested=" + engine.closeRequested();
    }

    private static String printable(byte[] b) {
        StringBuilder s = new StringBuilder("\"");
        for (byte x : b) {
            s.append(x >= 0x20 && x < 0x7F ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xFF));
        }
        return s.append('"').toString();
    }

    /** The engine's connection events, through its peer. */
    private final class Lifecycle implements EnginePeer.Lifecycle {
        @Override
        public void connectRequested() {
            ViFrontEnd.this.connectRequested();
        }

        @Override
        public void connectFailed(ConnectFailure failure, int isCode) {
            ViFrontEnd.this.connectFailed(failure, isCode);
        }

        @Override
        public void broken(BreakCause cause, int viErrorType, int isCode) {
            ViFrontEnd.this.broken(cause, viErrorType, isCode);
        }
    }
}

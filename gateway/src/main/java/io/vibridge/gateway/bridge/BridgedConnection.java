package io.vibridge.gateway.bridge;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetSocket;
import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.admission.Pending;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.Limit;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
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
import java.net.InetAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;

/**
 * One VI/TCP connection bridged to one InfiniBand RC connection (DESIGN "One connection through the
 * gateway"): its life, as one {@link Phase} and one method per event. The pieces it owns carry the
 * data: {@link ClientSocket} (the socket), the VI engine with its {@link EnginePeer}, the
 * {@link StagingSlots}, the {@link TargetSide} (QP, CQ, CM) and the {@link TargetOrder}.
 *
 * <p>Confined to the Vert.x context of its socket: socket events, CM events and completion
 * notifications all run there, so no field needs a lock.
 */
public final class BridgedConnection {
    private final Logger log;

    /** Lifecycle (the admin listing shows it). */
    public enum Phase {
        /** Waiting for the client's Connect Request. */
        INCOMING,
        /** CM REQ sent, waiting for the target's REP. */
        CONNECTING_TARGET,
        CONNECTED,
        /** No new client message; closing once what can complete has completed. */
        DRAINING,
        /** Both sides closed or closing; resources go once the QP flushed and the socket closed. */
        CLOSED
    }

    private final BridgeContext shared;
    private final GatewayConfig config;
    private final Vertx vertx;
    private final Context context;
    private final Executor onContext;
    final long id;
    private final InetAddress clientAddress;
    private final int clientPort;
    private final long openedAtMillis = System.currentTimeMillis();
    private final ViConnection engine;
    private final EnginePeer peer;
    private final Events events;
    private final ClientSocket channel;
    private final ViStream stream;
    /** Its slot among the connections in setup (limits.max-pending), returned once bridged, answered or closed. */
    private final Pending pending;
    private Phase phase = Phase.INCOMING;
    private Route route;
    private StagingSlots slots;
    private TargetSide target;
    private TargetOrder order;
    /** Counted in the per-client budget ({@link BridgeContext#admit}). */
    private boolean admitted;
    /** Reached CONNECTED once (counted in the connection metrics). */
    private boolean opened;
    private boolean released;
    private long requestAt;
    private long cmStart;
    private long incomingTimer = -1;
    private long graceTimer = -1;
    private long keepaliveTimer = -1;
    private String closeReason;

    /**
     * The connection on a listener of {@code encapsulation} (native VI/TCP or seed-004 framing, VITCP-PROFILE §8),
     * holding {@code pending} until its setup is over.
     */
    public BridgedConnection(BridgeContext shared, Vertx vertx, NetSocket socket, Encapsulation encapsulation,
            Pending pending) {
        this.shared = shared;
        this.pending = pending;
        this.config = shared.config;
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.onContext = r -> context.runOnContext(v -> r.run());
        this.id = shared.nextId();
        this.log = ConnectionLogger.of(BridgedConnection.class, id);
        InetAddress a;
        try {
            a = InetAddress.ofLiteral(socket.remoteAddress().hostAddress());
        } catch (RuntimeException e) {
            a = InetAddress.getLoopbackAddress();
        }
        this.clientAddress = a;
        this.clientPort = socket.remoteAddress().port();
        Events events = new Events();
        this.events = events;
        this.peer = new EnginePeer(shared.metrics, events);
        EngineOptions options = new EngineOptions(config.vi().incomingTimeout().toNanos(), this::security, encapsulation);
        this.engine = ViConnection.incoming(peer, options, System.nanoTime());
        peer.engine(engine);
        this.channel = new ClientSocket(id, socket, shared.metrics.clientBytes(encapsulation));
        this.stream = new ViStream(engine, channel, peer::afterWritten, this::clientClosed);
    }

    /** Wires the socket; call on the socket's context. */
    public void start() {
        shared.bridges.add(this);
        channel.start(stream);
        // 1 ms late: the engine's deadline counts from its creation, a little before this timer starts
        incomingTimer = vertx.setTimer(config.vi().incomingTimeout().toMillis() + 1, t -> {
            incomingTimer = -1;
            if (engine.state() == ViConnection.State.PASSIVE_INCOMING) {
                // nothing, part of a header, or part of a Connect Request: closed all the same (issue 29); one INFO
                // line per summary period, the others DEBUG (a flood of silent connections is one line, not thousands)
                if (pending.failed(SetupFailure.TIMEOUT)) {
                    log.info("conn {} {}:{} no Connect Request within {} (the first this period; GatewayServer's "
                            + "summary counts the rest)", id, clientAddress.getHostAddress(), clientPort,
                            config.vi().incomingTimeout());
                } else {
                    log.debug("conn {} {}:{} no Connect Request within {}", id, clientAddress.getHostAddress(),
                            clientPort, config.vi().incomingTimeout());
                }
                engine.tick(System.nanoTime()); // draft 4.3 "Incoming" timeout: the engine fails and closes
                channel.pump();
            }
        });
        log.debug("conn {} accepted from {}:{}", id, clientAddress.getHostAddress(), clientPort);
    }

    // ============================================================================ establishment

    /**
     * VITCP-PROFILE §5: a gateway holding a key (the route's or the global one) verifies the Connect
     * Request for that route; an unknown discriminator is not verified (it is answered No Match).
     */
    private ConnectSecurity security(Discriminator called) {
        var found = config.routes().lookup(called.bytes());
        if (found.isEmpty()) {
            return null;
        }
        return shared.security(found.get().discriminator(), clientAddress);   // the client's share of the replay memory
    }

    private void connectRequested() {
        cancelIncomingTimer();
        requestAt = System.nanoTime();
        byte[] called = engine.request().header().called().bytes();
        var found = config.routes().lookup(called);
        if (found.isEmpty()) {
            log.info("conn {} {}:{} no route for discriminator {}: Connect No Match", id,
                    clientAddress.getHostAddress(), clientPort, printable(called));
            shared.metrics.rejected(RejectReason.NO_ROUTE);
            engine.noMatch();
            return;
        }
        route = found.get();
        RouteTarget t = route.target();
        Limit limit = shared.admit(clientAddress);
        if (limit != null) {
            limited(limit);
            return;
        }
        admitted = true;
        boolean flowC0 = t.parameters().flowControl() == FlowControl.TRANSPORT;
        try {
            slots = StagingSlots.reserve(shared.pool, config.slotsPerConnection(), t.parameters().receiveBuffers(),
                    flowC0);
        } catch (RuntimeException e) {
            log.warn("conn {} cannot grow the staging pool: {}", id, e.toString()); // a new chunk failed to register
        }
        if (slots == null) {
            limited(Limit.STAGING);
            return;
        }
        try {
            openTarget(t);
        } catch (VerbsException | IllegalArgumentException e) {
            log.warn("conn {} cannot open the InfiniBand side: {}", id, e.toString());
            reject(RejectReason.TARGET_UNREACHABLE, IsCode.NO_ROUTE, "InfiniBand setup failed");
            release();
        }
    }

    private void openTarget(RouteTarget t) {
        CutThrough cut = new CutThrough(() -> context.runOnContext(v -> onCutThrough()));
        boolean flowC0 = t.parameters().flowControl() == FlowControl.TRANSPORT;
        target = new TargetSide(id, shared, slots, t.parameters().receiveSize(), flowC0, events, onContext, cut);
        order = new TargetOrder(target.cutThrough() ? cut : null, peer);
        peer.attach(slots, target);
        GatewayConfig.Infiniband ib = config.infiniband();
        byte[] pd = t.requestPrivateData(clientAddress, clientPort, shared.device.address(), shared.nextCmaPort(),
                shared.device.connectionManager().writesCmaHeader());
        ConnectParams p = new ConnectParams(t.address(), t.serviceId().value(), pd, ib.responderResources(),
                ib.initiatorDepth(), ib.retryCount(), ib.rnrRetry(), ib.localAckTimeout(), ib.cmResponseTimeout(),
                ib.maxCmRetries(), ib.pathMtu(), 12);
        phase = Phase.CONNECTING_TARGET;
        cmStart = System.nanoTime();
        if (log.isDebugEnabled()) {
            log.debug("conn {} CM REQ to {} ({})", id, targetName(), t.parameters().cmFormat());
        }
        target.connect(shared.device, p, onContext);
    }

    private void cmEvent(CmEvent e) {
        switch (e) {
            case CmEvent.Established est -> targetEstablished(est);
            case CmEvent.Rejected r -> {
                if (phase == Phase.CONNECTING_TARGET) {
                    boolean unreachable = r.reason() == CmEvent.REJ_INVALID_SERVICE_ID;
                    targetFailed(unreachable ? RejectReason.TARGET_UNREACHABLE : RejectReason.TARGET_REJECTED,
                            unreachable ? IsCode.NO_ROUTE : IsCode.TARGET_REJECTED, BridgeContext.targetRejected(r.reason()));
                }
            }
            case CmEvent.ConnectTimeout ct -> {
                // the CM REQ got no answer at all after max-cm-retries: the target is unreachable, IS 12
                // (VITCP-PROFILE §2 "no route / target unreachable"). The SPI reports an MRA-then-silence
                // the same way, so IS 15 is left to the gateway's own timeouts.
                if (phase == Phase.CONNECTING_TARGET) {
                    targetFailed(RejectReason.TARGET_UNREACHABLE, IsCode.NO_ROUTE, "CM timeout: target unreachable");
                }
            }
            case CmEvent.Disconnected d -> targetDisconnected();
            case CmEvent.TimewaitExit tw -> {
                target.markDown();
                maybeRelease();
            }
            default -> {
            }
        }
        channel.pump();
    }

    private void targetEstablished(CmEvent.Established est) {
        if (phase != Phase.CONNECTING_TARGET) {
            return;
        }
        shared.metrics.cmRoundTrip(System.nanoTime() - cmStart);
        ConnectionHeader req = engine.request().header();
        AcceptTerms terms;
        try {
            terms = AcceptTerms.negotiate(req, route.target(), est.privateData(), config, slots.clientSlots);
        } catch (CmFormatException ex) {
            log.info("conn {} bad HelloReply: {}", id, ex.getMessage());
            target.disconnect();
            targetFailed(RejectReason.TARGET_REJECTED, IsCode.TARGET_REJECTED, "bad HelloReply");
            return;
        }
        if (terms.mtuTooSmall()) {
            target.disconnect();
            reject(RejectReason.MTU, IsCode.MTU_TOO_SMALL, "agreed MTU " + terms.mtu() + " below 32 KiB (target "
                    + "ActRcvSz " + terms.targetReceiveSize() + ")");
            phase = Phase.CLOSED;
            return;
        }
        LocalEndpoint ep = terms.endpoint(req, config.vi(), ThreadLocalRandom.current().nextInt(),
                shared.security(route.discriminator()));
        if (!engine.accept(ep, slots.clientSlots)) {
            shared.metrics.rejected(RejectReason.ATTRIBUTES);
            target.disconnect();
            phase = Phase.CLOSED;
            return;
        }
        peer.accepted(terms.reliability() == ReliabilityLevel.RELIABLE_RECEPTION);
        target.established(terms.targetBufs());
        opened = true;
        phase = Phase.CONNECTED;
        order.maxRead(terms.mtu());
        if (early != null) {
            for (EarlyMessage m : early) {
                targetMessage(m.slot(), m.offset(), m.length(), m.hasImmediate(), m.immediate());
            }
            early = null;
        }
        long keepalive = config.infiniband().keepalive().toMillis();
        if (keepalive > 0) {
            keepaliveTimer = vertx.setPeriodic(keepalive, tick -> {
                if (phase == Phase.CONNECTED) {
                    target.keepaliveTick();
                }
            });
        }
        shared.metrics.connectionOpened(engine.encapsulation());
        shared.metrics.connectSetup(System.nanoTime() - requestAt);
        pending.end();
        // per-connection lines are DEBUG: at thousands of connections per second console lines cost more than the
        // setup itself; GatewayServer logs a periodic INFO summary (connections opened/closed/open)
        if (log.isDebugEnabled()) {
            log.debug("conn {} {}:{} bridged to {} route {} ({} FlowC {} MTU {})", id,
                    clientAddress.getHostAddress(), clientPort, targetName(), routeName(), terms.reliability(),
                    route.target().parameters().flowControl() == FlowControl.TRANSPORT ? 0 : 1, terms.mtu());
        }
    }

    /** One of the gateway's limits refuses: IS 14 (VITCP-PROFILE §2 carries no text), the log line names the limit. */
    private void limited(Limit limit) {
        String why = shared.describe(limit, clientAddress);
        log.info("conn {} {}:{} Connect Reject IS {} ({})", id, clientAddress.getHostAddress(), clientPort,
                IsCode.RESOURCES_EXHAUSTED, why);
        shared.metrics.limited(limit);
        closeReason = why;
        engine.reject(IsCode.RESOURCES_EXHAUSTED);
    }

    private void reject(RejectReason reason, int isCode, String why) {
        log.info("conn {} {}:{} Connect Reject IS {} ({})", id, clientAddress.getHostAddress(), clientPort, isCode, why);
        shared.metrics.rejected(reason);
        closeReason = why;
        engine.reject(isCode);
    }

    /** The target refused or never answered (before the VI connection was accepted). */
    private void targetFailed(RejectReason reason, int isCode, String why) {
        target.markDown();
        if (engine.state() == ViConnection.State.PASSIVE_PENDING_ACCEPT) {
            reject(reason, isCode, why);
        }
        phase = Phase.CLOSED;
        target.drain();
        maybeRelease();
    }

    private void connectFailed(ConnectFailure failure, int isCode) {
        cancelIncomingTimer();
        switch (failure) {
            case SECURITY -> {
                closeReason = isCode == IsCode.RESOURCES_EXHAUSTED
                        ? "replay memory full (security.replay-capacity, replay-per-client)"
                        : "security information rejected";
                log.info("conn {} {}:{} Connect Reject IS {} ({})", id, clientAddress.getHostAddress(), clientPort,
                        isCode, closeReason);
                shared.metrics.rejected(RejectReason.SECURITY);
            }
            case PROTOCOL, TIMEOUT -> {
                // a timeout was logged by the incoming timer; bad input once per summary period at INFO
                boolean info = pending.failed(failure == ConnectFailure.PROTOCOL ? SetupFailure.PROTOCOL
                        : SetupFailure.TIMEOUT);
                if (info || log.isDebugEnabled()) {
                    String line = "conn {} {}:{} connection setup failed: {}{}";
                    Object[] args = {id, clientAddress.getHostAddress(), clientPort, failure,
                            failure == ConnectFailure.PROTOCOL ? " (" + engine.lastProtocolError() + ")" : ""};
                    if (info) {
                        log.info(line, args);
                    } else {
                        log.debug(line, args);
                    }
                }
                shared.metrics.rejected(RejectReason.PROTOCOL);
                countFrameError();
            }
            case REJECTED -> {
                if (closeReason == null) {
                    // rejected by the engine itself (attributes, MTU, version)
                    shared.metrics.rejected(isCode == IsCode.MTU_TOO_SMALL ? RejectReason.MTU : RejectReason.ATTRIBUTES);
                    log.info("conn {} {}:{} Connect Reject IS {}", id, clientAddress.getHostAddress(), clientPort, isCode);
                }
            }
            case CLOSED -> {
                if (pending.failed(SetupFailure.CLOSED)) {
                    log.info("conn {} {}:{} connection setup failed: {} (the first this period; GatewayServer's "
                            + "summary counts the rest)", id, clientAddress.getHostAddress(), clientPort, failure);
                } else {
                    log.debug("conn {} {}:{} connection setup failed: {}", id, clientAddress.getHostAddress(),
                            clientPort, failure);
                }
            }
            case NO_MATCH -> {
                // logged and counted when answered (connectRequested)
            }
        }
        pending.end(); // answered (Reject, No Match) or counted above: setup is over
        if (target != null && target.connectStarted() && !target.down()) {
            ibDisconnect();
        }
        if (phase == Phase.CONNECTING_TARGET) {
            // the engine is closed (e.g. a second Connect Request: VITCP-PROFILE §9.8, a broken segment sequence):
            // a CM REP already on its way must find the setup over, not accept on a closed engine (issue 29)
            phase = Phase.CLOSED;
        }
    }

    // ============================================================================ data-path events

    private void slotFreed() {
        checkDrained();
        channel.resumeInput();
    }

    /** A target SEND polled before the CM Established event was handled, kept for the client's VI. */
    private record EarlyMessage(int slot, int offset, int length, boolean hasImmediate, int immediate) {
    }

    /**
     * Target SENDs that arrived while the connection still waited for the CM Established event: the target
     * may send as soon as it has our RTU, and its receive completions and our CM event reach this context in
     * either order. Delivered in order once the client's VI is connected; null when there were none.
     */
    private java.util.ArrayDeque<EarlyMessage> early;

    private void targetMessage(int slot, int offset, int length, boolean hasImmediate, int immediate) {
        if (phase == Phase.CONNECTING_TARGET) {
            if (early == null) {
                early = new java.util.ArrayDeque<>(2);
            }
            early.addLast(new EarlyMessage(slot, offset, length, hasImmediate, immediate));
            return;
        }
        if (engine.state() != ViConnection.State.CONNECTED) {
            return; // the client is gone: the slot stays unposted until teardown
        }
        if (length > engine.negotiated().mtu()) {
            log.warn("conn {} target SEND of {} bytes exceeds the agreed MTU {}", id, length, engine.negotiated().mtu());
            failed(WcStatus.REMOTE_INVALID_REQUEST);
            return;
        }
        peer.targetMessage(slot, offset, length, hasImmediate, immediate);
    }

    private void completionsPolled() {
        order.forward(); // what the target issued after the last message polled
        target.postStaged();
        maybeRelease();
        channel.pump();
    }

    /** The provider queued cut-through work: forward what may go now. */
    private void onCutThrough() {
        if (order != null) {
            order.forward();
        }
        channel.pump();
    }

    /**
     * The InfiniBand work of the client's message in slot {@code slot} failed (the QP is in ERROR): the
     * engine handles it per reliability level (VITCP-PROFILE §6): Reliable Reception reports it (remote
     * access error: VI Error Type 1, else type 2; IS 16) and then closes, Reliable Delivery closes without a
     * report, Unreliable Delivery drops the message; the InfiniBand side is disconnected in every case.
     */
    private void clientMessageFailed(int slot, WcStatus status) {
        if (closeReason == null) {
            closeReason = "InfiniBand " + status + " for message " + Integer.toUnsignedString(slots.msgNo[slot]);
        }
        if (peer.clientMessageFailed(slot, status == WcStatus.REMOTE_ACCESS_ERROR ? 1 : 2)) {
            target.markDown();
            ibDisconnect(); // the engine closes after the report went out (broken -> drain)
            channel.pump();
        } else {
            failed(status);
        }
    }

    /** An InfiniBand operation failed (the QP is in ERROR): the VI connection cannot continue. */
    private void failed(WcStatus status) {
        failed("InfiniBand " + status);
    }

    private void failed(String why) {
        if (closeReason == null) {
            closeReason = why;
        }
        target.markDown();
        log.info("conn {} InfiniBand side failed ({}): closing the client connection", id, why);
        if (engine.state() == ViConnection.State.CONNECTED || engine.state() == ViConnection.State.ERROR) {
            engine.disconnect();
        }
        ibDisconnect();
        maybeRelease();
        channel.pump();
    }

    // ============================================================================ teardown

    private void broken(BreakCause cause, int viErrorType, int isCode) {
        String why = switch (cause) {
            case PROTOCOL_ERROR -> "protocol error: " + engine.lastProtocolError();
            case TRANSPORT_CLOSED -> "client closed TCP";
            case LOCAL_DISCONNECT -> "gateway disconnect";
            case LOCAL_RECEIVE_ERROR -> "receive error IS " + isCode;
            case REMOTE_ERROR -> "client reported error type " + viErrorType + " IS " + isCode;
        };
        if (closeReason == null || cause == BreakCause.PROTOCOL_ERROR) {
            closeReason = why;
        }
        if (cause == BreakCause.PROTOCOL_ERROR) {
            countFrameError();
        }
        if (cause == BreakCause.PROTOCOL_ERROR || cause == BreakCause.LOCAL_RECEIVE_ERROR) {
            log.warn("conn {} {}:{} disconnected: {}", id, clientAddress.getHostAddress(), clientPort, why);
        } else {
            log.debug("conn {} VI connection ended: {}", id, why);
        }
        beginDrain();
    }

    private void targetDisconnected() {
        if (target != null) {
            target.markDown();
        }
        if (closeReason == null) {
            // the target's own disconnect: worth a line; the answer to our DREQ (client gone) is routine
            closeReason = "target disconnected";
            log.info("conn {} target side disconnected", id);
        } else {
            log.debug("conn {} target side disconnected ({})", id, closeReason);
        }
        if (target != null) {
            target.drain();
        }
        if (phase == Phase.CONNECTING_TARGET) {
            targetFailed(RejectReason.TARGET_UNREACHABLE, IsCode.REMOTE_TRANSPORT_ERROR, "target disconnected");
            return;
        }
        beginDrain();
        maybeRelease();
    }

    private void clientClosed() {
        cancelIncomingTimer();
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.transportClosed();
        }
        switch (phase) {
            case CONNECTING_TARGET -> {
                ibDisconnect();
                phase = Phase.CLOSED;
            }
            case INCOMING -> phase = Phase.CLOSED;
            case CONNECTED, DRAINING -> beginDrain();
            case CLOSED -> {
            }
        }
        maybeRelease();
    }

    /** Stops taking new messages; closes both sides once what can complete has completed. */
    private void beginDrain() {
        if (phase == Phase.CLOSED) {
            maybeRelease();
            return;
        }
        if (phase != Phase.DRAINING) {
            phase = Phase.DRAINING;
            channel.draining();
            long grace = Math.max(1, config.shutdownGrace().toMillis());
            graceTimer = vertx.setTimer(grace, t -> {
                graceTimer = -1;
                forceClose();
            });
        }
        checkDrained();
    }

    private void checkDrained() {
        if (phase != Phase.DRAINING) {
            return;
        }
        boolean ibDown = target == null || target.down();
        boolean clientOpsDone = slots == null || slots.clientSlotsIdle();
        boolean targetOpsDone = engine.state() != ViConnection.State.CONNECTED || engine.outstandingWork() == 0;
        if ((clientOpsDone || ibDown) && (targetOpsDone || channel.closed())) {
            if (engine.state() == ViConnection.State.CONNECTED || engine.state() == ViConnection.State.ERROR) {
                engine.disconnect();
            }
            ibDisconnect();
            phase = Phase.CLOSED;
            channel.pump();
            maybeRelease();
        }
    }

    /** {@link #shutdown()} on the connection's own context (callable from any thread). */
    public void shutdownAsync() {
        context.runOnContext(v -> shutdown());
    }

    /** Force-closes on the connection's own context (callable from any thread). */
    public void forceCloseAsync() {
        context.runOnContext(v -> forceClose());
    }

    /** Graceful shutdown of this connection (gateway shutdown). */
    public void shutdown() {
        if (phase == Phase.CONNECTED) {
            closeReason = "gateway shutdown";
            log.info("conn {} draining for shutdown", id);
            channel.pause();
            beginDrain();
        } else if (phase == Phase.INCOMING || phase == Phase.CONNECTING_TARGET) {
            forceClose();
        }
    }

    private void forceClose() {
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.disconnect();
        }
        ibDisconnect();
        phase = Phase.CLOSED;
        channel.close();
        maybeRelease();
    }

    /** Sends the CM DREQ once; without a CM connection there is nothing to wait for. */
    private void ibDisconnect() {
        if (target != null && !target.disconnect()) {
            target.markDown();
        }
    }

    /** Frees staging and verbs resources once the socket is closed and the QP has flushed everything. */
    private void maybeRelease() {
        if (released || !channel.closed()) {
            return;
        }
        if (target != null) {
            if (target.connectStarted() && !target.disconnectSent() && phase != Phase.CLOSED) {
                return;
            }
            if (!target.flushed()) {
                return; // flushes still to come
            }
        }
        release();
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        phase = Phase.CLOSED;
        if (order != null) {
            order.close();
        }
        cancelTimer(graceTimer);
        cancelTimer(keepaliveTimer);
        if (target != null) {
            target.close();
        }
        if (slots != null) {
            slots.release();
        }
        if (admitted) {
            admitted = false;
            shared.release(clientAddress);
        }
        pending.end();
        if (opened) {
            shared.metrics.connectionClosed(engine.encapsulation());
            log.debug("conn {} closed ({}), {} bytes in, {} bytes out", id, closeReason, channel.bytesIn(),
                    channel.bytesOut());
        }
        shared.bridges.remove(this);
    }

    /** A bad CRC, an unknown Connection ID, ... ended the connection (seed-004 framing): counted by check. */
    private void countFrameError() {
        FrameCheck c = engine.framingFailure();
        if (c != null) {
            shared.metrics.frameError(c);
        }
    }

    private void cancelIncomingTimer() {
        cancelTimer(incomingTimer);
        incomingTimer = -1;
    }

    private void cancelTimer(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    // ============================================================================ admin and diagnostics

    public ConnectionInfo info() {
        TargetSide t = target;                  // read from the admin server's thread: null until the route is known
        return new ConnectionInfo(id, clientAddress.getHostAddress() + ":" + clientPort, routeName(), targetName(),
                phase.name(), channel.bytesIn(), channel.bytesOut(), openedAtMillis,
                io.vibridge.gateway.metrics.ClientProtocol.of(engine.encapsulation()).label(), t == null ? null : t.qpInfo());
    }

    /** The route's discriminator as text ("" before the Connect Request): built on demand, not per connection. */
    private String routeName() {
        Route r = route;
        return r == null ? "" : r.discriminator().toString();
    }

    private String targetName() {
        Route r = route;
        if (r == null) {
            return "";
        }
        RouteTarget t = r.target();
        return t.address().getHostAddress() + ":" + t.port() + "/0x" + Long.toHexString(t.serviceId().value());
    }

    public Phase phase() {
        return phase;
    }

    /** Internal counters for diagnostics (call on the connection's context, or accept a racy view). */
    public String debugState() {
        return "phase=" + phase + " engine=" + engine.state() + " hasOutput=" + engine.hasOutput() + " outstandingWork="
                + engine.outstandingWork() + " " + slots + " " + target + " " + channel
                + " closeRequested=" + engine.closeRequested();
    }

    /** Runs the output pump on the connection's context (diagnostics). */
    public void kickOutput() {
        context.runOnContext(v -> channel.pump());
    }

    /** The Vert.x context this connection is confined to (tests). */
    Context context() {
        return context;
    }

    /** Cut-through operations accepted and not yet handed to the VI engine (tests; any thread). */
    int cutThroughQueued() {
        return order == null ? 0 : order.queued();
    }

    /** The client's TCP port (tests). */
    int clientPort() {
        return clientPort;
    }

    /** Client-slot bytes this connection holds right now (for tests of the buffering cap). */
    public long bufferedBytes() {
        return slots == null ? 0 : slots.bufferedBytes();
    }

    /** Cut-through WRITE bytes held on their way to the client (bounded by {@link CutThrough#BUDGET}). */
    public long cutThroughHeld() {
        return order == null ? 0 : order.held();
    }

    /** Staging bytes this connection reserved (its cap). */
    public long reservedBytes() {
        return slots == null ? 0 : slots.reservedBytes();
    }

    private static String printable(byte[] b) {
        StringBuilder s = new StringBuilder("\"");
        for (byte x : b) {
            s.append(x >= 0x20 && x < 0x7F ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xFF));
        }
        return s.append('"').toString();
    }

    /** The events of the engine peer and the target side, one method of this class each. */
    private final class Events implements EnginePeer.Lifecycle, TargetSide.Events {
        @Override
        public void connectRequested() {
            BridgedConnection.this.connectRequested();
        }

        @Override
        public void connectFailed(ConnectFailure failure, int isCode) {
            BridgedConnection.this.connectFailed(failure, isCode);
        }

        @Override
        public void broken(BreakCause cause, int viErrorType, int isCode) {
            BridgedConnection.this.broken(cause, viErrorType, isCode);
        }

        @Override
        public boolean draining() {
            return phase == Phase.DRAINING;
        }

        @Override
        public void slotFreed() {
            BridgedConnection.this.slotFreed();
        }

        @Override
        public void cmEvent(CmEvent event) {
            BridgedConnection.this.cmEvent(event);
        }

        @Override
        public void clientMessageDone(int slot) {
            peer.clientMessageDone(slot);
        }

        @Override
        public void clientMessageFailed(int slot, WcStatus status) {
            BridgedConnection.this.clientMessageFailed(slot, status);
        }

        @Override
        public void clientMessageEnded(int slot) {
            peer.freeClientSlot(slot);
            maybeRelease();
        }

        @Override
        public void readDone(int slot) {
            peer.readDone();
        }

        @Override
        public void targetReceivePolled() {
            order.beforeTargetMessage();
        }

        @Override
        public void targetMessage(int slot, int offset, int length, boolean hasImmediate, int immediate) {
            BridgedConnection.this.targetMessage(slot, offset, length, hasImmediate, immediate);
        }

        @Override
        public void completionsPolled() {
            BridgedConnection.this.completionsPolled();
        }

        @Override
        public void failed(WcStatus status) {
            BridgedConnection.this.failed(status);
        }

        @Override
        public void failed(String why) {
            BridgedConnection.this.failed(why);
        }
    }
}

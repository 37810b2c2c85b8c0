package io.vibridge.gateway.bridge;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.admission.Pending;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.FrontEnd.Refusal;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.bridge.client.Transport;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;

/**
 * One client connection bridged to one InfiniBand RC connection (DESIGN "One connection through the
 * gateway"), whatever the client's protocol: its life as one {@link Phase} and one method per event, as
 * rdma_cm's one {@code rdma_cm_id} lifecycle serves IB and iWARP (Linux cma.c). What differs per protocol
 * is its {@link FrontEnd}, which sees the connection as its {@link FrontEnd.Host}. The connection owns the
 * rest: the {@link ClientSocket}; the {@link TargetLeg} (staging slots, {@link TargetSide},
 * {@link TargetOrder}); its {@link ConnectionSetup} books; its {@link ConnectionTimers}; the drain rule and
 * the release order. {@link ConnectionEvents} routes what the InfiniBand side reports.
 *
 * <p>Confined to the Vert.x context of its socket: socket events, CM events and completion notifications
 * all run there, so no field needs a lock.
 */
public final class BridgedConnection implements FrontEnd.Host {
    private final Logger log;
    private final BridgeContext shared;
    private final GatewayConfig config;
    private final Context context;
    private final Executor onContext;
    private final long id;
    private final InetAddress clientAddress;
    private final int clientPort;
    private final long openedAtMillis = System.currentTimeMillis();
    private final FrontEnd front;
    private final ClientSocket socket;
    private final ConnectionEvents events;
    private final ConnectionSetup setup;
    private Phase phase = Phase.AWAITING_REQUEST;
    /** The route the client asked for (null before its request). */
    private Route route;
    /** The InfiniBand leg (null until the route's staging is reserved). */
    private TargetLeg leg;
    /** Reached CONNECTED once (counted in the connection metrics). */
    private boolean opened;
    private boolean released;
    private final ConnectionTimers timers;
    /** Runs {@link #forwardTargetRdma()} on the context when the provider queued cut-through work (any thread). */
    private final Handler<Void> forwardTargetRdma = v -> forwardTargetRdma();
    private String closeReason;

    /** The connection on {@code socket}, holding {@code pending} until its setup is over. */
    public BridgedConnection(BridgeContext shared, Vertx vertx, Transport socket, Pending pending, FrontEnd front) {
        this.shared = shared;
        this.config = shared.config;
        this.timers = new ConnectionTimers(vertx);
        this.context = vertx.getOrCreateContext();
        this.onContext = r -> context.runOnContext(v -> r.run());
        this.id = shared.nextId();
        this.log = ConnectionLogger.of(BridgedConnection.class, id);
        this.front = front;
        this.events = new ConnectionEvents(this, front);
        this.socket = new ClientSocket(id, socket, shared.metrics.clientBytes(front.protocol()));
        this.clientAddress = this.socket.remoteAddress();
        this.clientPort = this.socket.remotePort();
        this.setup = new ConnectionSetup(shared, pending, log, id, clientAddress, clientPort);
    }

    /** Wires the socket; call on the socket's context. */
    public void start() {
        shared.connections.add(this);
        front.start(this);
        socket.start(front, this::socketClosed);
        timers.requestDeadline(front.requestTimeout(), () -> {
            if (phase == Phase.AWAITING_REQUEST && front.awaitingRequest()) {
                setup.failed(SetupFailure.TIMEOUT, "no " + front.requestName() + " within " + front.requestTimeout()
                        + ": closed");
                closeReason = "no " + front.requestName();
                front.requestTimedOut();
                socket.pump();
            }
        });
        log.debug("conn {} {} accepted from {}:{}", id, front.protocol().label(), clientAddress.getHostAddress(),
                clientPort);
    }

    // ============================================================================ establishment

    @Override
    public void connect(Route r, FrontEnd.ClientRequest request) {
        timers.requestAnswered();
        route = r;
        StagingSlots slots = setup.admit(r);
        if (slots == null) {
            refuse(Refusal.LIMIT, setup.refusal(), null);
            return;
        }
        try {
            leg = setup.connect(r, slots, request, events, onContext,
                    () -> context.runOnContext(forwardTargetRdma));
            phase = Phase.CONNECTING_TARGET;
        } catch (VerbsException | IllegalArgumentException e) {
            log.warn("conn {} cannot open the InfiniBand side: {}", id, e.toString());
            refuse(Refusal.TARGET_UNREACHABLE, "InfiniBand setup failed", null);
            release();
        }
    }

    /** The target's REP: the front end answers its client, and the connection is bridged. */
    void targetEstablished(CmEvent.Established est) {
        if (phase != Phase.CONNECTING_TARGET) {
            return;
        }
        FrontEnd.TargetTerms terms = setup.granted(route, est);
        if (terms == null) {
            leg.side.disconnect();
            targetFailed(Refusal.TARGET_REJECTED, "bad HelloReply from the target", null);
            return;
        }
        if (!front.targetAccepted(terms)) {
            leg.side.disconnect();
            phase = Phase.CLOSED;
            return;
        }
        leg.side.established(terms.targetBufs());
        opened = true;
        phase = Phase.CONNECTED;
        leg.order.accept();
        timers.keepalive(config.infiniband().keepalive(), () -> {
            if (phase == Phase.CONNECTED) {
                leg.side.keepaliveTick();
            }
        });
        setup.opened(front);
    }

    /** The connection cannot be bridged: the front end answers its client (with the target's own words, if any). */
    private void refuse(Refusal refusal, String why, byte[] privateData) {
        closeReason = why;
        setup.refused(refusal);
        setup.answered(front.targetRefused(refusal, why, privateData), why);
    }

    /** The target's REJ before the client was answered. */
    void targetRejected(CmEvent.Rejected rej) {
        targetFailed(rej.reason() == CmEvent.REJ_INVALID_SERVICE_ID ? Refusal.TARGET_UNREACHABLE
                : Refusal.TARGET_REJECTED, BridgeContext.targetRejected(rej.reason()), CmTerms.rejectData(route.target(), rej));
    }

    /** The target refused ({@code privateData}: its consumer REJ's, else null) or never answered. */
    void targetFailed(Refusal refusal, String why, byte[] privateData) {
        leg.side.markDown();
        refuse(refusal, why, privateData);
        phase = Phase.CLOSED;
        leg.side.drain();
        maybeRelease();
    }

    // ============================================================================ data path

    @Override
    public boolean admit() {
        return phase == Phase.CONNECTED && leg.admit();
    }

    @Override
    public void stage(int slot) {
        leg.stage(slot);
    }

    @Override
    public void delivered(int slot) {
        leg.side.repost(slot);
    }

    @Override
    public void splitTargetReads(long length) {
        leg.order.maxRead(length);
    }

    @Override
    public void slotFreed() {
        checkDrained();
        socket.resumeInput();
        maybeRelease();
    }

    /** The provider queued cut-through work: forward what may go now. */
    private void forwardTargetRdma() {
        leg.order.forward();
        socket.pump();
    }

    void clientOpFailed(int slot, WcStatus status) {
        if (closeReason == null) {
            closeReason = "InfiniBand " + status + " for a client message";
        }
        boolean access = status == WcStatus.REMOTE_ACCESS_ERROR;
        if (front.clientOpFailed(slot, access)) {
            leg.side.markDown();
            ibDisconnect(); // the front end closes after its report went out
            socket.pump();
        } else {
            failed("InfiniBand " + status, access);
        }
    }

    @Override
    public void fail(String why) {
        failed(why, false);
    }

    /** The InfiniBand side failed (the QP is in ERROR), or the front end cannot carry on: both sides close. */
    void failed(String why, boolean accessError) {
        if (phase == Phase.CONNECTING_TARGET) {
            ibDisconnect();
            targetFailed(Refusal.TARGET_UNREACHABLE, why, null); // before the client was answered
            return;
        }
        if (closeReason == null) {
            closeReason = why;
        }
        if (leg != null) {
            leg.side.markDown();
        }
        log.info("conn {} InfiniBand side failed ({}): closing the client connection", id, why);
        front.fail(why, accessError);
        ibDisconnect();
        beginDrain();
        socket.pump();
    }

    // ============================================================================ teardown

    @Override
    public void clientEnded(String why) {
        if (closeReason == null) {
            closeReason = why;
        }
        setup.ended(); // answered or counted: setup is over
        beginDrain();
    }

    /** The target's DREQ, or the answer to ours. */
    void targetDisconnected() {
        leg.side.markDown();
        if (closeReason == null) {
            // the target's own disconnect: worth a line; the answer to our DREQ (client gone) is routine
            closeReason = "target disconnected";
            log.info("conn {} target side disconnected", id);
        } else {
            log.debug("conn {} target side disconnected ({})", id, closeReason);
        }
        leg.side.drain();
        if (phase == Phase.CONNECTING_TARGET) {
            targetFailed(Refusal.TARGET_GONE, "target disconnected", null);
            return;
        }
        beginDrain();
    }

    private void socketClosed() {
        timers.requestAnswered();
        if (closeReason == null) {
            closeReason = "client closed TCP";
        }
        if (setup.inSetup()) {
            setup.failed(SetupFailure.CLOSED, "closed before its request was answered");
        }
        front.socketClosed();
        switch (phase) {
            case CONNECTING_TARGET -> {
                ibDisconnect();
                phase = Phase.CLOSED;
            }
            case AWAITING_REQUEST -> phase = Phase.CLOSED;
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
            socket.draining();
            timers.grace(config.shutdownGrace(), this::forceClose);
        }
        checkDrained();
    }

    /**
     * The drain rule: once every client message staged completed (or the InfiniBand side is down) and nothing
     * owed to the client is outstanding (or its socket is gone), both sides close: the front end ends its
     * connection after what is queued, the target gets its DREQ.
     */
    private void checkDrained() {
        if (phase != Phase.DRAINING) {
            return;
        }
        boolean ibDown = leg == null || leg.side.down();
        boolean clientOpsDone = leg == null || leg.slots.clientSlotsIdle();
        if ((clientOpsDone || ibDown) && (front.idle() || socket.closed())) {
            front.close();
            ibDisconnect();
            phase = Phase.CLOSED;
            socket.pump();
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
            socket.pause();
            beginDrain();
        } else if (phase == Phase.AWAITING_REQUEST || phase == Phase.CONNECTING_TARGET) {
            forceClose();
        }
    }

    private void forceClose() {
        front.forceClose();
        ibDisconnect();
        phase = Phase.CLOSED;
        socket.close();
        maybeRelease();
    }

    private void ibDisconnect() {
        if (leg != null) {
            leg.disconnect();
        }
    }

    /** Frees staging and verbs resources once the socket is closed and the QP has flushed everything. */
    void maybeRelease() {
        if (released || !socket.closed()) {
            return;
        }
        if (leg == null || leg.closable(phase == Phase.CLOSED)) {
            release();
        }
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        phase = Phase.CLOSED;
        front.released();
        timers.cancelAll();
        if (leg != null) {
            leg.close();
        }
        setup.released();
        if (opened) {
            shared.metrics.connectionClosed(front.protocol());
            log.debug("conn {} closed ({}), {} bytes in, {} bytes out", id, closeReason, socket.bytesIn(),
                    socket.bytesOut());
        }
        shared.connections.remove(this);
    }

    // ============================================================================ the host's view

    @Override
    public long id() {
        return id;
    }

    @Override
    public InetAddress clientAddress() {
        return clientAddress;
    }

    @Override
    public int clientPort() {
        return clientPort;
    }

    @Override
    public ClientSocket socket() {
        return socket;
    }

    @Override
    public GatewayConfig config() {
        return config;
    }

    @Override
    public GatewayMetrics metrics() {
        return shared.metrics;
    }

    @Override
    public void schedule(Duration delay, Runnable action) {
        timers.frontEnd(delay, action);
    }

    @Override
    public void setupFailed(SetupFailure failure, String what) {
        setup.failed(failure, what);
    }

    @Override
    public Phase phase() {
        return phase;
    }

    @Override
    public StagingSlots slots() {
        TargetLeg l = leg;
        return l == null ? null : l.slots;
    }

    @Override
    public void pump() {
        socket.pump();
    }

    // ============================================================================ admin and diagnostics

    public ConnectionInfo info() {
        TargetLeg l = leg; // read from the admin server's thread: null until the route is known
        Route r = route;
        return new ConnectionInfo(id, clientAddress.getHostAddress() + ":" + clientPort,
                r == null ? "" : r.name(), r == null ? "" : TargetLeg.targetName(r), phase.name(),
                socket.bytesIn(), socket.bytesOut(), openedAtMillis, front.protocol().label(),
                l == null ? null : l.side.qpInfo());
    }

    /** Internal counters for diagnostics (call on the connection's context, or accept a racy view). */
    public String debugState() {
        return "phase=" + phase + " " + front.debugState() + " " + leg + " " + socket;
    }

    /** Runs the output pump on the connection's context (diagnostics). */
    public void kickOutput() {
        context.runOnContext(v -> socket.pump());
    }

    /** The Vert.x context this connection is confined to (tests). */
    Context vertxContext() {
        return context;
    }

    /** Cut-through operations accepted and not yet handed to the front end (tests; any thread). */
    int cutThroughQueued() {
        TargetLeg l = leg;
        return l == null ? 0 : l.order.queued();
    }

    /** Cut-through WRITE bytes held on their way to the client (bounded by {@link CutThrough#BUDGET}). */
    long cutThroughHeld() {
        TargetLeg l = leg;
        return l == null ? 0 : l.order.held();
    }
}

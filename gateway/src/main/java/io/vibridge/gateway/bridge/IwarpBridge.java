package io.vibridge.gateway.bridge;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetSocket;
import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.gateway.metrics.Limit;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.gateway.admission.Pending;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;

/**
 * One iWARP stream (Linux siw, Chelsio, irdma) bridged to one InfiniBand RC connection
 * (cm-mapping/IWARP-MAPPING.md): the {@link IwarpConnection} engine on the TCP side, the same
 * {@link TargetSide}, {@link StagingSlots} and {@link CutThrough} as the VI/TCP bridges on the other.
 *
 * <ul>
 *   <li>client Send -> a staging slot -> InfiniBand SEND (posted once whole; a client the target cannot
 *       take yet waits in its slot, and with no free slot the socket stops being read);</li>
 *   <li>client RDMA Write -> its contiguous segments gathered in a slot -> RDMA WRITE with STag/TO as
 *       R_Key/VA;</li>
 *   <li>client Read Request -> RDMA READ into a slot -> Read Response, in request order;</li>
 *   <li>target SEND -> Send; target RDMA WRITE (cut-through, per packet) -> RDMA Write; target RDMA READ
 *       -> Read Request into a sink STag of the engine's -> the Read Response answers the READ.</li>
 * </ul>
 * What goes to the client leaves in the order the target issued it ({@link TargetOrder}), each message
 * laid out whole, so nothing interleaves. Confined to the Vert.x context of its socket.
 */
public final class IwarpBridge {
    private final Logger log;

    public enum Phase { AWAITING_REQUEST, CONNECTING_TARGET, CONNECTED, CLOSING, CLOSED }

    private final BridgeContext shared;
    private final GatewayConfig config;
    private final GatewayMetrics metrics;
    private final Vertx vertx;
    private final Context context;
    private final Executor onContext;
    final long id;
    private final InetAddress clientAddress;
    private final int clientPort;
    private final long openedAtMillis = System.currentTimeMillis();
    private final ClientSocket channel;
    private final Events events = new Events();
    private final IwarpConnection engine;
    /** Its slot among the connections in setup (limits.max-pending), returned once bridged, answered or closed. */
    private final Pending pending;
    private Route route;
    private Phase phase = Phase.AWAITING_REQUEST;
    private StagingSlots slots;
    private TargetSide target;
    private TargetOrder order;
    private boolean admitted;
    private boolean opened;
    private boolean released;
    private long requestTimer = -1;
    private long keepaliveTimer = -1;
    private long graceTimer = -1;
    private long cmStart;
    /** When the MPA Request arrived (the connect-setup time runs from here to the MPA Reply). */
    private long requestAt;
    private String closeReason;

    /** Largest client Send the target can take (its receive size, less the FlowC 0 header). */
    private int maxSend;
    /** The client Send being gathered, or -1. */
    private int curSend = -1;
    /** The client RDMA Write being gathered (contiguous segments), or -1; its STag, start TO and bytes. */
    private int curWrite = -1;
    /** A client message waits for a free slot (its credit stall is counted once). */
    private boolean admissionStalled;
    /** What goes to the client, in the order the target issued it. */
    private final ArrayDeque<TargetOp> toClient = new ArrayDeque<>();


    /** The stream on {@code listener}'s port, holding {@code pending} until its setup is over. */
    public IwarpBridge(BridgeContext shared, Vertx vertx, NetSocket socket, GatewayConfig.IwarpListener listener,
            Pending pending) {
        this.shared = shared;
        this.pending = pending;
        this.config = shared.config;
        this.metrics = shared.metrics;
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.onContext = r -> context.runOnContext(v -> r.run());
        this.id = shared.nextId();
        this.log = ConnectionLogger.of(IwarpBridge.class, id);
        this.channel = new ClientSocket(id, socket, metrics.clientBytes(ClientProtocol.IWARP));
        InetAddress a;
        try {
            a = InetAddress.ofLiteral(channel.remoteHost());
        } catch (RuntimeException e) {
            a = InetAddress.getLoopbackAddress();
        }
        this.clientAddress = a;
        this.clientPort = channel.remotePort();
        this.route = listener.routeFor(a); // MPA names no service: the port and the client's address choose
        GatewayConfig.Iwarp iw = config.iwarp();
        this.engine = new IwarpConnection(iw.crcRequired(), iw.maxFpdu(), events);
    }

    /** Wires the socket; call on the socket's context. */
    public void start() {
        shared.iwarpBridges.add(this);
        channel.start(events);
        requestTimer = vertx.setTimer(config.iwarp().requestTimeout().toMillis(), t -> {
            requestTimer = -1;
            if (phase == Phase.AWAITING_REQUEST) {
                // nothing, or part of a Request: closed all the same (issue 29); one INFO line per summary period
                if (pending.failed(SetupFailure.TIMEOUT)) {
                    log.info("iwarp conn {} {}:{} no MPA Request within {}: closed (the first this period; "
                            + "GatewayServer's summary counts the rest)", id, clientAddress.getHostAddress(), clientPort,
                            config.iwarp().requestTimeout());
                } else {
                    log.debug("iwarp conn {} {}:{} no MPA Request within {}: closed", id,
                            clientAddress.getHostAddress(), clientPort, config.iwarp().requestTimeout());
                }
                metrics.rejected(RejectReason.PROTOCOL);
                closeReason = "no MPA Request";
                forceClose();
            }
        });
    }

    // ================================================================================ setup

    /** The client's MPA Request (RFC 6581): route it, connect the InfiniBand side; the Reply waits for the REP. */
    private void requested(MpaFrame request, MpaV2Params params) {
        requestAt = System.nanoTime();
        cancel(requestTimer);
        requestTimer = -1;
        Limit limit = shared.admit(clientAddress);
        if (limit != null) {
            limited(limit);
            return;
        }
        admitted = true;
        RouteTarget t = route.target();
        boolean flowC0 = t.parameters().flowControl() == FlowControl.TRANSPORT;
        try {
            slots = StagingSlots.reserve(shared.pool, config.slotsPerConnection(), t.parameters().receiveBuffers(),
                    flowC0);
        } catch (RuntimeException e) {
            log.warn("iwarp conn {} cannot grow the staging pool: {}", id, e.toString());
        }
        if (slots == null) {
            limited(Limit.STAGING);
            return;
        }
        try {
            CutThrough cut = new CutThrough(() -> context.runOnContext(v -> forwardAndPump()));
            target = new TargetSide(id, shared, slots, t.parameters().receiveSize(), flowC0, events, onContext, cut);
            order = new TargetOrder(target.cutThrough() ? cut : null, events);
            GatewayConfig.Infiniband ib = config.infiniband();
            byte[] pd = t.requestPrivateData(clientAddress, clientPort, shared.device.address(), shared.nextCmaPort(),
                shared.device.connectionManager().writesCmaHeader());
            // the target may READ the client as deep as the client's IRD, and the client READs the target as
            // deep as its ORD (IWARP-MAPPING "Read depths")
            int responder = Math.max(1, Math.min(ib.responderResources(), params.ird()));
            int initiator = Math.max(1, Math.min(ib.initiatorDepth(), Math.max(params.ord(), 1)));
            ConnectParams p = new ConnectParams(t.address(), t.serviceId().value(), pd, responder, initiator,
                    ib.retryCount(), ib.rnrRetry(), ib.localAckTimeout(), ib.cmResponseTimeout(), ib.maxCmRetries(),
                    ib.pathMtu(), 12);
            phase = Phase.CONNECTING_TARGET;
            cmStart = System.nanoTime();
            target.connect(shared.device, p, onContext);
        } catch (VerbsException | IllegalArgumentException e) {
            log.warn("iwarp conn {} cannot open the InfiniBand side: {}", id, e.toString());
            refuse(RejectReason.TARGET_UNREACHABLE, "InfiniBand setup failed");
        }
    }

    private void targetEstablished(CmEvent.Established est) {
        if (phase != Phase.CONNECTING_TARGET) {
            return;
        }
        metrics.cmRoundTrip(System.nanoTime() - cmStart);
        RouteTarget t = route.target();
        boolean flowC0 = t.parameters().flowControl() == FlowControl.TRANSPORT;
        int targetBufs = 0;
        long targetReceive = t.parameters().receiveSize();
        if (t.parameters().cmFormat() == CmFormat.HELLO) {
            try {
                HelloReply reply = HelloReply.fromBytes(est.privateData());
                targetBufs = reply.bufs();
                targetReceive = reply.actualReceiveSize();
            } catch (CmFormatException e) {
                log.info("iwarp conn {} bad HelloReply: {}", id, e.getMessage());
                target.disconnect();
                refuse(RejectReason.TARGET_REJECTED, "bad HelloReply from the target");
                return;
            }
        }
        maxSend = (int) Math.min(slots.payloadCapacity(), targetReceive - (flowC0 ? StagingSlots.HEADROOM : 0));
        GatewayConfig.Infiniband ib = config.infiniband();
        // IRD: the client's Read Requests this side takes at once = the READs the target accepts (REP responder
        // resources); ORD: the gateway's Read Requests = the READs the target issues (REP initiator depth)
        int ird = est.responderResources() >= 0 ? Math.min(ib.initiatorDepth(), est.responderResources())
                : ib.initiatorDepth();
        int ord = est.initiatorDepth() >= 0 ? Math.min(ib.responderResources(), est.initiatorDepth())
                : ib.responderResources();
        MpaSettings s = engine.accept(Math.max(ird, 1), Math.max(ord, 1), new byte[0]);
        target.established(targetBufs);
        phase = Phase.CONNECTED;
        opened = true;
        pending.end();
        metrics.connectionOpened(ClientProtocol.IWARP);
        metrics.connectSetup(System.nanoTime() - requestAt);
        long keepalive = ib.keepalive().toMillis();
        if (keepalive > 0) {
            keepaliveTimer = vertx.setPeriodic(keepalive, tick -> {
                if (phase == Phase.CONNECTED) {
                    target.keepaliveTick();
                }
            });
        }
        // per-connection lines are DEBUG, as for VI/TCP (GatewayServer logs a periodic summary)
        log.debug("iwarp conn {} {}:{} bridged to {} (route {}): MPA CRC {}, IRD {} ORD {}, RTR {}", id,
                clientAddress.getHostAddress(), clientPort, targetName(), route.discriminator(), s.crc() ? "on" : "off",
                s.ird(), s.ord(), s.rtr());
        pump();
    }

    /** One of the gateway's limits refuses: the MPA Reject's private data names it (RFC 5044 §7.1.2). */
    private void limited(Limit limit) {
        metrics.limited(limit);
        refuse(null, shared.describe(limit, clientAddress));
    }

    /** The connection cannot be bridged: a Reject Reply (with why, RFC 6581 §5) and close; counted unless reason is null. */
    private void refuse(RejectReason reason, String why) {
        pending.end(); // answered: an MPA Reject Reply
        log.info("iwarp conn {} {}:{} refused: {}", id, clientAddress.getHostAddress(), clientPort, why);
        if (reason != null) {
            metrics.rejected(reason);
        }
        closeReason = why;
        if (engine.state() == IwarpConnection.State.DECIDING) {
            engine.reject(why.getBytes(StandardCharsets.US_ASCII));
        }
        phase = Phase.CONNECTED; // so that close() runs its course
        close(why);
    }

    private void cmEvent(CmEvent e) {
        switch (e) {
            case CmEvent.Established est -> targetEstablished(est);
            case CmEvent.Rejected r -> {
                if (phase == Phase.CONNECTING_TARGET) {
                    target.markDown();
                    refuse(r.reason() == CmEvent.REJ_INVALID_SERVICE_ID ? RejectReason.TARGET_UNREACHABLE
                            : RejectReason.TARGET_REJECTED, BridgeContext.targetRejected(r.reason()));
                }
            }
            case CmEvent.ConnectTimeout ct -> {
                if (phase == Phase.CONNECTING_TARGET) {
                    target.markDown();
                    refuse(RejectReason.TARGET_UNREACHABLE, "CM timeout: target unreachable");
                }
            }
            case CmEvent.Disconnected d -> {
                target.markDown();
                if (phase == Phase.CONNECTING_TARGET) {
                    refuse(RejectReason.TARGET_UNREACHABLE, "target disconnected");
                } else {
                    // IWARP-MAPPING "Disconnects": the target's DREQ ends the stream the way siw ends one, by
                    // closing TCP once what the target sent before it went out
                    target.drain();
                    close("target disconnected");
                }
            }
            case CmEvent.TimewaitExit tw -> target.markDown();
            default -> {
            }
        }
        maybeRelease();
    }

    // ================================================================================ client -> target

    private boolean clientSend(DdpSegment s) {
        int n = s.payloadLength();
        int mo = s.messageOffset();
        if (curSend < 0) {
            if (!admitSlot()) {
                return false;
            }
            curSend = slots.takeAdmitted();
        }
        if ((long) mo + n > maxSend) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_TOO_LONG, "Message Offset", s.payloadOffset(),
                    "a Send longer than the " + maxSend + " bytes the target takes");
        }
        int l = curSend;
        put(l, mo, s, n);
        if (s.last()) {
            if (s.opcode().invalidates()) {
                throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Opcode", s.payloadOffset(),
                        "Send with Invalidate is not bridged (IWARP-MAPPING \"Not bridged\")");
            }
            curSend = -1;
            stage(l, Op.SEND, mo + n, 0, 0);
            metrics.message(Direction.CLIENT_TO_TARGET, Operation.SEND, mo + n);
        }
        return true;
    }

    /** Contiguous Write segments to one STag gather in one slot: one RDMA WRITE per message or full slot. */
    private boolean clientWrite(DdpSegment s) {
        int n = s.payloadLength();
        int l = curWrite;
        if (l >= 0 && (slots.rkey[l] != s.stag() || slots.raddr[l] + slots.len[l] != s.taggedOffset()
                || slots.len[l] + n > slots.payloadCapacity())) {
            flushWrite();
            l = -1;
        }
        if (l < 0) {
            if (!admitSlot()) {
                return false;
            }
            l = slots.takeAdmitted();
            curWrite = l;
            slots.rkey[l] = s.stag();
            slots.raddr[l] = s.taggedOffset();
            slots.len[l] = 0;
        }
        put(l, slots.len[l], s, n);
        slots.len[l] += n;
        if (s.last()) {
            flushWrite();
        }
        return true;
    }

    private void flushWrite() {
        int l = curWrite;
        curWrite = -1;
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_WRITE, slots.len[l]);
        stage(l, Op.WRITE, slots.len[l], slots.raddr[l], slots.rkey[l]);
    }

    private boolean clientReadRequest(ReadRequest r) {
        if (r.sizeUnsigned() > slots.payloadCapacity()) {
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNSPECIFIED, "RDMA Read Message Size", 0,
                    "a Read of " + r.sizeUnsigned() + " bytes; the gateway reads at most " + slots.payloadCapacity()
                            + " at once (IWARP-MAPPING \"Not bridged\")");
        }
        if (!admitSlot()) {
            return false;
        }
        int l = slots.takeAdmitted();
        slots.pushRead(l);
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, r.size());
        stage(l, Op.READ, r.size(), r.sourceOffset(), r.sourceStag());
        return true;
    }

    private boolean admitSlot() {
        if (phase != Phase.CONNECTED) {
            return false;
        }
        if (slots.admit()) {
            admissionStalled = false;
            return true;
        }
        if (!admissionStalled) { // one stall per waiting message, however often input is fed again (as EnginePeer)
            admissionStalled = true;
            metrics.creditStall(Direction.CLIENT_TO_TARGET);
        }
        return false;
    }

    private void put(int l, int at, DdpSegment s, int n) {
        if (n > 0) {
            slots.buffer[l].put(slots.base[l] + StagingSlots.HEADROOM + at, s.buffer(), s.payloadOffset(), n);
        }
    }

    private void stage(int l, Op op, int len, long raddr, int rkey) {
        slots.op[l] = op;
        slots.len[l] = len;
        slots.raddr[l] = raddr;
        slots.rkey[l] = rkey;
        slots.hasImm[l] = false;
        slots.readReady[l] = false;
        slots.pendingWr[l] = 0;
        slots.enqueue(l);
        target.postStaged();
        if (op == Op.READ && len == 0) {
            pump(); // answered without an InfiniBand READ
        }
    }

    /** A client slot's InfiniBand work is over: the slot goes back, input may resume. */
    private void freeSlot(int l) {
        slots.free(l);
        if (phase == Phase.CLOSING) {
            disconnectWhenDrained();
        } else {
            channel.resumeInput();
        }
        maybeRelease();
    }

    // ================================================================================ target -> client

    private void targetMessage(int slot, int offset, int length, boolean hasImmediate) {
        if (hasImmediate) {
            // iWARP has no immediate data (RFC 5040): the target's message cannot be delivered as it was meant
            fail("target SEND with immediate data, which iWARP cannot carry", TerminateCode.RDMAP_CATASTROPHIC_STREAM);
            return;
        }
        if (phase == Phase.CLOSED) {
            return;
        }
        toClient.add(new TargetOp.Send(slot, offset, length, false, 0));
        pump();
    }

    private void forwardAndPump() {
        if (order != null) {
            order.forward();
        }
        pump();
    }

    /** Lays out what may go to the client now, oldest first, while TCP takes it. */
    private void drainToClient() {
        TargetOp o;
        while ((o = toClient.peek()) != null && engine.canTransmit() && !channel.writeQueueFull()) {
            switch (o) {
                case TargetOp.Send m -> {
                    ByteBuffer dst = channel.reserve(engine.length(RdmapOpcode.SEND, m.length()));
                    engine.send(dst, slots.buffer[m.slot()], slots.base[m.slot()] + m.offset(), m.length(), false, 0);
                    channel.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.SEND, m.length());
                    target.repost(m.slot());
                }
                case TargetOp.Read r -> {
                    if (!engine.canReadRequest()) {
                        return; // the client's IRD is in use: this READ and all behind it wait (IBA 9.5 order)
                    }
                    ByteBuffer dst = channel.reserve(engine.readRequestLength());
                    engine.readRequest(dst, r.length(), r.remoteKey(), r.remoteAddress(), r);
                    channel.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.RDMA_READ, r.length());
                }
                case TargetOp.Write w -> {
                    if (w.hasImmediate()) {
                        fail("target RDMA WRITE with immediate data, which iWARP cannot carry",
                                TerminateCode.RDMAP_CATASTROPHIC_STREAM);
                        return;
                    }
                    ByteBuffer dst = channel.reserve(engine.length(RdmapOpcode.RDMA_WRITE, w.length()));
                    ByteBuffer src = w.data();
                    engine.write(dst, w.remoteKey(), w.remoteAddress(), src, src.position(), w.length());
                    channel.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.RDMA_WRITE, w.length());
                    w.finish(true);
                }
            }
            toClient.poll();
        }
    }

    /** Read Responses to the client's Read Requests whose READ completed, in request order. */
    private void drainReadResponses() {
        while (slots != null && slots.reads() > 0 && engine.canTransmit() && !channel.writeQueueFull()) {
            int l = slots.oldestRead();
            if (!slots.readReady[l]) {
                return;
            }
            slots.popRead();
            ByteBuffer dst = channel.reserve(engine.length(RdmapOpcode.READ_RESPONSE, slots.len[l]));
            engine.readResponse(dst, slots.buffer[l], slots.base[l] + StagingSlots.HEADROOM);
            channel.commit(dst);
            slots.readReady[l] = false;
            freeSlot(l);
        }
    }

    private boolean readResponse(Object token, long offset, DdpSegment s) {
        TargetOp.Read op = (TargetOp.Read) token;
        op.place(offset, s.buffer(), s.payloadOffset(), s.payloadLength());
        if (s.last()) {
            op.finish(true);
            pump(); // the IRD has room again
        }
        return true;
    }

    // ================================================================================ output

    /** Writes what is due to the client (the socket guards against re-entry and flushes). */
    private void pump() {
        channel.pump();
    }

    /** Control output, then Read Responses and what the target sent, while TCP takes it. */
    private void writeOutput() {
        ByteBuffer c;
        while ((c = engine.pollControl()) != null) {
            ByteBuffer dst = channel.reserve(c.remaining());
            dst.put(c);
            channel.commit(dst);
        }
        if (phase == Phase.CONNECTED || phase == Phase.CLOSING) {
            drainReadResponses();
            drainToClient();
        }
    }

    private void outputWritten() {
        if (phase == Phase.CLOSING && closeWhenSent()) {
            channel.end(); // the socket's close ends the bridge
        }
        checkTerminated();
    }

    private boolean closeWhenSent() {
        return toClient.isEmpty() || engine.state() == IwarpConnection.State.TERMINATED;
    }

    // ================================================================================ failure and close

    /** The engine ended the stream (a Terminate either way, or a refused Request). */
    private void checkTerminated() {
        if (engine.state() == IwarpConnection.State.TERMINATED && phase != Phase.CLOSING && phase != Phase.CLOSED) {
            close(closeReason == null ? "stream terminated" : closeReason);
        }
    }

    /** A failure on the InfiniBand side or in what the target asks: Terminate the client, DREQ the target. */
    private void fail(String why, TerminateCode code) {
        if (closeReason == null) {
            closeReason = why;
        }
        log.info("iwarp conn {} {}: terminating the stream", id, why);
        if (engine.canTransmit() || engine.state() == IwarpConnection.State.AWAITING_FIRST_FPDU) {
            engine.terminate(code, why);
        }
        close(why);
    }

    /**
     * Stops both sides: DREQ to the target (once the client's staged messages completed, so nothing accepted
     * is lost), what is queued for the client goes out, then TCP is half-closed; {@code shutdown-grace} bounds
     * the wait.
     */
    private void close(String why) {
        if (closeReason == null) {
            closeReason = why;
        }
        if (phase == Phase.CLOSED || phase == Phase.CLOSING) {
            return;
        }
        phase = Phase.CLOSING;
        graceTimer = vertx.setTimer(Math.max(1, config.shutdownGrace().toMillis()), t -> {
            graceTimer = -1;
            forceClose();
        });
        disconnectWhenDrained();
        pump();
        maybeRelease();
    }

    /** Sends the DREQ once no client message is staged or in flight (or the InfiniBand side is down anyway). */
    private void disconnectWhenDrained() {
        if (target == null || phase != Phase.CLOSING && phase != Phase.CLOSED) {
            return;
        }
        if (target.down() || !target.connectStarted()) {
            target.markDown();
        } else if (slots.clientSlotsIdle() || engine.state() == IwarpConnection.State.TERMINATED && !channel.closed()) {
            target.disconnect();
        }
    }

    private void onSocketClosed() {
        if (closeReason == null) {
            closeReason = "client closed TCP";
        }
        if (pending.inSetup() && pending.failed(SetupFailure.CLOSED)) {
            log.info("iwarp conn {} {}:{} closed before its MPA Request was answered (the first this period; "
                    + "GatewayServer's summary counts the rest)", id, clientAddress.getHostAddress(), clientPort);
        }
        if (phase != Phase.CLOSING && phase != Phase.CLOSED) {
            close(closeReason); // IWARP-MAPPING "Disconnects": the client's FIN becomes a DREQ
        } else {
            disconnectWhenDrained();
            maybeRelease();
        }
    }

    private void forceClose() {
        if (phase != Phase.CLOSED) {
            phase = Phase.CLOSING;
        }
        if (target != null && !target.disconnect()) {
            target.markDown();
        }
        channel.close();
        maybeRelease();
    }

    /** {@link #shutdown()} on the connection's own context. */
    public void shutdownAsync() {
        context.runOnContext(v -> shutdown());
    }

    public void forceCloseAsync() {
        context.runOnContext(v -> forceClose());
    }

    /** Gateway shutdown: a Terminate-free close (TCP FIN), as siw closes a stream it disconnects. */
    public void shutdown() {
        close("gateway shutdown");
    }

    private void maybeRelease() {
        if (released || !channel.closed()) {
            return;
        }
        if (target != null && (!target.down() && !target.disconnectSent() || !target.flushed())) {
            return;
        }
        released = true;
        phase = Phase.CLOSED;
        pending.end();
        cancel(requestTimer);
        cancel(keepaliveTimer);
        cancel(graceTimer);
        if (order != null) {
            order.close();
        }
        for (TargetOp o : toClient) {
            if (o instanceof TargetOp.Rdma op) {
                op.finish(false);
            }
        }
        toClient.clear();
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
        if (opened) {
            metrics.connectionClosed(ClientProtocol.IWARP);
        }
        log.debug("iwarp conn {} closed ({}), {} bytes in, {} bytes out", id, closeReason, channel.bytesIn(),
                channel.bytesOut());
        shared.iwarpBridges.remove(this);
    }

    private void cancel(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    // ================================================================================ admin

    public ConnectionInfo info() {
        TargetSide t = target;                  // read from the admin server's thread: null until set up
        return new ConnectionInfo(id, clientAddress.getHostAddress() + ":" + clientPort, route.discriminator().toString(),
                targetName(), phase.name(), channel.bytesIn(), channel.bytesOut(), openedAtMillis, ClientProtocol.IWARP.label(),
                t == null ? null : t.qpInfo());
    }

    private String targetName() {
        RouteTarget t = route.target();
        return t.address().getHostAddress() + ":" + t.port() + "/0x" + Long.toHexString(t.serviceId().value());
    }

    public Phase phase() {
        return phase;
    }

    /** The engine's and the target side's events, one method of the bridge each. */
    private final class Events implements IwarpConnection.Handler, TargetSide.Events, TargetOrder.Client,
            ClientSocket.Stream {
        @Override
        public void receive(ByteBuffer in) {
            engine.receive(in);
        }

        @Override
        public boolean takesMore() {
            // a refused message waits for a slot; a stream that ended or is closing takes nothing more
            return engine.state() != IwarpConnection.State.TERMINATED && phase != Phase.CLOSING;
        }

        @Override
        public void writeOutput() {
            IwarpBridge.this.writeOutput();
        }

        @Override
        public void outputWritten() {
            IwarpBridge.this.outputWritten();
        }

        @Override
        public void closed() {
            onSocketClosed();
        }

        @Override
        public void requested(MpaFrame request, MpaV2Params params) {
            IwarpBridge.this.requested(request, params);
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
            return IwarpBridge.this.readResponse(token, offset, segment);
        }

        @Override
        public void terminated(Terminate t) {
            closeReason = "client Terminate " + (t.code() == null ? t : t.code().description());
            log.info("iwarp conn {} client sent Terminate {}", id, t);
        }

        @Override
        public void failed(IwarpProtocolException cause) {
            if (closeReason == null) {
                closeReason = "protocol error: " + cause.getMessage();
            }
            if (phase != Phase.AWAITING_REQUEST) {
                log.warn("iwarp conn {} {}:{} {}", id, clientAddress.getHostAddress(), clientPort, closeReason);
            } else {
                metrics.rejected(RejectReason.PROTOCOL);
                // not MPA at all: the first per summary period is a WARN, the rest DEBUG (a flood of them)
                if (pending.failed(SetupFailure.PROTOCOL)) {
                    log.warn("iwarp conn {} {}:{} {} (the first this period; GatewayServer's summary counts the rest)",
                            id, clientAddress.getHostAddress(), clientPort, closeReason);
                } else {
                    log.debug("iwarp conn {} {}:{} {}", id, clientAddress.getHostAddress(), clientPort, closeReason);
                }
            }
        }

        @Override
        public void cmEvent(CmEvent event) {
            IwarpBridge.this.cmEvent(event);
        }

        @Override
        public void clientMessageDone(int slot) {
            freeSlot(slot);
        }

        @Override
        public void clientMessageFailed(int slot, WcStatus status) {
            fail("InfiniBand " + status + " for a client " + slots.op[slot],
                    status == WcStatus.REMOTE_ACCESS_ERROR ? TerminateCode.RDMAP_ACCESS_RIGHTS
                            : TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        }

        @Override
        public void clientMessageEnded(int slot) {
            freeSlot(slot);
        }

        @Override
        public void readDone(int slot) {
            pump();
        }

        @Override
        public void targetReceivePolled() {
            order.beforeTargetMessage();
        }

        @Override
        public void targetMessage(int slot, int offset, int length, boolean hasImmediate, int immediate) {
            IwarpBridge.this.targetMessage(slot, offset, length, hasImmediate);
        }

        @Override
        public void completionsPolled() {
            forwardAndPump();
            target.postStaged();
            maybeRelease();
        }

        @Override
        public void failed(WcStatus status) {
            failed("InfiniBand " + status);
        }

        @Override
        public void failed(String why) {
            fail(why, TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        }

        @Override
        public boolean up() {
            return phase == Phase.CONNECTED || phase == Phase.CONNECTING_TARGET;
        }

        @Override
        public void forward(TargetOp.Rdma op) {
            toClient.add(op);
        }
    }
}

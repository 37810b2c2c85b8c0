package io.vibridge.gateway.bridge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.gateway.admin.ConnectionInfo;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.engine.ConnectionPeer;
import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.security.ConnectSigner;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One VI/TCP connection bridged to one InfiniBand RC connection (DESIGN "One connection through
 * the gateway", "Operation mapping"). Confined to the Vert.x context of its socket: socket events,
 * CM events and completion notifications all run there, so no field needs a lock.
 *
 * <p>The bridge is the passive VI endpoint towards the client ({@link ViConnection#passive}); its
 * receive descriptors are the credits it grants the client, each backed by a staging slot.
 * Staging: the connection reserves {@code R + C} slots at setup: R = the route's receive buffers
 * (InfiniBand receives for the target's SENDs), C = the rest of limits.buffer-per-connection (client
 * Sends, RDMA Write payloads and RDMA Read data, one message per slot).
 *
 * <p>Backpressure: an input gate frames the client's byte stream into segments and admits the first
 * segment of a Send, RDMA Write or RDMA Read Request only when a client slot is free; otherwise it
 * keeps the bytes it has and pauses the socket. Target-to-client messages stay in their receive slot
 * until the client took them, and the slot's InfiniBand receive is reposted only then (FlowC 0
 * credits or RNR push back on the target). The TCP write queue is bounded by Vert.x's write queue
 * limit: production stops while it is full.
 */
public final class Bridge implements ConnectionPeer {
    private static final Logger log = LoggerFactory.getLogger(Bridge.class);

    /** Bridge lifecycle (the admin listing shows it). */
    public enum Phase { INCOMING, CONNECTING_TARGET, CONNECTED, DRAINING, CLOSED }

    // work request kinds (upper 32 bits of wrId)
    private static final long K_RECV = 1L << 32;
    private static final long K_SEND = 2L << 32;
    private static final long K_WRITE = 3L << 32;
    private static final long K_READ = 4L << 32;
    private static final long K_CREDIT = 5L << 32;
    /** A zero-length RDMA WRITE that checks an idle target is still there ({@link #keepalive}). */
    private static final long K_PROBE = 6L << 32;

    private static final byte OP_NONE = 0, OP_SEND = 1, OP_WRITE = 2, OP_READ = 3;
    private static final int HDR = SegmentHeader.LENGTH;
    private static final int FC = FlowControlHeader.LENGTH;
    private static final int OUT_BATCH = 128 * 1024;

    private final BridgeContext shared;
    private final GatewayConfig config;
    private final Vertx vertx;
    private final Context context;
    private final Executor onContext;
    private final NetSocket socket;
    /** The same socket, for writing pooled Netty buffers without a wrapper (null if Vert.x hands another kind). */
    private final NetSocketInternal raw;
    final long id;
    private final InetAddress clientAddress;
    private final int clientPort;
    private final long openedAtMillis = System.currentTimeMillis();
    private final ViConnection engine;
    private Phase phase = Phase.INCOMING;
    private boolean admitted;

    // route and IB side
    private Route route;
    private boolean flowC0;
    private CompletionQueue cq;
    private QueuePair qp;
    private CmId cmId;
    private FlowCredits credits;
    private long cmStart;
    private long requestAt;
    private int postedRecvs;
    private int outstandingSends;
    private boolean ibUp;
    private boolean ibDown;
    private boolean ibDisconnectSent;
    private boolean resourcesReleased;
    private final WorkCompletion[] wcs = new WorkCompletion[32];
    private final SendWorkRequest swr = new SendWorkRequest();
    private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
    private ConnectSigner signer;
    private CutThrough cut;
    /** Target messages polled (successful receive completions), matched against {@link CutThrough.Op#receivesBefore}. */
    private int targetReceives;

    // staging
    private int[] slots = new int[0];
    private int recvSlots;
    private int clientSlots;
    private int controlBlock = -1;
    private int controlNext;
    private int[] freeStack;
    private int freeTop;
    private byte[] op;
    private int[] len;
    private int[] imm;
    private boolean[] hasImm;
    private long[] raddr;
    private int[] rkey;
    private int[] msgNo;
    private long[] placed;
    private int[] pendingWr;
    private boolean[] readReady;
    private ByteBuffer[] views;
    private ByteBuffer[] sbuf;
    private MemoryRegion[] sreg;
    private int[] sbase;
    private SlotReceive[] receives;
    private SlotSend[] sends;
    private int[] fifo;
    private int fifoHead;
    private int fifoCount;
    private int[] readFifo;
    private int readHead;
    private int readCount;
    private int curWrite = -1;
    private boolean stalledOnCredit;
    // Reliable Reception, end to end (VITCP-PROFILE §6): the engine runs with manual inbound completion
    // and acknowledges a client Send/RDMA Write only once its InfiniBand work completed
    private boolean rr;

    // input gate: the socket's bytes as Netty read them (pooled, direct), released once consumed
    private ByteBuf inBuf;
    private int inPos;
    private final ByteBuffer segHdr = ByteBuffer.allocate(HDR);
    private int segLeft;
    private int reserved = -1;
    private int gateType = -1;
    private int gateMsg;
    private boolean gateWriteImm;
    private int gateImmData;
    private boolean paused;
    private int creditsUsed;
    private int creditsGranted;
    private byte[] capture;
    private int captureLen;

    // output
    private final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    private final ByteBuffer[] io = new ByteBuffer[4];
    private boolean socketClosed;
    private boolean endSent;
    private long incomingTimer = -1;
    private long graceTimer = -1;
    private long keepaliveTimer = -1;
    /** A completion arrived since the last keepalive tick. */
    private boolean ibActive;

    // stats for the admin listing (read racily from other threads)
    private volatile long bytesIn;
    private volatile long bytesOut;
    private String closeReason;

    public Bridge(BridgeContext shared, Vertx vertx, NetSocket socket) {
        this.shared = shared;
        this.config = shared.config;
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.onContext = r -> context.runOnContext(v -> r.run());
        this.socket = socket;
        this.raw = socket instanceof NetSocketInternal si ? si : null;
        this.id = shared.nextId();
        InetAddress a;
        try {
            a = InetAddress.ofLiteral(socket.remoteAddress().hostAddress());
        } catch (RuntimeException e) {
            a = InetAddress.getLoopbackAddress();
        }
        this.clientAddress = a;
        this.clientPort = socket.remoteAddress().port();
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        this.engine = ViConnection.passive(this, null, System.nanoTime());
    }

    /** Wires the socket; call on the socket's context. */
    public void start() {
        shared.bridges.add(this);
        if (raw != null) {
            raw.messageHandler(this::onMessage);     // Netty's buffers as they are: no copy to a heap Buffer
        } else {
            socket.handler(b -> onData(Unpooled.wrappedBuffer(b.getBytes())));
        }
        socket.closeHandler(v -> onSocketClosed());
        socket.exceptionHandler(e -> log.debug("conn {} socket error: {}", id, e.toString()));
        incomingTimer = vertx.setTimer(config.vi().incomingTimeout().toMillis(), t -> {
            incomingTimer = -1;
            if (engine.state() == ViConnection.State.PASSIVE_INCOMING) {
                log.info("conn {} {}:{} no Connect Request within {}", id, clientAddress.getHostAddress(), clientPort,
                        config.vi().incomingTimeout());
                engine.tick(engine.deadline());
                pump();
            }
        });
        log.debug("conn {} accepted from {}:{}", id, clientAddress.getHostAddress(), clientPort);
    }

    // ============================================================================ admin

    public ConnectionInfo info() {
        return new ConnectionInfo(id, clientAddress.getHostAddress() + ":" + clientPort, routeName(), targetName(),
                phase.name(), bytesIn, bytesOut, openedAtMillis);
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

    /** Runs the output pump on the bridge's context (diagnostics). */
    public void kickOutput() {
        context.runOnContext(v -> {
            trace = true;
            pump();
            trace = false;
        });
    }

    private boolean trace;

    /** Internal counters for diagnostics (call on the bridge's context, or accept a racy view). */
    public String debugState() {
        return "phase=" + phase + " engine=" + engine.state() + " hasOutput=" + engine.hasOutput() + " outstandingWork="
                + engine.outstandingWork() + " freeSlots=" + freeTop + "/" + clientSlots + " fifo=" + fifoCount
                + " reads=" + readCount + " postedRecvs=" + postedRecvs + " outstandingSends=" + outstandingSends
                + " paused=" + paused + " heldInput=" + (inBuf != null) + " writeQueueFull=" + socket.writeQueueFull()
                + (credits == null ? "" : " credits=" + credits.credits() + " unacked=" + credits.unacknowledged()
                        + " peerBufs=" + credits.peerBufs() + " peerView=" + credits.peerCredits())
                + " endSent=" + endSent + " closeRequested=" + engine.closeRequested();
    }

    public Phase phase() {
        return phase;
    }

    /** The Vert.x context this connection is confined to (tests). */
    Context context() {
        return context;
    }

    /** Cut-through operations accepted and not yet handed to the VI engine (tests; any thread). */
    int cutThroughQueued() {
        return cut == null ? 0 : cut.queue.size();
    }

    /** The client's TCP port (tests). */
    int clientPort() {
        return clientPort;
    }

    /** Client-slot bytes this connection holds right now (for tests of the buffering cap). */
    public long bufferedBytes() {
        return (long) (clientSlots - freeTop) * shared.pool.slotSize();
    }

    /** Cut-through WRITE bytes held on their way to the client (bounded by {@link CutThrough#BUDGET}). */
    public long cutThroughHeld() {
        return cut == null ? 0 : cut.held();
    }

    /** Staging bytes this connection reserved (its cap). */
    public long reservedBytes() {
        return (long) slots.length * shared.pool.slotSize();
    }

    // ============================================================================ input gate

    private void onMessage(Object msg) {
        if (msg instanceof ByteBuf b) {
            onData(b);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Takes ownership of {@code b}. */
    private void onData(ByteBuf b) {
        if (socketClosed) {
            b.release();
            return;
        }
        if (inBuf != null) {
            // delivered while paused: keep both (bounded: Vert.x stops reading once paused)
            int held = inBuf.readableBytes() - inPos;
            ByteBuf joined = PooledByteBufAllocator.DEFAULT.directBuffer(held + b.readableBytes());
            joined.writeBytes(inBuf, inBuf.readerIndex() + inPos, held).writeBytes(b);
            inBuf.release();
            b.release();
            inBuf = joined;
        } else {
            inBuf = b;
        }
        inPos = 0;
        processInput();
    }

    private void dropInput() {
        if (inBuf != null) {
            inBuf.release();
            inBuf = null;
        }
        inPos = 0;
    }

    private void processInput() {
        if (inBuf == null) {
            return;
        }
        ByteBuf bb = inBuf.retain(); // stays readable here even if a hostile segment drops the input meanwhile
        int base = bb.readerIndex();
        int end = bb.readableBytes();
        try {
            while (inPos < end) {
                if (engine.closeRequested() || socketClosed) {
                    inPos = end;
                    break;
                }
                if (segLeft > 0) {
                    int n = Math.min(segLeft, end - inPos);
                    ByteBuffer nio = bb.internalNioBuffer(base + inPos, n); // shared view: consumed right here
                    if (capture != null) {
                        nio.duplicate().get(capture, captureLen, n);
                        captureLen += n;
                    }
                    engine.receive(nio);
                    inPos += n;
                    segLeft -= n;
                    bytesIn += n;
                    continue;
                }
                int have = segHdr.position();
                if (have < HDR) {
                    int n = Math.min(HDR - have, end - inPos);
                    bb.getBytes(base + inPos, segHdr.array(), have, n);
                    segHdr.position(have + n);
                    inPos += n;
                    if (segHdr.position() < HDR) {
                        break;
                    }
                }
                if (!admit()) {
                    pauseInput();
                    return;
                }
                int segLen = segHdr.getShort(2) & 0xFFFF;
                int type = (segHdr.get(1) & 0xFF) >>> 3;
                if ((type == 5) && engine.state() == ViConnection.State.PASSIVE_INCOMING && segLen >= HDR) {
                    capture = new byte[segLen]; // the Connect Request, kept for HMAC verification
                    System.arraycopy(segHdr.array(), 0, capture, 0, HDR);
                    captureLen = HDR;
                } else if (capture != null && engine.state() != ViConnection.State.PASSIVE_INCOMING) {
                    capture = null;
                }
                segHdr.flip();
                engine.receive(segHdr);
                segHdr.clear();
                bytesIn += HDR;
                segLeft = Math.max(0, segLen - HDR);
            }
            dropInput();
            resumeInput();
        } finally {
            bb.release();
            afterEngine();
        }
    }

    /**
     * The first segment of a message that needs a staging slot is admitted only with a free client
     * slot (bounded memory: otherwise the socket pauses and the bytes wait here).
     */
    private boolean admit() {
        if (phase != Phase.CONNECTED && phase != Phase.DRAINING) {
            return true;
        }
        int typeFlags = segHdr.get(1) & 0xFF;
        int type = typeFlags >>> 3;
        int flags = typeFlags & 7;
        int dataOffset = segHdr.getInt(4);
        boolean needsSlot = dataOffset == 0 && switch (type) {
            case 0, 9, 1, 10, 2, 11 -> true;
            default -> false;
        };
        if (type == 0 || type == 9 || type == 1 || type == 10 || type == 2 || type == 11) {
            gateType = type;
            if (dataOffset == 0) {
                gateMsg = segHdr.getInt(12);
                gateWriteImm = false;
            }
            if ((flags & SegmentHeader.FLAG_END_OF_MESSAGE) != 0) {
                gateWriteImm = (flags & SegmentHeader.FLAG_IMMEDIATE) != 0;
                gateImmData = segHdr.getInt(8);
            }
        }
        if (engine.negotiated() != null && engine.negotiated().flowControl()) {
            // VITCP-PROFILE §6: with descriptor flow control a Send (or RDMA Write with immediate) needs a credit
            boolean consumes = (dataOffset == 0 && (type == 0 || type == 9))
                    || ((type == 1 || type == 10) && (flags & 3) == 3);
            if (consumes && ++creditsUsed - creditsGranted > 0) {
                hostile("credit abuse: message " + Integer.toUnsignedString(segHdr.getInt(12))
                        + " sent without a receive credit");
                return true;
            }
        }
        if (needsSlot && (type == 2 || type == 11) && readCount >= engine.negotiated().localReadWindow()) {
            return true; // over the read window: the engine refuses it (IS 7) and the connection ends
        }
        if (!needsSlot || reserved >= 0) {
            return true;
        }
        if (phase == Phase.DRAINING) {
            return false; // no new message once draining
        }
        if (freeTop == 0) {
            if (!stalledOnCredit) {
                shared.metrics.creditStall(Direction.CLIENT_TO_TARGET);
            }
            return false;
        }
        reserved = freeStack[--freeTop];
        return true;
    }

    /** A hostile or broken client: logged, disconnected without affecting anything else. */
    private void hostile(String why) {
        closeReason = why;
        log.warn("conn {} {}:{} disconnected: {}", id, clientAddress.getHostAddress(), clientPort, why);
        dropInput();
        forceClose();
    }

    private void pauseInput() {
        if (!paused) {
            paused = true;
            socket.pause();
        }
    }

    private void resumeInput() {
        if (paused && inBuf == null && phase != Phase.DRAINING) {
            paused = false;
            socket.resume();
        }
    }

    /** A client slot came back: continue with held input. */
    private void slotFreed() {
        if (inBuf != null) {
            processInput();
        } else {
            resumeInput();
        }
    }

    // ============================================================================ output

    private void afterEngine() {
        pump();
    }

    private boolean pumping;
    private boolean pumpAgain;

    /**
     * Moves the engine's output to the socket. Re-entrant calls (engine callbacks during written() may
     * end in pump()) only ask the running pump for another round, so bytes already copied leave before
     * anything closes the socket.
     */
    private void pump() {
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                pumpOnce();
            } while (pumpAgain && !socketClosed);
        } finally {
            pumping = false;
        }
    }

    private void pumpOnce() {
        if (socketClosed) {
            return;
        }
        if (socket.writeQueueFull()) {
            socket.drainHandler(v -> pump()); // bounded TCP write queue: produce again once it drained
            return;
        }
        ByteBuf out = null;
        try {
            while (engine.hasOutput()) {
                if (out != null && out.readableBytes() >= OUT_BATCH) {
                    write(out);
                    out = null;
                    if (socket.writeQueueFull()) {
                        break;
                    }
                }
                int n = engine.produce(header, io, 0);
                if (trace) {
                    log.warn("conn {} trace: produce -> {} header {}", id, n, header.remaining() >= 24
                            ? "type " + ((header.get(1) & 0xFF) >>> 3) + " len " + (header.getShort(2) & 0xFFFF) : "-");
                }
                if (n < 0) {
                    break;
                }
                int total = header.remaining();
                for (int i = 0; i < n; i++) {
                    total += io[i].remaining();
                }
                if (out == null) {
                    out = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(total, 16 * 1024));
                }
                int type = (header.get(1) & 0xFF) >>> 3;
                boolean eom = (header.get(1) & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
                out.writeBytes(header);
                for (int i = 0; i < n; i++) {
                    out.writeBytes(io[i]);
                    io[i] = null;
                }
                bytesOut += total;
                if (type == 3 && eom) {
                    readResponseSent();
                }
                engine.written();
            }
        } catch (RuntimeException e) {
            log.warn("conn {} output failed", id, e);
            if (out != null) {
                out.release();
            }
            socket.close();
            return;
        }
        if (out != null) {
            write(out);
        }
        if (socket.writeQueueFull()) {
            socket.drainHandler(v -> pump());
        }
        if (engine.closeRequested() && !engine.hasOutput() && !endSent) {
            endSent = true;
            socket.end();
        }
    }

    private void write(ByteBuf out) {
        if (raw != null) {
            // the pooled buffer goes to Netty as it is, which releases it once written (or the channel closed):
            // no Buffer wrapper and no completion listener per segment
            raw.writeMessage(out);
            return;
        }
        // Vert.x writes an unreleasable duplicate of the buffer: the pooled buffer is ours to release once
        // the bytes went to the socket
        socket.write(BufferInternal.buffer(out)).onComplete(ar -> out.release());
    }

    // ============================================================================ ConnectionPeer: setup

    @Override
    public void connectRequested(ViConnection connection) {
        cancelIncomingTimer();
        requestAt = System.nanoTime();
        ConnectionHeader h = connection.request().header();
        byte[] called = h.called().bytes();
        var found = config.routes().lookup(called);
        if (found.isEmpty()) {
            log.info("conn {} {}:{} no route for discriminator {}: Connect No Match", id,
                    clientAddress.getHostAddress(), clientPort, printable(called));
            shared.metrics.rejected(RejectReason.NO_ROUTE);
            connection.noMatch();
            return;
        }
        route = found.get();
        RouteTarget t = route.target();
        flowC0 = t.parameters().flowControl() == FlowControl.TRANSPORT;
        // VITCP-PROFILE §5: a gateway holding a key (global or the route's) rejects unsigned or badly signed requests
        signer = shared.routeSigners.getOrDefault(route.discriminator(), shared.globalSigner);
        if (signer != null) {
            boolean ok = h.securityType() == ConnectionHeader.SECURITY_HMAC_SHA256 && capture != null
                    && captureLen == capture.length
                    && signer.verify(ByteBuffer.wrap(capture), 0, capture.length).isOk();
            if (!ok) {
                reject(RejectReason.SECURITY, IsCode.SECURITY_REJECTED, "security information rejected");
                return;
            }
        }
        capture = null;
        String why = shared.admit(clientAddress);
        if (why != null) {
            reject(RejectReason.LIMIT, IsCode.RESOURCES_EXHAUSTED, why);
            return;
        }
        admitted = true;
        if (!reserveStaging(t)) {
            reject(RejectReason.LIMIT, IsCode.RESOURCES_EXHAUSTED, "staging slots exhausted");
            return;
        }
        try {
            openTarget(t);
        } catch (VerbsException | IllegalArgumentException e) {
            log.warn("conn {} cannot open the InfiniBand side: {}", id, e.toString());
            reject(RejectReason.TARGET_UNREACHABLE, IsCode.NO_ROUTE, "InfiniBand setup failed");
            releaseResources();
        }
    }

    private void reject(RejectReason reason, int isCode, String why) {
        log.info("conn {} {}:{} Connect Reject IS {} ({})", id, clientAddress.getHostAddress(), clientPort, isCode, why);
        shared.metrics.rejected(reason);
        closeReason = why;
        engine.reject(isCode);
    }

    private boolean reserveStaging(RouteTarget t) {
        int per = config.slotsPerConnection();
        recvSlots = t.parameters().receiveBuffers();
        clientSlots = per - recvSlots;
        int[] got = new int[per];
        try {
            if (!shared.pool.reserve(per, got)) {
                return false;
            }
        } catch (RuntimeException e) {
            log.warn("conn {} cannot grow the staging pool: {}", id, e.toString()); // a new chunk failed to register
            return false;
        }
        slots = got;
        if (flowC0) {
            controlBlock = shared.pool.reserveControl();
            if (controlBlock < 0) {
                shared.pool.release(slots, slots.length);
                slots = new int[0];
                return false;
            }
        }
        op = new byte[per];
        len = new int[per];
        imm = new int[per];
        hasImm = new boolean[per];
        raddr = new long[per];
        rkey = new int[per];
        msgNo = new int[per];
        placed = new long[per];
        pendingWr = new int[per];
        readReady = new boolean[per];
        views = new ByteBuffer[per];
        receives = new SlotReceive[per];
        sends = new SlotSend[per];
        sbuf = new ByteBuffer[per];
        sreg = new MemoryRegion[per];
        sbase = new int[per];
        for (int l = 0; l < per; l++) {
            // the slots may lie in different chunks of the pool (each its own registered buffer)
            sbuf[l] = shared.pool.buffer(slots[l]);
            sreg[l] = shared.pool.region(slots[l]);
            sbase[l] = shared.pool.offset(slots[l]);
            views[l] = sbuf[l].slice(sbase[l], shared.pool.slotSize());
            receives[l] = new SlotReceive(l);
            sends[l] = new SlotSend(l);
        }
        freeStack = new int[clientSlots];
        for (int i = 0; i < clientSlots; i++) {
            freeStack[i] = per - 1 - i;
        }
        freeTop = clientSlots;
        fifo = new int[per];
        readFifo = new int[per];
        return true;
    }

    private void openTarget(RouteTarget t) {
        GatewayConfig.Infiniband ib = config.infiniband();
        int sendWr = 2 * clientSlots + 8;
        cq = shared.device.createCompletionQueue(sendWr + recvSlots + 8);
        CutThrough c = shared.device.capabilities().contains(Capability.REMOTE_ACCESS_HANDLER)
                ? new CutThrough(() -> context.runOnContext(v -> onCutThrough())) : null;
        cq.onNotify(this::onCqNotify, onContext);
        qp = shared.pd.createQueuePair(new QpInitAttributes(cq, cq, sendWr, recvSlots + 1));
        if (c != null) {
            try {
                qp.setAccessHandler(c); // every inbound RDMA on this QP: forwarded to the client
                cut = c;
            } catch (UnsupportedOperationException e) {
                cut = null;
            }
        }
        for (int l = 0; l < recvSlots; l++) {
            postRecv(l);
        }
        cq.requestNotify(false);
        byte[] pd = t.requestPrivateData(clientAddress, clientPort, shared.device.address(), shared.nextCmaPort());
        ConnectParams p = new ConnectParams(t.address(), t.serviceId().value(), pd, ib.responderResources(),
                ib.initiatorDepth(), ib.retryCount(), ib.rnrRetry(), ib.localAckTimeout(), ib.cmResponseTimeout(),
                ib.maxCmRetries(), ib.pathMtu(), 12);
        phase = Phase.CONNECTING_TARGET;
        cmStart = System.nanoTime();
        if (log.isDebugEnabled()) {
            log.debug("conn {} CM REQ to {} ({})", id, targetName(), t.parameters().cmFormat());
        }
        cmId = shared.device.connectionManager().connect(p, qp, this::onCmEvent, onContext);
    }

    private void onCmEvent(CmEvent e) {
        switch (e) {
            case CmEvent.Established est -> onEstablished(est);
            case CmEvent.Rejected r -> {
                if (phase == Phase.CONNECTING_TARGET) {
                    boolean unreachable = r.reason() == CmEvent.REJ_INVALID_SERVICE_ID;
                    targetFailed(unreachable ? RejectReason.TARGET_UNREACHABLE : RejectReason.TARGET_REJECTED,
                            unreachable ? IsCode.NO_ROUTE : IsCode.TARGET_REJECTED, "target REJ reason " + r.reason());
                }
            }
            case CmEvent.ConnectTimeout ct -> {
                // the CM REQ got no answer at all after max-cm-retries: the target is unreachable, IS 12
                // (VITCP-PROFILE §2 "no route / target unreachable"; the lead's refinement of DESIGN's "IS 15").
                // The SPI reports an MRA-then-silence the same way, so IS 15 is left to the gateway's own timeouts.
                if (phase == Phase.CONNECTING_TARGET) {
                    targetFailed(RejectReason.TARGET_UNREACHABLE, IsCode.NO_ROUTE, "CM timeout: target unreachable");
                }
            }
            case CmEvent.Disconnected d -> onIbDisconnected();
            case CmEvent.TimewaitExit tw -> {
                ibDown = true;
                maybeRelease();
            }
            default -> {
            }
        }
        pump();
    }

    private void targetFailed(RejectReason reason, int isCode, String why) {
        ibDown = true;
        if (engine.state() == ViConnection.State.PASSIVE_PENDING_ACCEPT) {
            reject(reason, isCode, why);
        }
        phase = Phase.CLOSED;
        drainCq();
        maybeRelease();
    }

    private void onEstablished(CmEvent.Established est) {
        if (phase != Phase.CONNECTING_TARGET) {
            return;
        }
        shared.metrics.cmRoundTrip(System.nanoTime() - cmStart);
        RouteTarget t = route.target();
        long actRcvSz;
        int targetBufs;
        if (t.parameters().cmFormat() == CmFormat.HELLO) {
            HelloReply reply;
            try {
                reply = HelloReply.fromBytes(est.privateData());
            } catch (CmFormatException ex) {
                log.info("conn {} bad HelloReply: {}", id, ex.getMessage());
                ibDisconnect();
                targetFailed(RejectReason.TARGET_REJECTED, IsCode.TARGET_REJECTED, "bad HelloReply");
                return;
            }
            actRcvSz = reply.actualReceiveSize();
            targetBufs = reply.bufs();
        } else {
            actRcvSz = t.parameters().receiveSize();
            targetBufs = 0;
        }
        if (flowC0) {
            credits = new FlowCredits(targetBufs, recvSlots);
        }
        ConnectionHeader req = engine.request().header();
        // agreed MTU: never above the target's ActRcvSz for Sends, nor a staging slot (DESIGN decision 4)
        long mtu = Math.min(Math.min(req.mtu(), config.vi().maxMtu()),
                Math.min(config.staging().payloadSize(), actRcvSz - (flowC0 ? FC : 0)));
        if (mtu < ConnectionHeader.MIN_MTU) {
            ibDisconnect();
            reject(RejectReason.MTU, IsCode.MTU_TOO_SMALL, "agreed MTU " + mtu + " below 32 KiB (target ActRcvSz "
                    + actRcvSz + ")");
            phase = Phase.CLOSED;
            return;
        }
        ReliabilityLevel level = req.attributes().reliability();
        boolean read = level != ReliabilityLevel.UNRELIABLE_DELIVERY;
        ConnectionAttributes attrs = ConnectionAttributes.of(level, true, read, true, false, false);
        int window = read ? Math.min(config.vi().rdmaReadWindow(), clientSlots) : 0;
        ConnectSecurity security = signer == null ? null : new SignerSecurity(signer);
        LocalEndpoint ep = new LocalEndpoint(attrs, req.called(), mtu, window, ThreadLocalRandom.current().nextInt(),
                config.vi().segmentSize(), config.vi().creditThreshold(), security);
        creditsGranted = clientSlots;
        rr = level == ReliabilityLevel.RELIABLE_RECEPTION;
        if (!engine.accept(ep, clientSlots)) {
            shared.metrics.rejected(RejectReason.ATTRIBUTES);
            ibDisconnect();
            phase = Phase.CLOSED;
            return;
        }
        if (rr) {
            engine.manualInboundCompletion(true); // the Message ACK waits for the InfiniBand completion
        }
        ibUp = true;
        phase = Phase.CONNECTED;
        if (cut != null) {
            cut.maxRead = mtu;
        }
        long keepalive = config.infiniband().keepalive().toMillis();
        if (keepalive > 0) {
            keepaliveTimer = vertx.setPeriodic(keepalive, tick -> keepalive());
        }
        shared.metrics.connectionOpened();
        shared.metrics.connectSetup(System.nanoTime() - requestAt);
        // per-connection lines are DEBUG: at thousands of connections per second console lines cost more than the
        // setup itself; GatewayServer logs a periodic INFO summary (connections opened/closed/open)
        if (log.isDebugEnabled()) {
            log.debug("conn {} {}:{} bridged to {} route {} ({} FlowC {} MTU {})", id,
                    clientAddress.getHostAddress(), clientPort, targetName(), routeName(), level, flowC0 ? 0 : 1, mtu);
        }
    }

    @Override
    public void connected(ViConnection connection) {
        // reported by onEstablished (accept() runs there)
    }

    @Override
    public void connectFailed(ViConnection connection, ConnectFailure failure, int isCode) {
        cancelIncomingTimer();
        if (failure != ConnectFailure.REJECTED && failure != ConnectFailure.NO_MATCH) {
            context.runOnContext(v -> log.info("conn {} {}:{} connection setup failed: {}{}", id,
                    clientAddress.getHostAddress(), clientPort, failure,
                    failure == ConnectFailure.PROTOCOL ? " (" + connection.lastProtocolError() + ")" : ""));
            if (failure == ConnectFailure.PROTOCOL || failure == ConnectFailure.TIMEOUT) {
                shared.metrics.rejected(RejectReason.PROTOCOL);
            }
        } else if (failure == ConnectFailure.REJECTED && closeReason == null) {
            // rejected by the engine itself (attributes, MTU, version)
            shared.metrics.rejected(isCode == IsCode.MTU_TOO_SMALL ? RejectReason.MTU : RejectReason.ATTRIBUTES);
            log.info("conn {} {}:{} Connect Reject IS {}", id, clientAddress.getHostAddress(), clientPort, isCode);
        }
        if (cmId != null && !ibDown) {
            ibDisconnect();
        }
    }

    // ============================================================================ ConnectionPeer: data

    @Override
    public InboundReceive takeReceive() {
        if (gateType == 1 || gateType == 10) {
            return ImmReceive.INSTANCE; // RDMA Write with immediate: no payload of its own
        }
        int l = reserved;
        if (l < 0) {
            return null; // cannot happen: the gate reserved one (defensive: VI receive queue empty)
        }
        reserved = -1;
        op[l] = OP_SEND;
        msgNo[l] = gateMsg;
        return receives[l];
    }

    @Override
    public int checkRemoteAccess(long address, int handle, long length, boolean write) {
        // the target checks access itself (its NAK comes back as an InfiniBand completion error)
        int l = reserved;
        if (l < 0) {
            return IsCode.RESOURCES_EXHAUSTED;
        }
        reserved = -1;
        raddr[l] = address;
        rkey[l] = handle;
        len[l] = (int) length;
        placed[l] = 0;
        msgNo[l] = gateMsg;
        hasImm[l] = false;
        pendingWr[l] = 0;
        if (write) {
            op[l] = OP_WRITE;
            curWrite = l;
            if (length == 0) {
                writeStaged(l);
            }
        } else {
            op[l] = OP_READ;
            readReady[l] = false;
            readFifo[(readHead + readCount) % readFifo.length] = l;
            readCount++;
            enqueue(l);
        }
        return 0;
    }

    @Override
    public void rdmaPlace(long address, int handle, ByteBuffer src) {
        int l = curWrite;
        int n = src.remaining();
        int off = sbase[l] + FC + (int) (address - raddr[l]);
        sbuf[l].put(off, src, src.position(), n);
        placed[l] += n;
        if (placed[l] == len[l]) {
            writeStaged(l);
        }
    }

    private void writeStaged(int l) {
        curWrite = -1;
        hasImm[l] = gateWriteImm;
        imm[l] = gateImmData;
        enqueue(l);
    }

    @Override
    public ByteBuffer rdmaSource(long address, int handle, int length) {
        int l = readFifo[readHead];
        if (!readReady[l]) {
            return null; // the InfiniBand READ has not completed: the engine waits for readSourceReady()
        }
        int off = FC + (int) (address - raddr[l]);
        ByteBuffer v = views[l];
        v.limit(off + length).position(off);
        return v;
    }

    private void readResponseSent() {
        int l = readFifo[readHead];
        readHead = (readHead + 1) % readFifo.length;
        readCount--;
        shared.metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, len[l]);
        freeClientSlot(l);
    }

    @Override
    public void receiveCompleted(InboundReceive receive, int status, long length, int immediate) {
        if (receive == ImmReceive.INSTANCE) {
            return;
        }
        int l = ((SlotReceive) receive).local;
        if (Status.isError(status)) {
            freeClientSlot(l);
            return;
        }
        len[l] = (int) length;
        hasImm[l] = (status & Status.IMMEDIATE) != 0;
        imm[l] = immediate;
        enqueue(l);
    }

    @Override
    public void workCompleted(OutboundWork work, int status, long length) {
        if (work instanceof CutThrough.Op c) {
            boolean ok = !Status.isError(status);
            if (ok) {
                shared.metrics.message(Direction.TARGET_TO_CLIENT,
                        c.operation == OutboundWork.OP_RDMA_READ ? Operation.RDMA_READ : Operation.RDMA_WRITE, c.length);
            }
            c.finish(ok);
            checkDrained();
            return;
        }
        SlotSend s = (SlotSend) work;
        int l = s.local;
        if (!Status.isError(status)) {
            shared.metrics.message(Direction.TARGET_TO_CLIENT, Operation.SEND, s.length);
        }
        op[l] = OP_NONE;
        if (ibUp && !ibDown && qp != null) {
            postRecv(l);
            maybeCreditUpdate();
        }
        checkDrained();
    }

    @Override
    public void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode) {
        if (cause == BreakCause.PROTOCOL_ERROR) {
            // the engine records the reason just after this callback: log it on the next turn
            context.runOnContext(v -> {
                closeReason = "protocol error: " + connection.lastProtocolError();
                log.warn("conn {} {}:{} disconnected: {}", id, clientAddress.getHostAddress(), clientPort, closeReason);
            });
            beginDrain();
            return;
        }
        String why = switch (cause) {
            case PROTOCOL_ERROR -> "protocol error";
            case TRANSPORT_CLOSED -> "client closed TCP";
            case LOCAL_DISCONNECT -> "gateway disconnect";
            case LOCAL_RECEIVE_ERROR -> "receive error IS " + isCode;
            case REMOTE_ERROR -> "client reported error type " + viErrorType + " IS " + isCode;
        };
        if (closeReason == null) {
            closeReason = why;
        }
        if (cause == BreakCause.PROTOCOL_ERROR || cause == BreakCause.LOCAL_RECEIVE_ERROR) {
            log.warn("conn {} {}:{} disconnected: {}", id, clientAddress.getHostAddress(), clientPort, why);
        } else {
            log.debug("conn {} VI connection ended: {}", id, why);
        }
        beginDrain();
    }

    // ============================================================================ client -> target

    private void enqueue(int l) {
        fifo[(fifoHead + fifoCount) % fifo.length] = l;
        fifoCount++;
        processFifo();
    }

    /** Posts staged client messages to the target in order; FlowC 0 Sends wait for credits. */
    private void processFifo() {
        if (!ibUp || ibDown) {
            return;
        }
        while (fifoCount > 0) {
            int l = fifo[fifoHead];
            int base = sbase[l];
            boolean needsCredit = op[l] == OP_SEND || (op[l] == OP_WRITE && hasImm[l]);
            if (flowC0 && needsCredit && !credits.canSendData()) {
                if (!stalledOnCredit) {
                    stalledOnCredit = true;
                    shared.metrics.creditStall(Direction.CLIENT_TO_TARGET);
                }
                return;
            }
            stalledOnCredit = false;
            try {
                switch (op[l]) {
                    case OP_SEND -> {
                        int n = len[l];
                        if (flowC0) {
                            int mseq = credits.onSend(postedRecvs);
                            // project rule (cm-mapping FlowControlHeader): a zero-length message is marked, else
                            // the target would take the header-only SEND for a credit update
                            FlowControlHeader.write(sbuf[l], base,
                                    n == 0 ? FlowControlHeader.FLAG_EMPTY_MESSAGE : 0, postedRecvs, FC + n, mseq,
                                    credits.mseqAck());
                            swr.set(K_SEND | l, hasImm[l] ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, sreg[l],
                                    base, FC + n);
                        } else {
                            swr.set(K_SEND | l, hasImm[l] ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, sreg[l],
                                    base + FC, n);
                        }
                        swr.immediate(imm[l]).signaled(true);
                        postSend(l);
                    }
                    case OP_WRITE -> {
                        if (len[l] > 0 || !hasImm[l]) {
                            swr.set(K_WRITE | l, WrOpcode.RDMA_WRITE, sreg[l], base + FC, len[l])
                                    .remote(raddr[l], rkey[l]).signaled(true);
                            postSend(l);
                        }
                        if (hasImm[l]) {
                            // project rule: immediate data goes in a zero-length RDMA WRITE WITH IMMEDIATE after
                            // the data; with FlowC 0 it consumes a target receive and an mseq like a SEND
                            if (flowC0) {
                                credits.onHeaderlessSend(); // advertises nothing: no header
                            }
                            swr.set(K_WRITE | l, WrOpcode.RDMA_WRITE_WITH_IMM, null, 0, 0)
                                    .remote(raddr[l] + len[l], rkey[l]).immediate(imm[l]).signaled(true);
                            postSend(l);
                        }
                    }
                    case OP_READ -> {
                        swr.set(K_READ | l, WrOpcode.RDMA_READ, sreg[l], base + FC, len[l])
                                .remote(raddr[l], rkey[l]).signaled(true);
                        if (len[l] == 0) {
                            readReady[l] = true; // VITCP-PROFILE §9.7: one empty Read Response
                        } else {
                            postSend(l);
                        }
                    }
                    default -> throw new IllegalStateException("slot " + l + " has no operation");
                }
            } catch (VerbsException e) {
                log.warn("conn {} post to the target failed: {}", id, e.toString());
                ibFailed(WcStatus.GENERAL_ERROR);
                return;
            }
            fifoHead = (fifoHead + 1) % fifo.length;
            fifoCount--;
        }
    }

    private void postSend(int l) {
        pendingWr[l]++;
        outstandingSends++;
        qp.postSend(swr);
    }

    private void postRecv(int l) {
        int base = sbase[l];
        int size = route.target().parameters().receiveSize();
        rwr.set(K_RECV | l, sreg[l], base, Math.min(size, shared.pool.slotSize()));
        postedRecvs++;
        qp.postRecv(rwr);
    }

    private void maybeCreditUpdate() {
        if (!flowC0 || credits == null || ibDown) {
            return;
        }
        // CM-MAPPING §4: a header-only Send when the target believes it is short of credits, unless a data
        // Send can go now and carry the update itself (a Send waiting for a data credit must not hold it back:
        // both sides would wait for each other)
        boolean dataSendPossible = fifoCount > 0 && credits.canSendData();
        // the target's view of our credits comes from our headers only (WRITE WITH IMMEDIATE: onHeaderlessSend)
        if (!dataSendPossible && credits.shouldSendCreditUpdate(postedRecvs)) {
            int off = shared.pool.controlOffset(controlBlock) + (controlNext++ & 15) * FC;
            int mseq = credits.onSend(postedRecvs);
            FlowControlHeader.write(shared.pool.controlBuffer(), off, 0, postedRecvs, FC, mseq, credits.mseqAck());
            swr.set(K_CREDIT, WrOpcode.SEND, shared.pool.controlRegion(), off, FC).signaled(true);
            outstandingSends++;
            qp.postSend(swr);
        }
    }

    /**
     * An RC QP with nothing outstanding never learns that its peer vanished (IBA has no keepalive), so a VI
     * client waiting for the target would wait for ever. Every {@code infiniband.keepalive} a connection whose
     * InfiniBand side saw no completion and has nothing in flight sends a zero-length RDMA WRITE: it needs no
     * R_Key and touches no memory (IBA C9-88; rxe check_rkey), is acknowledged by any responder with remote write
     * access (rdma_cm grants it to every RC QP, cm.c cm_init_qp_init_attr), and a dead target fails it after
     * the retry count, which closes the client connection like any InfiniBand error.
     */
    private void keepalive() {
        boolean quiet = !ibActive;
        ibActive = false;
        if (!quiet || phase != Phase.CONNECTED || ibDown || resourcesReleased || outstandingSends > 0) {
            return;
        }
        swr.set(K_PROBE, WrOpcode.RDMA_WRITE, shared.pool.controlRegion(), 0, 0).remote(0, 0).signaled(true);
        outstandingSends++;
        qp.postSend(swr);
    }

    private void freeClientSlot(int l) {
        boolean wasSend = op[l] == OP_SEND || (op[l] == OP_WRITE && hasImm[l]);
        op[l] = OP_NONE;
        freeStack[freeTop++] = l;
        if (wasSend && engine.state() == ViConnection.State.CONNECTED) {
            engine.receivePosted(); // the client's credit comes back (VITCP-PROFILE §6)
            creditsGranted++;
        }
        checkDrained();
        slotFreed();
    }

    // ============================================================================ completions

    /** The provider queued cut-through work: forward what may go now. */
    private void onCutThrough() {
        forwardCutThrough();
        pump();
    }

    /**
     * Posts queued cut-through operations to the VI engine, in the order the target issued them, up to the
     * first one that came after a target message not polled yet (IBA 9.5). The engine writes what it is
     * posted in order, so posting each operation after the messages before it and before the ones after
     * it is all the ordering takes.
     */
    private void forwardCutThrough() {
        if (cut == null) {
            return;
        }
        CutThrough.Op o;
        while ((o = cut.queue.peek()) != null) {
            if (o.receivesBefore - targetReceives > 0 && engine.state() == ViConnection.State.CONNECTED) {
                break; // issued after a target message still in the CQ: posted after it
            }
            cut.queue.poll();
            if (engine.state() != ViConnection.State.CONNECTED) {
                o.finish(false);
                continue;
            }
            engine.post(o);
        }
    }

    private void onCqNotify() {
        drainCq();
        if (cq != null && !resourcesReleased) {
            cq.requestNotify(false);
            drainCq();
        }
        forwardCutThrough(); // what the target issued after the last message polled
        processFifo();
        pump();
    }

    private void drainCq() {
        if (cq == null || resourcesReleased) {
            return;
        }
        int n;
        while ((n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                onCompletion(wcs[i]);
                if (resourcesReleased) {
                    return;
                }
            }
        }
    }

    private void onCompletion(WorkCompletion wc) {
        ibActive = true;
        long kind = wc.wrId & 0xFFFF_FFFF_0000_0000L;
        int l = (int) wc.wrId;
        if (kind == K_RECV) {
            postedRecvs--;
            if (wc.status != WcStatus.SUCCESS) {
                if (wc.status != WcStatus.WR_FLUSH_ERROR) {
                    ibFailed(wc.status);
                }
                maybeRelease();
                return;
            }
            forwardCutThrough(); // RDMA the target issued before this message goes first (IBA 9.5)
            targetReceives++;
            onTargetMessage(l, wc);
            return;
        }
        outstandingSends--;
        boolean control = kind == K_CREDIT || kind == K_PROBE;
        if (wc.status != WcStatus.SUCCESS) {
            if (wc.status != WcStatus.WR_FLUSH_ERROR) {
                log.info("conn {} InfiniBand {} failed: {}", id, kindName(kind), wc.status);
                if (!control && op[l] != OP_NONE) {
                    clientMessageFailed(l, wc.status);
                } else {
                    ibFailed(wc.status);
                }
            }
            if (!control && --pendingWr[l] == 0 && op[l] != OP_NONE) {
                freeClientSlot(l);
            }
            maybeRelease();
            return;
        }
        if (control) {
            return;
        }
        if (--pendingWr[l] > 0) {
            return;
        }
        switch (op[l]) {
            case OP_SEND -> {
                shared.metrics.message(Direction.CLIENT_TO_TARGET, Operation.SEND, len[l]);
                confirmInbound(l);
                freeClientSlot(l);
            }
            case OP_WRITE -> {
                shared.metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_WRITE, len[l]);
                confirmInbound(l);
                freeClientSlot(l);
            }
            case OP_READ -> {
                readReady[l] = true;
                engine.readSourceReady(); // the Read Response can go out now
            }
            default -> {
            }
        }
    }

    /** Reliable Reception: the client's message in slot {@code l} completed on InfiniBand: it may be acknowledged. */
    private void confirmInbound(int l) {
        if (rr && engine.state() == ViConnection.State.CONNECTED) {
            engine.inboundCompleted(msgNo[l]);
        }
    }

    private static String kindName(long kind) {
        if (kind == K_SEND) {
            return "SEND";
        } else if (kind == K_WRITE) {
            return "RDMA WRITE";
        } else if (kind == K_READ) {
            return "RDMA READ";
        } else if (kind == K_PROBE) {
            return "keepalive probe (zero-length RDMA WRITE)";
        }
        return "credit update SEND";
    }

    /** A SEND from the target landed in receive slot {@code l}. */
    private void onTargetMessage(int l, WorkCompletion wc) {
        int base = sbase[l];
        ByteBuffer sb = sbuf[l];
        int dataStart = 0;
        int n = wc.byteLength;
        if (wc.opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            // a target RDMA WRITE WITH IMMEDIATE: its data and immediate went to the client through the
            // cut-through handler; the receive it consumed is reposted (FlowC 0: it counts as one mseq, project rule)
            if (cut == null) {
                log.warn("conn {} target RDMA WRITE WITH IMMEDIATE without cut-through: closing", id);
                ibFailed(WcStatus.REMOTE_INVALID_REQUEST);
                return;
            }
            if (flowC0) {
                credits.onHeaderlessReceive(); // one mseq, no header (project rule, README-tools)
                processFifo();
            }
            postRecv(l);
            maybeCreditUpdate();
            return;
        }
        if (flowC0) {
            try {
                FlowControlHeader.validate(sb, base, n);
                credits.onReceive(FlowControlHeader.readBufs(sb, base), FlowControlHeader.readMseq(sb, base),
                        FlowControlHeader.readMseqAck(sb, base));
            } catch (CmFormatException e) {
                log.warn("conn {} target sent a bad flow-control header: {}", id, e.getMessage());
                ibFailed(WcStatus.REMOTE_INVALID_REQUEST);
                return;
            }
            dataStart = FC;
            n -= FC;
            processFifo(); // the target's mseqack may have freed credits
            if (n == 0 && !wc.hasImmediate && !FlowControlHeader.isEmptyMessage(sb, base)) {
                postRecv(l); // header-only credit update (a zero-length message carries FLAG_EMPTY_MESSAGE)
                maybeCreditUpdate();
                return;
            }
            maybeCreditUpdate(); // credits may have come back since receives were reposted
        }
        if (engine.state() != ViConnection.State.CONNECTED) {
            return; // the client is gone: the slot stays unposted until teardown
        }
        if (n > engine.negotiated().mtu()) {
            log.warn("conn {} target SEND of {} bytes exceeds the agreed MTU {}", id, n, engine.negotiated().mtu());
            ibFailed(WcStatus.REMOTE_INVALID_REQUEST);
            return;
        }
        SlotSend s = sends[l];
        s.offset = dataStart;
        s.length = n;
        s.hasImm = wc.hasImmediate;
        s.immediate = wc.immediate;
        op[l] = OP_SEND;
        engine.post(s);
    }

    // ============================================================================ teardown

    /**
     * The InfiniBand work of the client's message in slot {@code l} failed (the QP is in ERROR now). The
     * engine handles it per reliability level as a receiver-detected error for that message (VITCP-PROFILE
     * §6): Reliable Reception reports it (remote access error: VI Error Type 1, else type 2; IS 16) and
     * then closes, Reliable Delivery closes without a report, Unreliable Delivery drops the message; the
     * InfiniBand side is disconnected in every case, so the connection then ends.
     */
    private void clientMessageFailed(int l, WcStatus status) {
        if (closeReason == null) {
            closeReason = "InfiniBand " + status + " for message " + Integer.toUnsignedString(msgNo[l]);
        }
        int type = status == WcStatus.REMOTE_ACCESS_ERROR ? 1 : 2;
        boolean report = rr && engine.state() == ViConnection.State.CONNECTED;
        if (engine.state() == ViConnection.State.CONNECTED) {
            engine.failInbound(msgNo[l], type, IsCode.REMOTE_TRANSPORT_ERROR);
        }
        if (report) {
            ibDown = true;
            ibDisconnect(); // the engine closes after the report went out (broken -> drain)
            pump();
        } else {
            ibFailed(status);
        }
    }

    /** An InfiniBand operation failed (the QP is in ERROR): the VI connection cannot continue. */
    private void ibFailed(WcStatus status) {
        if (closeReason == null) {
            closeReason = "InfiniBand " + status;
        }
        ibDown = true;
        log.info("conn {} InfiniBand side failed ({}): closing the client connection", id, status);
        if (engine.state() == ViConnection.State.CONNECTED || engine.state() == ViConnection.State.ERROR) {
            engine.disconnect();
        }
        ibDisconnect();
        pump();
    }

    private void onIbDisconnected() {
        ibDown = true;
        if (closeReason == null) {
            // the target's own disconnect: worth a line; the answer to our DREQ (client gone) is routine
            closeReason = "target disconnected";
            log.info("conn {} target side disconnected", id);
        } else {
            log.debug("conn {} target side disconnected ({})", id, closeReason);
        }
        drainCq();
        if (phase == Phase.CONNECTING_TARGET) {
            targetFailed(RejectReason.TARGET_UNREACHABLE, IsCode.REMOTE_TRANSPORT_ERROR, "target disconnected");
            return;
        }
        beginDrain();
        checkDrained();
    }

    /** Stops taking new messages; closes both sides once what can complete has completed. */
    private void beginDrain() {
        if (phase == Phase.CLOSED) {
            maybeRelease();
            return;
        }
        if (phase != Phase.DRAINING) {
            phase = Phase.DRAINING;
            long grace = Math.max(1, config.shutdownGrace().toMillis());
            graceTimer = vertx.setTimer(grace, t -> {
                graceTimer = -1;
                forceClose();
            });
        }
        checkDrained();
    }

    /** {@link #shutdown()} on the bridge's own context (callable from any thread). */
    public void shutdownAsync() {
        context.runOnContext(v -> shutdown());
    }

    /** Force-closes on the bridge's own context (callable from any thread). */
    public void forceCloseAsync() {
        context.runOnContext(v -> forceClose());
    }

    /** Graceful shutdown of this connection (gateway shutdown). */
    public void shutdown() {
        if (phase == Phase.CONNECTED) {
            closeReason = "gateway shutdown";
            log.info("conn {} draining for shutdown", id);
            pauseInput();
            beginDrain();
        } else if (phase == Phase.INCOMING || phase == Phase.CONNECTING_TARGET) {
            forceClose();
        }
    }

    private void checkDrained() {
        if (phase != Phase.DRAINING) {
            return;
        }
        boolean clientOpsDone = freeTop == clientSlots && fifoCount == 0;
        boolean targetOpsDone = engine.state() != ViConnection.State.CONNECTED || engine.outstandingWork() == 0;
        if ((clientOpsDone || ibDown) && (targetOpsDone || socketClosed)) {
            if (engine.state() == ViConnection.State.CONNECTED || engine.state() == ViConnection.State.ERROR) {
                engine.disconnect();
            }
            ibDisconnect();
            phase = Phase.CLOSED;
            pump();
            if (socketClosed) {
                maybeRelease();
            }
        }
    }

    private void forceClose() {
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.disconnect();
        }
        ibDisconnect();
        phase = Phase.CLOSED;
        if (!socketClosed) {
            socket.close();
        }
        maybeRelease();
    }

    private void ibDisconnect() {
        if (cmId != null && !ibDisconnectSent) {
            ibDisconnectSent = true;
            try {
                cmId.disconnect(); // DREQ; the QP goes to ERROR and its work requests flush
            } catch (RuntimeException e) {
                log.debug("conn {} disconnect: {}", id, e.toString());
            }
        } else if (cmId == null) {
            ibDown = true;
        }
    }

    private void onSocketClosed() {
        socketClosed = true;
        cancelIncomingTimer();
        dropInput();
        if (engine.state() != ViConnection.State.DISCONNECTED) {
            engine.transportClosed();
        }
        if (phase == Phase.CONNECTING_TARGET) {
            ibDisconnect();
            phase = Phase.CLOSED;
        } else if (phase == Phase.INCOMING) {
            phase = Phase.CLOSED;
        } else if (phase == Phase.CONNECTED || phase == Phase.DRAINING) {
            beginDrain();
        }
        maybeRelease();
    }

    /** Frees staging and verbs resources once the socket is closed and the QP has flushed everything. */
    private void maybeRelease() {
        if (resourcesReleased || !socketClosed) {
            return;
        }
        if (cmId != null && !ibDisconnectSent && phase != Phase.CLOSED) {
            return;
        }
        if (qp != null) {
            drainCqQuietly();
            if ((postedRecvs > 0 || outstandingSends > 0) && qp.state() != QpState.ERROR) {
                qp.toError();
            }
            drainCqQuietly();
            if (postedRecvs > 0 || outstandingSends > 0) {
                return; // flushes still to come
            }
        }
        releaseResources();
    }

    private void drainCqQuietly() {
        if (cq == null) {
            return;
        }
        int n;
        while ((n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                if ((wcs[i].wrId & 0xFFFF_FFFF_0000_0000L) == K_RECV) {
                    postedRecvs--;
                } else {
                    outstandingSends--;
                }
            }
        }
    }

    private void releaseResources() {
        if (resourcesReleased) {
            return;
        }
        resourcesReleased = true;
        if (cut != null) {
            cut.open = false;
            CutThrough.Op o;
            while ((o = cut.queue.poll()) != null) {
                o.finish(false);
            }
        }
        phase = Phase.CLOSED;
        if (graceTimer >= 0) {
            vertx.cancelTimer(graceTimer);
        }
        if (keepaliveTimer >= 0) {
            vertx.cancelTimer(keepaliveTimer);
            keepaliveTimer = -1;
        }
        if (qp != null) {
            try {
                qp.close();
            } catch (RuntimeException e) {
                log.debug("conn {} QP close: {}", id, e.toString());
            }
        }
        if (cq != null) {
            try {
                cq.close();
            } catch (RuntimeException e) {
                log.debug("conn {} CQ close: {}", id, e.toString());
            }
        }
        if (slots.length > 0) {
            shared.pool.release(slots, slots.length);
        }
        shared.pool.releaseControl(controlBlock);
        controlBlock = -1;
        if (admitted) {
            admitted = false;
            shared.release(clientAddress);
        }
        if (ibUp) {
            shared.metrics.connectionClosed();
            log.debug("conn {} closed ({}), {} bytes in, {} bytes out", id, closeReason, bytesIn, bytesOut);
        }
        shared.bridges.remove(this);
    }

    private void cancelIncomingTimer() {
        if (incomingTimer >= 0) {
            vertx.cancelTimer(incomingTimer);
            incomingTimer = -1;
        }
    }

    private static String printable(byte[] b) {
        StringBuilder s = new StringBuilder("\"");
        for (byte x : b) {
            s.append(x >= 0x20 && x < 0x7F ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xFF));
        }
        return s.append('"').toString();
    }

    // ============================================================================ descriptors

    /** A client Send lands in a client slot, after the room for the FlowC 0 header. */
    private final class SlotReceive implements InboundReceive {
        final int local;

        SlotReceive(int local) {
            this.local = local;
        }

        @Override
        public long capacity() {
            return shared.pool.slotSize() - FC;
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            int off = sbase[local] + FC + (int) offset;
            sbuf[local].put(off, src, src.position(), src.remaining());
        }
    }

    /** The receive an RDMA Write with immediate data consumes (its payload went through rdmaPlace). */
    private static final class ImmReceive implements InboundReceive {
        static final ImmReceive INSTANCE = new ImmReceive();

        @Override
        public long capacity() {
            return 0;
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            throw new IllegalStateException("RDMA Write immediate receive has no buffer");
        }
    }

    /** A target SEND waiting in its receive slot, handed to the engine as a VI Send to the client. */
    private final class SlotSend implements OutboundWork {
        final int local;
        int offset;
        long length;
        boolean hasImm;
        int immediate;
        int number;

        SlotSend(int local) {
            this.local = local;
        }

        @Override
        public int operation() {
            return OP_SEND;
        }

        @Override
        public boolean hasImmediate() {
            return hasImm;
        }

        @Override
        public int immediateData() {
            return immediate;
        }

        @Override
        public boolean queueFence() {
            return false;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public long remoteAddress() {
            return 0;
        }

        @Override
        public int remoteHandle() {
            return 0;
        }

        @Override
        public int gather(long off, int n, ByteBuffer[] out, int index) {
            ByteBuffer v = views[local];
            int p = offset + (int) off;
            v.limit(p + n).position(p);
            out[index] = v;
            return 1;
        }

        @Override
        public void scatter(long off, ByteBuffer src) {
            throw new IllegalStateException("not a read");
        }

        @Override
        public void messageNumber(int n) {
            number = n;
        }

        @Override
        public int messageNumber() {
            return number;
        }
    }

    /** Signs the Connect Accept with the route's (or the global) key. */
    private record SignerSecurity(ConnectSigner signer) implements ConnectSecurity {
        @Override
        public void sign(ByteBuffer segment, int off, int len) {
            signer.sign(segment, off, len);
        }

        @Override
        public boolean verify(ByteBuffer segment, int off, int len) {
            return signer.verify(segment, off, len).isOk();
        }
    }
}

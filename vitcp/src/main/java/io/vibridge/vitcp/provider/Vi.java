package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.engine.Negotiated;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * A Virtual Interface (VIA 2.1.1): a send and a receive work queue, optionally tied to completion
 * queues, connected to one remote VI over one TCP connection. States and transitions: VIA 5.
 *
 * <p>Work queue model: {@link #sendDone()}/{@link #recvDone()} return the head descriptor once it
 * completed (VIA 6.4.2: dequeued in FIFO order regardless of completion order).
 */
public final class Vi {
    private final ViNic nic;
    private volatile ViAttributes attributes;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final CompletionQueue.Entry sendEntry;
    private final CompletionQueue.Entry recvEntry;

    // guarded by this
    private volatile ViState state = ViState.IDLE;
    private final ArrayDeque<Descriptor> sendQueue = new ArrayDeque<>(2);
    private final ArrayDeque<Descriptor> recvQueue = new ArrayDeque<>(2);
    private final ArrayDeque<Descriptor> unconsumed = new ArrayDeque<>(2);
    private int recvPosted;
    private int waiters;
    private Link link;
    private volatile Link callbackLink;
    private volatile Negotiated negotiated;
    private Consumer<Descriptor> sendNotify;
    private Consumer<Descriptor> recvNotify;
    private boolean destroyed;

    Vi(ViNic nic, ViAttributes attributes, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.nic = nic;
        this.attributes = attributes;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sendEntry = new CompletionQueue.Entry(this, false);
        this.recvEntry = new CompletionQueue.Entry(this, true);
    }

    public ViNic nic() {
        return nic;
    }

    public ViAttributes attributes() {
        return attributes;
    }

    public ViState state() {
        return state;
    }

    /** VipQueryVi: the agreed connection parameters (MTU, flow control, read windows), or null when not connected. */
    public Negotiated negotiated() {
        return negotiated;
    }

    /** Inbound messages dropped at Unreliable Delivery (receive queue empty, too small, protection). */
    public long droppedMessages() {
        Link l;
        synchronized (this) {
            l = link;
        }
        if (l == null) {
            return 0;
        }
        l.lock.lock();
        try {
            return l.engine.droppedMessages();
        } finally {
            l.lock.unlock();
        }
    }

    /** VipSetViAttributes: only while Idle (the attributes are negotiated at connection time). */
    public void setAttributes(ViAttributes a) {
        synchronized (this) {
            if (state != ViState.IDLE) {
                throw new ViException(ViException.Code.INVALID_STATE, "VI attributes can change only while Idle");
            }
            nic.checkViAttributes(a);
            attributes = a;
        }
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    // ------------------------------------------------------------------ connection management

    /**
     * This side's CE parameters, when connecting and when accepting. Attribute bit 6 "Unordered operations
     * understood" is always set (VITCP-PROFILE §5, seed 002): the engine handles the unordered types.
     */
    LocalEndpoint endpoint(Discriminator local, boolean peerToPeer) {
        ViAttributes a = attributes;
        ConnectionAttributes ca = ConnectionAttributes.of(a.reliabilityLevel(), a.enableRdmaWrite(), a.enableRdmaRead(),
                a.flowControl(), peerToPeer, true);
        return new LocalEndpoint(ca, local, a.maxTransferSize(), a.rdmaReadWindow(), nic.randomInt(),
                nic.config().segmentPayload(), nic.config().creditThreshold(), nic.security());
    }

    /**
     * VipConnectRequest: connects to {@code remote} within {@code timeout}. Returns the agreed
     * parameters; throws {@link ViException} REJECT (with the IS code), NO_MATCH, TIMEOUT,
     * NOT_REACHABLE or SECURITY, leaving the VI Idle.
     */
    public Negotiated connectRequest(Discriminator local, ViNetAddress remote, Duration timeout)
            throws InterruptedException {
        return connect(local, remote, timeout, false);
    }

    Negotiated connect(Discriminator local, ViNetAddress remote, Duration timeout, boolean peerToPeer)
            throws InterruptedException {
        synchronized (this) {
            if (state != ViState.IDLE || destroyed) {
                throw new ViException(ViException.Code.INVALID_STATE, "connect in state " + state);
            }
            state = ViState.PENDING_CONNECT; // VIA 5.1
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true); // VITCP-PROFILE §1
            ch.socket().connect(remote.host(), (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        } catch (IOException e) {
            closeQuietly(ch);
            toIdle();
            throw new ViException(ViException.Code.NOT_REACHABLE, 0, "TCP connect to " + remote.host() + " failed: " + e,
                    e);
        }
        Link l = new Link(nic, ch);
        l.vi = this;
        nic.linkOpened(l);
        l.lock.lock();
        try {
            int initial;
            synchronized (this) {
                initial = recvPosted;
                link = l;
                callbackLink = l;
            }
            l.engine = ViConnection.active(l, endpoint(local, peerToPeer), remote.discriminator(), initial,
                    System.nanoTime(), timeout.toNanos(), remote.encapsulation(), nic.newConnectionId());
        } finally {
            l.lock.unlock();
        }
        l.kick();
        boolean answered;
        try {
            answered = l.readSetup(deadline);                   // this thread reads the answer itself
        } catch (InterruptedException e) {
            synchronized (this) {
                link = null;
            }
            l.close();
            toIdle();
            throw e;
        }
        if (!l.isClosed() && l.setupFailure() == null) {
            l.start();                                          // the reader thread from here on
        }
        if (!answered) {
            l.tick(Long.MAX_VALUE - 1);
            l.awaitSetup(System.nanoTime() + 1_000_000_000L);
        }
        ConnectFailure f = l.setupFailure();
        if (f == null && state == ViState.CONNECTED) {
            return negotiated;
        }
        synchronized (this) {
            link = null;
        }
        l.close();
        toIdle();
        int is = l.setupIsCode();
        if (f == null) {
            f = ConnectFailure.CLOSED;
        }
        throw switch (f) {
            case REJECTED -> new ViException(ViException.Code.REJECT, is,
                    "connection rejected, IS " + is + " (" + IsCode.describe(is) + ")", null);
            case NO_MATCH -> new ViException(ViException.Code.NO_MATCH, "no VI waits for " + remote.discriminator());
            case TIMEOUT -> new ViException(ViException.Code.TIMEOUT, IsCode.TIMEOUT, "no answer within " + timeout, null);
            case SECURITY -> new ViException(ViException.Code.SECURITY, IsCode.SECURITY_REJECTED,
                    "Connect Accept failed verification", null);
            default -> new ViException(ViException.Code.ERROR, "connection setup failed: " + f);
        };
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing
            }
        }
    }

    private void toIdle() {
        synchronized (this) {
            state = ViState.IDLE;
        }
    }

    /** Passive accept (called by {@link IncomingConnection#accept}). */
    void acceptOn(Link l, ConnectRequestInfo info) {
        synchronized (this) {
            if (state != ViState.IDLE || destroyed) {
                throw new ViException(ViException.Code.INVALID_STATE, "accept on a VI in state " + state);
            }
            state = ViState.PENDING_CONNECT;
        }
        boolean ok;
        l.lock.lock();
        try {
            if (l.engine.state() != ViConnection.State.PASSIVE_PENDING_ACCEPT) {
                toIdle();
                throw new ViException(ViException.Code.INVALID_STATE, "the connection request is gone ("
                        + l.engine.state() + ")");
            }
            int initial;
            synchronized (this) {
                initial = recvPosted;
                link = l;
                callbackLink = l;
            }
            l.vi = this;
            ok = l.engine.accept(endpoint(info.localDiscriminator(), info.attributes().peerToPeer()), initial);
            if (!ok) {
                l.vi = null;
                synchronized (this) {
                    link = null;
                }
                toIdle();
            }
        } finally {
            l.lock.unlock();
        }
        l.kick();
        if (!ok) {
            throw new ViException(ViException.Code.INVALID_RELIABILITY_LEVEL, IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES,
                    "reliability level " + attributes.reliabilityLevel() + " does not match the request's "
                            + info.attributes(), null);
        }
    }

    /** Engine callback (under the link lock). */
    void connected(Negotiated n) {
        synchronized (this) {
            negotiated = n;
            state = ViState.CONNECTED;
        }
    }

    /**
     * VipDisconnect (VIA 4.2): aborts the connection; every posted descriptor completes with the
     * flushed status; the VI goes Idle (VIA 5).
     */
    public void disconnect() {
        Link l;
        synchronized (this) {
            l = link;
        }
        if (l != null) {
            l.lock.lock();
            try {
                l.engine.disconnect();
            } finally {
                l.lock.unlock();
            }
            l.runDeferred();
            l.kick();
            l.close();
        }
        Descriptor[] flushed;
        synchronized (this) {
            link = null;
            negotiated = null;
            state = ViState.IDLE;
            flushed = unconsumed.toArray(new Descriptor[0]);
            unconsumed.clear();
            recvPosted = 0;
        }
        for (Descriptor d : flushed) {
            completeRecv(d, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE, 0, 0);
        }
    }

    /** Engine callback (under the link lock): the connection broke or was disconnected. */
    void broken(Link l, BreakCause cause, int viErrorType, int isCode) {
        Descriptor[] flushed;
        synchronized (this) {
            state = cause == BreakCause.LOCAL_DISCONNECT ? ViState.IDLE : ViState.ERROR; // VIA 5.3, 5.4
            flushed = unconsumed.toArray(new Descriptor[0]);
            unconsumed.clear();
        }
        for (Descriptor d : flushed) {
            completeRecv(d, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE, 0, 0);
        }
        if (cause != BreakCause.LOCAL_DISCONNECT) {
            ErrorDescriptor.ErrorCode code = switch (cause) {
                case LOCAL_RECEIVE_ERROR -> switch (isCode) {
                    case IsCode.RECEIVE_QUEUE_EMPTY -> ErrorDescriptor.ErrorCode.RECVQ_EMPTY;
                    case IsCode.RECEIVE_DESCRIPTOR_TOO_SMALL -> ErrorDescriptor.ErrorCode.VI_OVERRUN;
                    case IsCode.READ_WINDOW_EXCEEDED -> ErrorDescriptor.ErrorCode.RDMAR_PROT;
                    default -> ErrorDescriptor.ErrorCode.RDMAW_PROT;
                };
                default -> ErrorDescriptor.ErrorCode.CONN_LOST;
            };
            ErrorDescriptor e = new ErrorDescriptor(nic, this, null, null, 0, ErrorDescriptor.ResourceCode.VI, code, isCode);
            dispatch(() -> nic.reportError(e));
        }
    }

    // ------------------------------------------------------------------ data transfer

    /** VipPostSend: Send, RDMA Write or RDMA Read (VIA 6.2). Errors complete the descriptor (VIA 10.2). */
    public void postSend(Descriptor d) {
        Link l;
        synchronized (this) {
            l = link;
        }
        // the engine lock is taken first so that the work queue and the wire see posts in the same order
        if (l != null) {
            l.lock.lock();
        }
        boolean posted = false;
        try {
            int err;
            synchronized (this) {
                if (d.owner != null && !d.isDone() && d.owner.holds(d)) {
                    throw new ViException(ViException.Code.INVALID_PARAMETER, "descriptor already posted");
                }
                Negotiated n = negotiated;
                err = d.prepare(this, false, nic.maxSegments(), n != null ? n.mtu() : attributes.maxTransferSize());
                d.owner = this;
                d.onRecvQueue = false;
                sendQueue.addLast(d);
                if (err == 0 && (state != ViState.CONNECTED || link != l || l == null)) {
                    err = Status.DESC_FLUSHED_ERROR; // VIA 5.1, 5.2, 5.4: completed in error
                }
                if (err == 0 && d.operation() == Descriptor.CONTROL_OP_RDMA_READ && n.peerReadWindow() == 0) {
                    err = Status.FORMAT_ERROR; // the peer accepts no RDMA Reads
                }
            }
            if (err == 0) {
                posted = l.engine.state() == ViConnection.State.CONNECTED;
                if (posted) {
                    l.engine.post(d.work);
                } else {
                    err = Status.DESC_FLUSHED_ERROR;
                }
            }
            if (err != 0) {
                completeSend(d, Status.DONE | err | Status.opFor(d.operation()), 0);
            }
        } finally {
            if (l != null) {
                l.lock.unlock();
            }
        }
        if (l != null) {
            l.runDeferred();
            if (posted) {
                l.kick();
            }
        }
    }

    private synchronized boolean holds(Descriptor d) {
        return d.onRecvQueue ? recvQueue.contains(d) : sendQueue.contains(d);
    }

    /** VipPostRecv: may be posted before connecting (initial credits, VIA 6.2). */
    public void postRecv(Descriptor d) {
        int err;
        Link l;
        synchronized (this) {
            err = d.prepare(this, true, nic.maxSegments(), Long.MAX_VALUE);
            d.owner = this;
            d.onRecvQueue = true;
            recvQueue.addLast(d);
            if (err == 0 && state == ViState.ERROR) {
                err = Status.DESC_FLUSHED_ERROR; // VIA 5.4
            }
            if (err == 0) {
                unconsumed.addLast(d);
                recvPosted++;
            }
            l = link;
        }
        if (err != 0) {
            completeRecv(d, Status.DONE | err | Status.OP_RECEIVE, 0, 0);
            return;
        }
        if (l != null) {
            boolean out;
            l.lock.lock();
            try {
                l.engine.receivePosted();
                out = l.engine.hasOutput();
            } finally {
                l.lock.unlock();
            }
            if (out) {
                l.kick();
            }
        }
    }

    /** Engine callback: takes the oldest unconsumed receive. */
    Descriptor.Work takeReceive() {
        synchronized (this) {
            Descriptor d = unconsumed.pollFirst();
            return d == null ? null : d.work;
        }
    }

    void completeSend(Descriptor d, int status, long length) {
        d.complete(status, length, 0);
        Consumer<Descriptor> cb;
        synchronized (this) {
            if (waiters > 0) {
                notifyAll();
            }
            cb = sendNotify;
            if (cb != null && sendQueue.peekFirst() == d) {
                sendNotify = null;
                sendQueue.pollFirst();
            } else {
                cb = null;
            }
        }
        if (cb != null) {
            Consumer<Descriptor> handler = cb;
            dispatch(() -> handler.accept(d));
        } else if (sendCq != null) {
            dispatch(sendCq.add(this, false, sendEntry));
        }
    }

    void completeRecv(Descriptor d, int status, long length, int immediate) {
        d.complete(status, length, immediate);
        Consumer<Descriptor> cb;
        synchronized (this) {
            if (waiters > 0) {
                notifyAll();
            }
            cb = recvNotify;
            if (cb != null && recvQueue.peekFirst() == d) {
                recvNotify = null;
                recvQueue.pollFirst();
            } else {
                cb = null;
            }
        }
        if (cb != null) {
            Consumer<Descriptor> handler = cb;
            dispatch(() -> handler.accept(d));
        } else if (recvCq != null) {
            dispatch(recvCq.add(this, true, recvEntry));
        }
    }

    /**
     * Runs a consumer callback: at once, or, when the engine's lock is held by this thread (the
     * callback comes from inside the engine), once the lock is released, so that handlers may call
     * back into the provider.
     */
    private void dispatch(Runnable task) {
        if (task == null) {
            return;
        }
        Link l = callbackLink;
        if (l != null && l.lock.isHeldByCurrentThread()) {
            l.defer(task);
        } else {
            task.run();
        }
    }

    /** VipSendDone: the head of the send queue if it completed (dequeued), else null. */
    public Descriptor sendDone() {
        return done(sendQueue);
    }

    /** VipRecvDone: the head of the receive queue if it completed (dequeued), else null. */
    public Descriptor recvDone() {
        return done(recvQueue);
    }

    private synchronized Descriptor done(ArrayDeque<Descriptor> q) {
        Descriptor d = q.peekFirst();
        if (d != null && d.isDone()) {
            return q.pollFirst();
        }
        return null;
    }

    /** VipSendWait: waits for the head of the send queue to complete; TIMEOUT otherwise. */
    public Descriptor sendWait(Duration timeout) throws InterruptedException {
        return await(sendQueue, timeout);
    }

    /** VipRecvWait: waits for the head of the receive queue to complete; TIMEOUT otherwise. */
    public Descriptor recvWait(Duration timeout) throws InterruptedException {
        return await(recvQueue, timeout);
    }

    /**
     * In polling mode ({@link NicConfig#idle}) a waiter polls the head descriptor, reading the connection's socket
     * itself meanwhile (no reader thread to wake, VIA 6.4.2 polling carried down to the socket), before it blocks.
     */
    private Descriptor await(ArrayDeque<Descriptor> q, Duration timeout) throws InterruptedException {
        IdleStrategy idle = nic.config().idle();
        Descriptor head;
        Link l;
        synchronized (this) {
            head = q.peekFirst();
            l = link;
        }
        if (!idle.blocks() && head != null && !head.isDone()) {
            long start = System.nanoTime();
            long lastWork = start;
            if (l != null) {
                l.beginPolling();
            }
            try {
                for (long now = start; !head.isDone() && now - start < timeout.toNanos(); now = System.nanoTime()) {
                    if (l != null && l.pollInput() > 0) {
                        lastWork = now;
                    } else if (!idle.idle(now - lastWork)) {
                        break;
                    }
                }
            } finally {
                if (l != null) {
                    l.endPolling(head.isDone());
                }
            }
        }
        return block(q, timeout);
    }

    private synchronized Descriptor block(ArrayDeque<Descriptor> q, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        waiters++;
        try {
            for (;;) {
                Descriptor d = q.peekFirst();
                if (d != null && d.isDone()) {
                    return q.pollFirst();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ViException(ViException.Code.TIMEOUT, "no completion within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        } finally {
            waiters--;
        }
    }

    /**
     * VipSendNotify: {@code handler} gets the head send descriptor (dequeued) when it completes, on the
     * provider's thread; at once if it already has.
     */
    public void sendNotify(Consumer<Descriptor> handler) {
        Descriptor d;
        synchronized (this) {
            d = done(sendQueue);
            if (d == null) {
                sendNotify = handler;
                return;
            }
        }
        handler.accept(d);
    }

    /** VipRecvNotify: as {@link #sendNotify} for the receive queue. */
    public void recvNotify(Consumer<Descriptor> handler) {
        Descriptor d;
        synchronized (this) {
            d = done(recvQueue);
            if (d == null) {
                recvNotify = handler;
                return;
            }
        }
        handler.accept(d);
    }

    /** VipDestroyVi: only while Idle with empty work queues (VIA 3.3, 5.1). */
    public void destroy() {
        synchronized (this) {
            if (destroyed) {
                return;
            }
            if (state != ViState.IDLE) {
                throw new ViException(ViException.Code.INVALID_STATE, "destroy in state " + state);
            }
            if (!sendQueue.isEmpty() || !recvQueue.isEmpty()) {
                throw new ViException(ViException.Code.INVALID_STATE, "descriptors remain on the work queues");
            }
            destroyed = true;
        }
        nic.viDestroyed(this);
    }

    synchronized int queuedDescriptors() {
        return sendQueue.size() + recvQueue.size();
    }

    @Override
    public String toString() {
        return "Vi[" + attributes.reliabilityLevel() + ", " + state + "]";
    }
}

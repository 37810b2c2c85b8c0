package io.vibridge.gateway.bridge;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.gateway.ib.FlowC0Channel;
import io.vibridge.gateway.ib.WrId;
import io.vibridge.gateway.log.ConnectionLogger;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The InfiniBand side of one bridged connection: its CQ, RC QP and CM id and their {@link LegState}; the
 * client's staged messages go out through its {@link TargetSends} (DESIGN "Operation mapping"), the
 * target's arrive through a {@link FlowC0Channel} (CM-MAPPING §4, or the bare FlowC 1 channel); the
 * demultiplexing of completions by {@link WrId}; and the flush accounting that says when the QP may be
 * destroyed. It speaks the verbs SPI only: what a completion means for the VI side is its {@link Events}
 * owner's business. Confined to the connection's event loop (the provider delivers completion
 * notifications and CM events there through {@code onContext}).
 */
final class TargetSide {
    private final Logger log;

    /** What the InfiniBand side reports, one method per event. */
    interface Events {
        /** A CM event of the connection (REP, REJ, timeout, DREQ, TimeWait exit). */
        void cmEvent(CmEvent event);

        /** Every work request of client slot {@code slot} completed successfully. */
        void clientMessageDone(int slot);

        /** A work request of client slot {@code slot} failed (not flushed): the QP is in ERROR. */
        void clientMessageFailed(int slot, WcStatus status);

        /** The last outstanding work request of client slot {@code slot} ended after a failure: free it. */
        void clientMessageEnded(int slot);

        /** The RDMA READ of client slot {@code slot} completed: its Read Response may go out. */
        void readDone(int slot);

        /**
         * A target message was polled (before it is looked at): whatever the target issued before it goes
         * first (IBA 9.5).
         */
        void targetReceivePolled();

        /** A target SEND, in its receive slot. */
        void targetMessage(TargetOp.Send send);

        /** A notification's completions were all polled and reported. */
        void completionsPolled();

        /** The InfiniBand side cannot go on (a control or receive error, a hostile target, a failed post). */
        void failed(WcStatus status);

        /** The queue pair went to ERROR outside any completion (a device async event); {@code why} says which. */
        void failed(String why);
    }

    private final long connId;
    private final Events events;
    private final StagingSlots slots;
    private final int receiveSize;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final FlowC0Channel channel;
    private final TargetSends sends;
    private final boolean cutThrough;
    private CmId cmId;
    private final WorkCompletion[] wcs = new WorkCompletion[32];
    private LegState leg = LegState.CONNECTING;
    /** A work request of ours failed (not flushed), or the queue pair's ERROR was already reported. */
    private boolean ownFailure;
    /** The refusal of the target's RDMA was counted (the async event and the flush may both tell). */
    private final AtomicBoolean refusalCounted = new AtomicBoolean();
    /** A completion arrived since the last keepalive tick. */
    private boolean active;
    private final BridgeContext shared;
    private final Executor onContext;

    /**
     * Creates the CQ and QP and posts a receive in every receive slot (the bufs the Hello advertises).
     * {@code handler} (may be null) is installed as the QP's remote-access handler when the provider can
     * ({@link #cutThrough()}).
     */
    TargetSide(long connId, BridgeContext shared, StagingSlots slots, int receiveSize, boolean flowC0,
               Events events, Executor onContext, QueuePairAccessHandler handler) {
        this.connId = connId;
        this.log = ConnectionLogger.of(TargetSide.class, connId);
        this.events = events;
        this.slots = slots;
        this.receiveSize = receiveSize;
        MemoryRegion controlRegion = shared.pool.controlRegion();
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        int sendWr = 2 * slots.clientSlots + 8;
        VerbsDevice device = shared.device;
        cq = device.createCompletionQueue(sendWr + slots.recvSlots + 8);
        cq.onNotify(this::onCqNotify, onContext);
        qp = shared.pd.createQueuePair(new QpInitAttributes(cq, cq, sendWr, slots.recvSlots + 1));
        channel = flowC0
                ? FlowC0Channel.of(qp, controlRegion, shared.pool.controlOffset(slots.controlBlock),
                        WrId.of(TargetWork.CREDIT, 0))
                : FlowC0Channel.bare(qp);
        sends = new TargetSends(connId, log, events, slots, shared.metrics, qp, channel, controlRegion);
        boolean installed = false;
        if (handler != null && shared.config.infiniband().cutThrough()
                && device.capabilities().contains(Capability.REMOTE_ACCESS_HANDLER)) {
            try {
                qp.setAccessHandler(handler); // every inbound RDMA on this QP: forwarded to the client
                installed = true;
            } catch (UnsupportedOperationException e) {
                installed = false;
            }
        }
        cutThrough = installed;
        this.shared = shared;
        this.onContext = onContext;
        shared.registerQueuePair(qp.qpNum(), this);
        for (int l = 0; l < slots.recvSlots; l++) {
            postReceive(l);
        }
        cq.requestNotify(false);
    }

    /** The queue pair as the verbs provider reports it, for the admin listing (any thread). */
    QpInfo qpInfo() {
        return qp.info();
    }

    /** The queue pair's number, which the device's async events name (any thread). */
    int qpNum() {
        return qp.qpNum();
    }

    /** Whether target RDMA reaches the client (cut-through allowed and the provider took the remote-access handler). */
    boolean cutThrough() {
        return cutThrough;
    }

    /** Sends the CM REQ; CM events come back through {@link Events#cmEvent} on {@code onContext}. */
    void connect(VerbsDevice device, ConnectParams params, Executor onContext) {
        cmId = device.connectionManager().connect(params, qp, this::cmEvent, onContext);
    }

    /**
     * The RC connection is established: staged messages may go. With FlowC 0 the credits start from the
     * target's bufs in its HelloReply and our receive slots (CM-MAPPING §4).
     */
    void established(int targetBufs) {
        leg = leg.onEstablished();
        channel.start(new FlowCredits(targetBufs, slots.recvSlots));
    }

    // ---------------------------------------------------------------------------- client -> target

    /** Posts staged client messages to the target in order ({@link LegState#posts}); FlowC 0 ones wait for credits. */
    void postStaged() {
        if (leg.posts()) {
            sends.postStaged();
        }
    }

    /** Reposts the receive of target slot {@code l}; the target learns of it from our next header. */
    void repost(int l) {
        if (!leg.reposts()) {
            return;
        }
        postReceive(l);
        postStaged(); // a data Send carries the news itself
        channel.maybeSendCreditUpdate(); // else a credit update, if the target believes it is short
    }

    private void postReceive(int l) {
        channel.postReceive(WrId.of(TargetWork.RECV, l), slots.region[l], slots.base[l],
                Math.min(receiveSize, slots.slotSize()));
    }

    /**
     * An RC QP with nothing outstanding never learns that its peer vanished (IBA has no keepalive), so a VI
     * client waiting for the target would wait for ever. Every {@code infiniband.keepalive} a connection whose
     * InfiniBand side saw no completion and has nothing in flight sends a zero-length RDMA WRITE
     * ({@link TargetSends#probe}): it is acknowledged by any responder with remote write access (rdma_cm grants
     * it to every RC QP, cm.c cm_init_qp_init_attr), and a dead target fails it after the retry count, which
     * closes the client connection like any InfiniBand error.
     */
    void keepaliveTick() {
        boolean quiet = !active;
        active = false;
        if (quiet && !leg.down() && sends.idle()) {
            sends.probe();
        }
    }

    // ---------------------------------------------------------------------------- completions

    private void onCqNotify() {
        drain();
        if (leg != LegState.CLOSED) {
            cq.requestNotify(false);
            drain();
        }
        events.completionsPolled();
    }

    /** Polls every completion and reports it (stops early once the side was closed meanwhile). */
    void drain() {
        if (leg == LegState.CLOSED) {
            return;
        }
        int n;
        while ((n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                onCompletion(wcs[i]);
                if (leg == LegState.CLOSED) {
                    return;
                }
            }
        }
    }

    private void onCompletion(WorkCompletion wc) {
        active = true;
        TargetWork kind = WrId.kind(wc.wrId, TargetWork.ALL);
        int l = WrId.slot(wc.wrId);
        if (kind == TargetWork.RECV) {
            onReceive(l, wc);
            return;
        }
        if (wc.status != WcStatus.SUCCESS && wc.status != WcStatus.WR_FLUSH_ERROR) {
            ownFailure = true;
        }
        sends.completed(kind, l, wc);
    }

    /** A target SEND, credit update or WRITE WITH IMMEDIATE consumed the receive of slot {@code l}. */
    private void onReceive(int l, WorkCompletion wc) {
        if (wc.status == WcStatus.SUCCESS) {
            events.targetReceivePolled();
        }
        FlowC0Channel.Inbound in;
        try {
            in = channel.onReceive(wc, slots.buffer[l], slots.base[l]);
        } catch (CmFormatException e) {
            log.warn("conn {} target sent a bad flow-control header: {}", connId, e.getMessage());
            events.failed(WcStatus.REMOTE_INVALID_REQUEST);
            return;
        }
        switch (in) {
            case FAILED -> {
                if (wc.status != WcStatus.WR_FLUSH_ERROR) {
                    events.failed(wc.status);
                } else if (errorUnexplained() && !(cmId != null && cmId.peerDisconnected())) {
                    flushedByTheDevice();
                }
            }
            case WRITE_WITH_IMMEDIATE -> {
                // a target RDMA WRITE WITH IMMEDIATE: its data and immediate went to the client through the
                // cut-through handler; the receive it consumed is reposted (FlowC 0: one mseq, CM-MAPPING §4)
                if (!cutThrough) {
                    log.warn("conn {} target RDMA WRITE WITH IMMEDIATE without cut-through: closing", connId);
                    events.failed(WcStatus.REMOTE_INVALID_REQUEST);
                    return;
                }
                repost(l);
            }
            case CREDIT_UPDATE -> repost(l); // the target's mseqack may have freed credits too
            case MESSAGE -> {
                postStaged(); // the target's mseqack may have freed credits
                channel.maybeSendCreditUpdate();
                int h = channel.headroom();
                events.targetMessage(new TargetOp.Send(l, h, wc.byteLength - h, wc.hasImmediate, wc.immediate,
                        wc.solicited, wc.hasInvalidate, wc.invalidatedRkey));
            }
        }
    }

    // ---------------------------------------------------------------------------- teardown

    /** The InfiniBand side ended or is failing (a DREQ, a REJ, an error): nothing new is posted. */
    void markDown() {
        leg = leg.onDown();
    }

    /** Whether the side ended, is failing or is closed: nothing new is posted. */
    boolean down() {
        return leg.down();
    }

    /** Whether a CM REQ went out (so a DREQ, a REJ or a timeout must end it). */
    boolean connectStarted() {
        return cmId != null;
    }

    /** Sends the CM DREQ once (the QP goes to ERROR and its work requests flush); false without a CM id. */
    boolean disconnect() {
        if (cmId == null) {
            return false;
        }
        LegState next = leg.onDisconnect();
        if (next != leg) {
            leg = next;
            try {
                cmId.disconnect();
            } catch (RuntimeException e) {
                log.debug("conn {} disconnect: {}", connId, e.toString());
            }
        }
        return true;
    }

    /** Whether our DREQ went out (and the side is not closed). */
    boolean disconnectSent() {
        return leg.disconnectSent();
    }

    /**
     * Moves the QP to ERROR if work is still posted and counts the flushes without reporting them;
     * true once nothing is outstanding, so the QP and CQ may be destroyed.
     */
    boolean flushed() {
        drainQuietly();
        if (!idle() && qp.state() != QpState.ERROR) {
            qp.toError();
        }
        drainQuietly();
        return idle();
    }

    /** Nothing posted on the QP any more: no receive, no send, no credit update. */
    private boolean idle() {
        return channel.postedReceives() == 0 && sends.idle();
    }

    private void drainQuietly() {
        int n;
        while ((n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                switch (WrId.kind(wc.wrId, TargetWork.ALL)) {
                    case RECV -> channel.receiveDiscarded();
                    case TargetWork kind -> sends.discarded(kind, wc);
                }
            }
        }
    }

    /** The QP's ERROR has no cause of ours: no failed request, no disconnect, no cut-through refusal. */
    private boolean errorUnexplained() {
        return !cutThrough && leg == LegState.UP && !ownFailure;
    }

    private void cmEvent(CmEvent e) {
        if (e instanceof CmEvent.Disconnected && errorUnexplained() && cmId != null
                && cmId.failedBeforePeerDisconnect()) {
            flushedByTheDevice(); // the QP was in ERROR before the target's DREQ, which came before the flush
        }
        events.cmEvent(e);
    }

    /**
     * A receive flushed while the connection was up and neither side had ended it, and no work request of ours
     * failed: the device moved the queue pair to ERROR as a responder (IBA 9.9.3, class C: an R_Key, access or
     * request error in one of the target's requests), and Linux 6.1's rxe raises no async event for it. Without
     * cut-through that is, in practice, the target RDMA-accessing the client's memory: said at once, counted as the
     * async event would have been, rather than left to the target's disconnect.
     */
    private void flushedByTheDevice() {
        refused("the InfiniBand queue pair went to ERROR with no failed work request of the gateway's: the device "
                + "refused a request of the target's, in practice its RDMA to the client's memory (cut-through), which "
                + "the gateway does not carry on verbs provider " + shared.device.providerName());
    }

    /**
     * The device's async event says the target RDMA-accessed the client's memory, not carried here (any thread):
     * counted at once, unless the queue pair's flush told first, and the connection fails unless it is ending.
     */
    void targetRdmaRefused(String why) {
        countRefusal();
        asyncError(why);
    }

    /** The queue pair's flush told of the refusal: counted, and the end. */
    private void refused(String why) {
        ownFailure = true;
        countRefusal();
        events.failed(why);
    }

    /** Once per connection, whichever tells first (the async event or the queue pair's flush). */
    private void countRefusal() {
        if (refusalCounted.compareAndSet(false, true)) {
            shared.metrics().targetRdmaRefused();
        }
    }

    /**
     * The device reported this queue pair in ERROR by itself (any thread): the connection fails on its own context,
     * unless it is going down already.
     */
    void asyncError(String why) {
        onContext.execute(() -> {
            if (!leg.down()) {
                events.failed(why);
            }
        });
    }

    /** Destroys the QP and CQ. */
    void close() {
        if (leg == LegState.CLOSED) {
            return;
        }
        leg = LegState.CLOSED;
        shared.unregisterQueuePair(qp.qpNum(), this);
        try {
            qp.close();
        } catch (RuntimeException e) {
            log.debug("conn {} QP close: {}", connId, e.toString());
        }
        try {
            cq.close();
        } catch (RuntimeException e) {
            log.debug("conn {} CQ close: {}", connId, e.toString());
        }
    }

    @Override
    public String toString() {
        FlowCredits c = channel.credits();
        return "leg=" + leg + " postedRecvs=" + channel.postedReceives() + " " + sends
                + (c == null ? "" : " credits=" + c.credits() + " unacked=" + c.unacknowledged()
                        + " peerBufs=" + c.peerBufs() + " peerView=" + c.peerCredits());
    }
}

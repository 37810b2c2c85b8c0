package io.vibridge.gateway.bridge;

import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectionPeer;
import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The VI engine's view of the bridge ({@link ConnectionPeer}): the client's messages land in
 * staging slots and go to the {@link TargetSide} in order; the target's SENDs leave their receive
 * slots as VI Sends. The engine admits a new client message only with a free slot
 * ({@link #admitMessage}), which is the gateway's backpressure (DESIGN "End-to-end semantics").
 * Establishment and breakage go to the connection's {@link Lifecycle}.
 */
final class EnginePeer implements ConnectionPeer, TargetOrder.Client {
    private static final int HEADROOM = StagingSlots.HEADROOM;

    /** The connection events the engine raises, and what this peer asks of the connection. */
    interface Lifecycle {
        void connectRequested();

        void connectFailed(ConnectFailure failure, int isCode);

        void broken(BreakCause cause, int viErrorType, int isCode);

        /** Whether the connection drains (no new client message is admitted). */
        boolean draining();

        /** A client slot came back, or a target SEND went out: the connection may have drained. */
        void slotFreed();
    }

    private final GatewayMetrics metrics;
    private final Lifecycle lifecycle;
    private ViConnection engine;
    private StagingSlots slots;
    private TargetSide target;
    private SlotReceive[] receives;
    /** Outbound work whose operation completed, bound again for the next one (no allocation per message). */
    private final ArrayDeque<ViWork> spareWork = new ArrayDeque<>();
    private boolean admissionStalled;
    /** Read Responses written whose slots are not freed yet ({@link #afterWritten}). */
    private int readResponsesWritten;
    /** The RDMA Write whose payload is being placed, or -1. */
    private int curWrite = -1;
    /**
     * Reliable Reception end to end (VITCP-PROFILE §6): the engine runs with manual inbound completion
     * and acknowledges a client Send or RDMA Write only once its InfiniBand work completed.
     */
    private boolean reliableReception;

    EnginePeer(GatewayMetrics metrics, Lifecycle lifecycle) {
        this.metrics = metrics;
        this.lifecycle = lifecycle;
    }

    void engine(ViConnection engine) {
        this.engine = engine;
    }

    /** The staging and the target side exist (the connection was routed and its QP created). */
    void attach(StagingSlots slots, TargetSide target) {
        this.slots = slots;
        this.target = target;
        int per = slots.op.length;
        receives = new SlotReceive[per];
        for (int l = 0; l < per; l++) {
            receives[l] = new SlotReceive(l);
        }
    }

    /** The VI connection was accepted: Reliable Reception acknowledges only what completed on InfiniBand. */
    void accepted(boolean reliableReception) {
        this.reliableReception = reliableReception;
        if (reliableReception) {
            engine.manualInboundCompletion(true);
        }
    }

    // ---------------------------------------------------------------------------- client -> target

    @Override
    public boolean admitMessage(SegmentType type, int messageNumber) {
        if (lifecycle.draining()) {
            return false; // no new message once draining
        }
        if (slots.admit()) {
            admissionStalled = false;
            return true;
        }
        if (!admissionStalled) { // one stall per waiting message, however often the engine asks again
            admissionStalled = true;
            metrics.creditStall(Direction.CLIENT_TO_TARGET);
        }
        return false;
    }

    @Override
    public InboundReceive takeReceive() {
        throw new IllegalStateException("the engine names the message (takeReceive(type, messageNumber))");
    }

    @Override
    public InboundReceive takeReceive(SegmentType type, int messageNumber) {
        if (type.isRdmaWrite()) { // RDMA Write Unordered too (seed 002; the engine passes ordered types, §9.10)
            return ImmReceive.INSTANCE; // the immediate of an RDMA Write: its slot holds the write already
        }
        int l = slots.takeAdmitted();
        if (l < 0) {
            return null; // defensive: admission reserved one (VI receive queue empty)
        }
        slots.op[l] = Op.SEND;
        slots.msgNo[l] = messageNumber;
        return receives[l];
    }

    @Override
    public int checkRemoteAccess(long address, int handle, long length, boolean write) {
        throw new IllegalStateException("the engine names the message (checkRemoteAccess(messageNumber, ...))");
    }

    @Override
    public int checkRemoteAccess(int messageNumber, long address, int handle, long length, boolean write) {
        // the target checks access itself (its NAK comes back as an InfiniBand completion error)
        int l = slots.takeAdmitted();
        if (l < 0) {
            return IsCode.RESOURCES_EXHAUSTED;
        }
        slots.raddr[l] = address;
        slots.rkey[l] = handle;
        slots.len[l] = (int) length;
        slots.placed[l] = 0;
        slots.msgNo[l] = messageNumber;
        slots.hasImm[l] = false;
        slots.pendingWr[l] = 0;
        if (write) {
            slots.op[l] = Op.WRITE;
            curWrite = l;
        } else {
            slots.op[l] = Op.READ;
            slots.readReady[l] = false;
            slots.pushRead(l);
            stage(l);
        }
        return 0;
    }

    @Override
    public void rdmaPlace(long address, int handle, ByteBuffer src) {
        int l = curWrite;
        int n = src.remaining();
        int off = slots.base[l] + HEADROOM + (int) (address - slots.raddr[l]);
        slots.buffer[l].put(off, src, src.position(), n);
        slots.placed[l] += n;
    }

    @Override
    public void rdmaWritePlaced(int messageNumber, boolean hasImmediate, int immediateData) {
        int l = curWrite;
        curWrite = -1;
        slots.hasImm[l] = hasImmediate;
        slots.imm[l] = immediateData;
        stage(l);
    }

    @Override
    public void receiveCompleted(InboundReceive receive, int status, long length, int immediate) {
        if (receive == ImmReceive.INSTANCE) {
            return;
        }
        int l = ((SlotReceive) receive).slot;
        if (Status.isError(status)) {
            freeClientSlot(l);
            return;
        }
        slots.len[l] = (int) length;
        slots.hasImm[l] = (status & Status.IMMEDIATE) != 0;
        slots.imm[l] = immediate;
        stage(l);
    }

    private void stage(int l) {
        slots.enqueue(l);
        target.postStaged();
    }

    /** The client message in slot {@code l} completed on InfiniBand. */
    void clientMessageDone(int l) {
        metrics.message(Direction.CLIENT_TO_TARGET, slots.op[l] == Op.SEND ? Operation.SEND : Operation.RDMA_WRITE,
                slots.len[l]);
        if (reliableReception && engine.state() == ViConnection.State.CONNECTED) {
            engine.inboundCompleted(slots.msgNo[l]); // now the client may have its Message ACK
        }
        freeClientSlot(l);
    }

    void freeClientSlot(int l) {
        if (slots.free(l) && engine.state() == ViConnection.State.CONNECTED) {
            engine.receivePosted(); // the client's credit comes back (VITCP-PROFILE §6)
        }
        lifecycle.slotFreed();
    }

    /**
     * The InfiniBand work of the client's message in slot {@code l} failed: the engine handles it per
     * reliability level as a receiver-detected error for that message (VITCP-PROFILE §6); true when
     * Reliable Reception reports it to the client before the connection closes.
     */
    boolean clientMessageFailed(int l, int viErrorType) {
        if (engine.state() != ViConnection.State.CONNECTED) {
            return false;
        }
        engine.failInbound(slots.msgNo[l], viErrorType, IsCode.REMOTE_TRANSPORT_ERROR);
        return reliableReception;
    }

    /** The InfiniBand READ of slot {@code l} completed: the Read Response can go out now. */
    void readDone() {
        engine.readSourceReady();
    }

    @Override
    public ByteBuffer rdmaSource(long address, int handle, int length) {
        int l = slots.oldestRead();
        if (!slots.readReady[l]) {
            return null; // the InfiniBand READ has not completed: the engine waits for readSourceReady()
        }
        int off = HEADROOM + (int) (address - slots.raddr[l]);
        ByteBuffer v = slots.views[l];
        v.limit(off + length).position(off);
        return v;
    }

    @Override
    public void readResponseWritten(int messageNumber) {
        readResponsesWritten++; // its slot is freed once written() returned: freeing calls into the engine
    }

    /** After the engine's {@code written()}: frees the slots of the Read Responses that went out. */
    void afterWritten() {
        while (readResponsesWritten > 0) {
            readResponsesWritten--;
            int l = slots.popRead();
            metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, slots.len[l]);
            freeClientSlot(l);
        }
    }

    // ---------------------------------------------------------------------------- target -> client

    @Override
    public boolean up() {
        return engine.state() == ViConnection.State.CONNECTED;
    }

    @Override
    public void forward(TargetOp.Rdma op) {
        post(op);
    }

    /** Hands the target SEND in receive slot {@code l} to the engine as a VI Send. */
    void targetMessage(int l, int offset, int length, boolean hasImmediate, int immediate) {
        slots.op[l] = Op.SEND;
        post(new TargetOp.Send(l, offset, length, hasImmediate, immediate));
    }

    private void post(TargetOp op) {
        ViWork w = spareWork.poll();
        engine.post((w == null ? new ViWork(slots) : w).bind(op));
    }

    @Override
    public void workCompleted(OutboundWork work, int status, long length) {
        ViWork w = (ViWork) work;
        TargetOp op = w.op;
        spareWork.add(w.bind(null));
        boolean ok = !Status.isError(status);
        switch (op) {
            case TargetOp.Send s -> {
                if (ok) {
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.SEND, s.length());
                }
                slots.op[s.slot()] = Op.NONE;
                target.repost(s.slot()); // the client took it: the target may send again into this slot
            }
            case TargetOp.Rdma r -> {
                if (ok) {
                    metrics.message(Direction.TARGET_TO_CLIENT,
                            r instanceof TargetOp.Read ? Operation.RDMA_READ : Operation.RDMA_WRITE, r.length());
                }
                r.finish(ok);
            }
        }
        lifecycle.slotFreed();
    }

    // ---------------------------------------------------------------------------- lifecycle

    @Override
    public void connectRequested(ViConnection connection) {
        lifecycle.connectRequested();
    }

    @Override
    public void connected(ViConnection connection) {
        // reported by the connection itself (accept() runs there)
    }

    @Override
    public void connectFailed(ViConnection connection, ConnectFailure failure, int isCode) {
        lifecycle.connectFailed(failure, isCode);
    }

    @Override
    public void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode) {
        lifecycle.broken(cause, viErrorType, isCode);
    }

    // ---------------------------------------------------------------------------- descriptors

    /** A client Send lands in a client slot, after the room for the FlowC 0 header. */
    private final class SlotReceive implements InboundReceive {
        final int slot;

        SlotReceive(int slot) {
            this.slot = slot;
        }

        @Override
        public long capacity() {
            return slots.payloadCapacity();
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            slots.buffer[slot].put(slots.base[slot] + HEADROOM + (int) offset, src, src.position(), src.remaining());
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
}

package io.vibridge.gateway.bridge.vi;

import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.bridge.TargetOp;
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
 * staging slots and are staged for the target in order ({@link FrontEnd.Host#stage}); what the target
 * issued leaves as VI Sends, RDMA Writes and Read Requests ({@link ViWork}). The engine admits a new
 * client message only with a free slot ({@link #admitMessage}, {@link FrontEnd.Host#admit}), which is
 * the gateway's backpressure (DESIGN "End-to-end semantics"). Establishment and breakage go to the
 * front end's {@link Lifecycle}.
 */
final class EnginePeer implements ConnectionPeer {
    private static final int HEADROOM = StagingSlots.HEADROOM;

    /** The connection events the engine raises. */
    interface Lifecycle {
        void connectRequested();

        void connectFailed(ConnectFailure failure, int isCode);

        void broken(BreakCause cause, int viErrorType, int isCode);
    }

    private final GatewayMetrics metrics;
    private final Lifecycle lifecycle;
    private ViConnection engine;
    private StagingSlots slots;
    private FrontEnd.Host host;
    private SlotReceive[] receives;
    /** Outbound work whose operation completed, bound again for the next one (no allocation per message). */
    private final ArrayDeque<ViWork> spareWork = new ArrayDeque<>();
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

    /** The staging exists (the connection was routed and its QP created); {@code host} posts what is staged. */
    void attach(StagingSlots slots, FrontEnd.Host host) {
        this.slots = slots;
        this.host = host;
        int per = slots.slotCount();
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
        return host.admit();
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
        slots.beginSend(l, messageNumber);
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
        if (write) {
            slots.beginWrite(l, messageNumber, address, handle, (int) length);
            curWrite = l;
        } else {
            slots.beginRead(l, messageNumber, address, handle, (int) length);
            host.stage(l);
        }
        return 0;
    }

    @Override
    public void rdmaPlace(long address, int handle, ByteBuffer src) {
        int l = curWrite;
        slots.place(l, (int) (address - slots.remoteAddress(l)), src, src.position(), src.remaining());
    }

    @Override
    public void rdmaWritePlaced(int messageNumber, boolean hasImmediate, int immediateData) {
        int l = curWrite;
        curWrite = -1;
        slots.ended(l, slots.length(l), hasImmediate, immediateData);
        host.stage(l);
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
        slots.ended(l, (int) length, (status & Status.IMMEDIATE) != 0, immediate);
        host.stage(l);
    }

    /** The client message in slot {@code l} completed on InfiniBand. */
    void clientMessageDone(int l) {
        metrics.message(Direction.CLIENT_TO_TARGET, slots.op(l) == Op.SEND ? Operation.SEND : Operation.RDMA_WRITE,
                slots.length(l));
        if (reliableReception && engine.state() == ViConnection.State.CONNECTED) {
            engine.inboundCompleted(slots.messageNumber(l)); // now the client may have its Message ACK
        }
        freeClientSlot(l);
    }

    void freeClientSlot(int l) {
        if (slots.free(l) && engine.state() == ViConnection.State.CONNECTED) {
            engine.receivePosted(); // the client's credit comes back (VITCP-PROFILE §6)
        }
        host.slotFreed(); // a client slot came back, or a target operation went out
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
        engine.failInbound(slots.messageNumber(l), viErrorType, IsCode.REMOTE_TRANSPORT_ERROR);
        return reliableReception;
    }

    /** The InfiniBand READ of slot {@code l} completed: the Read Response can go out now. */
    void readDone() {
        if (engine.state() != ViConnection.State.CONNECTED) {
            // no Read Response goes out any more: the READs that completed free their slots, in order
            while (slots.reads() > 0 && slots.readReady(slots.oldestRead())) {
                freeClientSlot(slots.popRead());
            }
            return;
        }
        engine.readSourceReady();
    }

    @Override
    public ByteBuffer rdmaSource(long address, int handle, int length) {
        int l = slots.oldestRead();
        if (!slots.readReady(l)) {
            return null; // the InfiniBand READ has not completed: the engine waits for readSourceReady()
        }
        int off = HEADROOM + (int) (address - slots.remoteAddress(l));
        ByteBuffer v = slots.view(l);
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
            metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, slots.length(l));
            freeClientSlot(l);
        }
    }

    // ---------------------------------------------------------------------------- target -> client

    /** Hands an operation of the target to the engine: a VI Send, RDMA Write or RDMA Read Request. */
    void post(TargetOp op) {
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
                host.delivered(s.slot()); // the client took it: the target may send again into this slot
            }
            case TargetOp.Rdma r -> {
                if (ok) {
                    metrics.message(Direction.TARGET_TO_CLIENT,
                            r instanceof TargetOp.Read ? Operation.RDMA_READ : Operation.RDMA_WRITE, r.length());
                }
                r.finish(ok);
            }
        }
        host.slotFreed(); // a client slot came back, or a target operation went out
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
            slots.place(slot, (int) offset, src, src.position(), src.remaining());
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

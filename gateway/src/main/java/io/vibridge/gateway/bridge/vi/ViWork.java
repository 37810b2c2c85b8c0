package io.vibridge.gateway.bridge.vi;

import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.bridge.TargetOp;
import io.vibridge.vitcp.engine.OrderingHint;
import io.vibridge.vitcp.engine.OutboundWork;
import java.nio.ByteBuffer;

/**
 * A {@link TargetOp} as the VI engine's outbound work: a target SEND as a VI Send out of its receive
 * slot, a target RDMA WRITE packet as a VI RDMA Write, a target READ as a VI RDMA Read Request, each to
 * the client's address with handle = the target's rkey. Reused: the connection keeps the ones whose work
 * completed ({@link #op} is null then) and binds them again, so forwarding allocates nothing.
 */
final class ViWork implements OutboundWork {
    private final StagingSlots slots;
    /** The operation, or null while this work waits to be reused. */
    TargetOp op;
    private int number;

    ViWork(StagingSlots slots) {
        this.slots = slots;
    }

    ViWork bind(TargetOp op) {
        this.op = op;
        return this;
    }

    @Override
    public int operation() {
        return switch (op) {
            case TargetOp.Send s -> OP_SEND;
            case TargetOp.Write w -> OP_RDMA_WRITE;
            case TargetOp.Read r -> OP_RDMA_READ;
        };
    }

    @Override
    public boolean hasImmediate() {
        return switch (op) {
            case TargetOp.Send s -> s.hasImmediate();
            case TargetOp.Write w -> w.hasImmediate();
            case TargetOp.Read r -> false;
        };
    }

    @Override
    public int immediateData() {
        return switch (op) {
            case TargetOp.Send s -> s.immediate();
            case TargetOp.Write w -> w.immediate();
            case TargetOp.Read r -> 0;
        };
    }

    @Override
    public boolean queueFence() {
        return false;
    }

    @Override
    public OrderingHint orderingHint() {
        // an RC responder executes the target's requests in order (IBA 9.5): the client gets them fully ordered,
        // with no seed-002 hint
        return OrderingHint.ORDERED;
    }

    @Override
    public long length() {
        return switch (op) {
            case TargetOp.Send s -> s.length();
            case TargetOp.Rdma r -> r.length();
        };
    }

    @Override
    public long remoteAddress() {
        return op instanceof TargetOp.Rdma r ? r.remoteAddress() : 0;
    }

    @Override
    public int remoteHandle() {
        return op instanceof TargetOp.Rdma r ? r.remoteKey() : 0;
    }

    @Override
    public int gather(long offset, int n, ByteBuffer[] out, int index) {
        out[index] = switch (op) {
            case TargetOp.Send s -> {
                ByteBuffer v = slots.view(s.slot());
                int p = s.offset() + (int) offset;
                yield v.limit(p + n).position(p);
            }
            case TargetOp.Write w -> w.data((int) offset, n);
            case TargetOp.Read r -> throw new IllegalStateException("a Read Request has no payload");
        };
        return 1;
    }

    @Override
    public void scatter(long offset, ByteBuffer src) {
        if (!(op instanceof TargetOp.Read r)) {
            throw new IllegalStateException("not a read");
        }
        r.place(offset, src, src.position(), src.remaining());
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

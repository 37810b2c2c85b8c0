package io.vibridge.gateway.bridge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReadResponder;
import io.vibridge.vitcp.engine.OrderingHint;
import io.vibridge.vitcp.engine.OutboundWork;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cut-through of target-initiated RDMA (DESIGN "Operation mapping"): the target writes or reads the
 * client's memory with the client's VI address and memory handle, learned through application
 * Sends. The handler is attached to the connection's queue pair, so every inbound RDMA WRITE/READ
 * lands here whatever its rkey (the gateway's staging memory is never remotely reachable). It runs
 * on the provider's receive thread: it decides from a thread-safe byte budget, copies the packet
 * into a pooled buffer and queues it for the bridge's event loop, which forwards each WRITE packet
 * as one VI RDMA Write (same address, handle = rkey) and each READ as one VI RDMA Read Request.
 * Over the budget a WRITE packet is refused: the target's requester retransmits it later.
 *
 * <p>Order (IBA 9.5: an RC responder executes requests in order, so the client must see them in
 * order): the provider tells the handler of every receive completion it queues, in order with the RDMA
 * ({@link #onReceiveQueued}), so each operation carries {@link Op#receivesBefore}, the number of target
 * messages that preceded it. The bridge posts an operation to the VI engine only once it has posted
 * those messages, and the engine writes what it is given in order: nothing is refused for order.
 */
final class CutThrough implements QueuePairAccessHandler {
    /** Bytes of cut-through WRITE data one connection may hold on their way to the client. */
    static final long BUDGET = 512 * 1024;

    private final AtomicLong held = new AtomicLong();
    final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();
    private final Runnable wake;
    volatile boolean open = true;
    volatile long maxRead = Long.MAX_VALUE;
    /** Receive completions the provider queued so far (provider thread only). */
    private int receivesQueued;

    CutThrough(Runnable wake) {
        this.wake = wake;
    }

    @Override
    public void onReceiveQueued() {
        receivesQueued++;
    }

    @Override
    public boolean onWrite(long va, int rkey, ByteBuffer payload, boolean first, boolean last, boolean hasImm,
                           int immediate) {
        if (!open) {
            return true; // the client is gone: accepted and dropped, so the target is not held in retransmission
        }
        int n = payload.remaining();
        if (held.get() + n > BUDGET) {
            return false; // backpressure: the packet is dropped unacknowledged and retransmitted later
        }
        held.addAndGet(n);
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(n, 1));
        b.writeBytes(payload.duplicate());
        queue.add(new Op(OutboundWork.OP_RDMA_WRITE, va, rkey, n, b, last && hasImm, immediate, null, this,
                receivesQueued));
        wake.run();
        return true;
    }

    /** Largest target READ forwarded (split into VI RDMA Reads of at most the agreed MTU each). */
    static final int MAX_READ = 16 << 20;

    @Override
    public void onRead(long va, int rkey, int length, ReadResponder responder) {
        if (!open || length > MAX_READ) {
            responder.fail(); // NAK remote access: no client any more, or an unreasonable size
            return;
        }
        if (length <= maxRead) {
            queue.add(new Op(OutboundWork.OP_RDMA_READ, va, rkey, length, null, false, 0, responder, this,
                    receivesQueued));
        } else {
            // a READ longer than one VI message: several VI RDMA Reads, answered together
            int part = (int) maxRead;
            ReadParent parent = new ReadParent(responder, length, (length + part - 1) / part);
            for (int off = 0; off < length; off += part) {
                Op o = new Op(OutboundWork.OP_RDMA_READ, va + off, rkey, Math.min(part, length - off), null, false, 0,
                        null, this, receivesQueued);
                o.parent = parent;
                o.parentOffset = off;
                queue.add(o);
            }
        }
        wake.run();
    }

    /** The parts of one target READ split into several VI RDMA Reads. */
    static final class ReadParent {
        final ReadResponder responder;
        final ByteBuffer data;
        int remaining;
        boolean failed;

        ReadParent(ReadResponder responder, int length, int parts) {
            this.responder = responder;
            this.data = ByteBuffer.allocate(length);
            this.remaining = parts;
        }

        void partDone(boolean ok) {
            remaining--;
            if (failed) {
                return;
            }
            if (!ok) {
                failed = true;
                responder.fail();
            } else if (remaining == 0) {
                responder.complete(data.clear());
            }
        }
    }

    void released(int n) {
        held.addAndGet(-n);
    }

    /** Bytes held right now (tests). */
    long held() {
        return held.get();
    }

    /** One forwarded operation: a VI RDMA Write of one WRITE packet or a VI RDMA Read Request. */
    static final class Op implements OutboundWork {
        final int operation;
        final long va;
        final int rkey;
        final int length;
        ByteBuf data;
        final boolean imm;
        final int immediate;
        final ReadResponder responder;
        final CutThrough owner;
        ByteBuffer readData;
        ReadParent parent;
        int parentOffset;
        /** Target messages (receive completions) that came before this operation: posted after them. */
        final int receivesBefore;
        int number;
        boolean done;

        Op(int operation, long va, int rkey, int length, ByteBuf data, boolean imm, int immediate,
                ReadResponder responder, CutThrough owner, int receivesBefore) {
            this.receivesBefore = receivesBefore;
            this.operation = operation;
            this.va = va;
            this.rkey = rkey;
            this.length = length;
            this.data = data;
            this.imm = imm;
            this.immediate = immediate;
            this.responder = responder;
            this.owner = owner;
        }

        /** Ends the operation: releases the WRITE copy, answers the target's READ (exactly once). */
        void finish(boolean ok) {
            if (done) {
                return;
            }
            done = true;
            if (data != null) {
                data.release();
                data = null;
                owner.released(length);
            }
            if (parent != null) {
                parent.partDone(ok);
            }
            if (responder != null) {
                if (ok) {
                    responder.complete(readData == null ? ByteBuffer.allocate(0) : readData.flip());
                } else {
                    responder.fail();
                }
            }
        }

        @Override
        public int operation() {
            return operation;
        }

        @Override
        public boolean hasImmediate() {
            return imm;
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
        public OrderingHint orderingHint() {
            // an RC responder executes the target's requests in order (IBA 9.5): the client gets them fully ordered
            return OrderingHint.ORDERED;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public long remoteAddress() {
            return va;
        }

        @Override
        public int remoteHandle() {
            return rkey;
        }

        @Override
        public int gather(long offset, int n, ByteBuffer[] out, int index) {
            out[index] = data.nioBuffer((int) offset, n);
            return 1;
        }

        @Override
        public void scatter(long offset, ByteBuffer src) {
            if (parent != null) {
                parent.data.put(parentOffset + (int) offset, src, src.position(), src.remaining());
                return;
            }
            if (readData == null) {
                readData = ByteBuffer.allocate(length);
            }
            readData.put((int) offset, src, src.position(), src.remaining());
            readData.position(Math.max(readData.position(), (int) offset + src.remaining()));
        }

        /** Places {@code n} bytes of the answer to this READ at {@code offset} (the iWARP front end's Read Response). */
        void place(long offset, ByteBuffer src, int srcOff, int n) {
            if (parent != null) {
                parent.data.put(parentOffset + (int) offset, src, srcOff, n);
                return;
            }
            if (readData == null) {
                readData = ByteBuffer.allocate(length);
            }
            readData.put((int) offset, src, srcOff, n);
            readData.position(Math.max(readData.position(), (int) offset + n));
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
}

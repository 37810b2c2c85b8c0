package io.vibridge.gateway.bridge;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReadResponder;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cut-through of target-initiated RDMA (DESIGN "Operation mapping"): the target writes or reads the
 * client's memory with the client's VI address and memory handle, learned through application
 * Sends. The handler is attached to the connection's queue pair, so every inbound RDMA WRITE/READ
 * lands here whatever its rkey (the gateway's staging memory is never remotely reachable). It runs
 * on the provider's receive thread: it decides from a thread-safe byte budget, copies the packet
 * into a pooled buffer and queues it for the bridge's event loop, which hands each WRITE packet and
 * each READ to the front end as a {@link TargetOp} (a VI RDMA Write or Read Request, same address,
 * handle = rkey; or their RDMAP counterparts).
 * Over the budget a WRITE packet is refused: the target's requester retransmits it later.
 *
 * <p>Order (IBA 9.5: an RC responder executes requests in order, so the client must see them in
 * order): the provider tells the handler of every receive completion it queues, in order with the RDMA
 * ({@link #onReceiveQueued}), so each operation carries {@link TargetOp.Rdma#receivesBefore}, the number of target
 * messages that preceded it. The bridge hands an operation on only once it has handed on those
 * messages ({@link TargetOrder}), and front ends write what they are given in order: nothing is refused for order.
 */
final class CutThrough implements QueuePairAccessHandler {
    /** Bytes of cut-through WRITE data one connection may hold on their way to the client. */
    static final long BUDGET = 512 * 1024;

    private final AtomicLong held = new AtomicLong();
    final ConcurrentLinkedQueue<TargetOp.Rdma> queue = new ConcurrentLinkedQueue<>();
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
        queue.add(new TargetOp.Write(va, rkey, b, last && hasImm, immediate, this, receivesQueued));
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
            queue.add(new TargetOp.Read(va, rkey, length, responder, receivesQueued));
        } else {
            // a READ longer than one VI message: several VI RDMA Reads, answered together
            for (TargetOp.Read part : TargetOp.Read.split(va, rkey, length, (int) maxRead, responder, receivesQueued)) {
                queue.add(part);
            }
        }
        wake.run();
    }

    void released(int n) {
        held.addAndGet(-n);
    }

    /** Bytes held right now (tests). */
    long held() {
        return held.get();
    }
}

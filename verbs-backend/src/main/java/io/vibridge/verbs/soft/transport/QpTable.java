package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.port.PacketPort;
import io.vibridge.verbs.soft.resource.KeyTable;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The RC QPs of one device by QP number, and what every QP of it shares: the port, the key table and the
 * requester's limits. Lookup (the receive thread's, per packet) is lock-free and allocation-free.
 */
public final class QpTable {
    final PacketPort port;
    final KeyTable keys;
    /** Send window in PSNs (SoftParams.WINDOW). */
    final int window;
    /** AckReq at least every this many packets (SoftParams.MAX_PKT_PER_ACK). */
    final int maxPktPerAck;
    /** How requesters wait after an RNR NAK (SoftParams option min-rnr-wait-us, max-rnr-wait-us). */
    final RnrBackoff rnrBackoff;
    private final int firstQpn;
    private final AtomicReferenceArray<RcQueuePair> qps;
    /**
     * Slots are handed out in turn from a random start, so QP numbers differ from one process to the next: Linux's
     * CM keeps (remote QPN, CA GUID) of a closed connection through its timewait and rejects a new REQ that
     * repeats them as stale (cm.c: cm_insert_remote_qpn, REJ 10), and our CA GUID is derived from the address.
     */
    private int nextSlot;
    /** Where queue pairs raise their asynchronous events ({@code VerbsDevice.onAsyncEvent}); null: nobody listens. */
    private volatile AsyncSink asyncSink;

    private record AsyncSink(Consumer<AsyncEvent> handler, Executor executor) {
    }

    public QpTable(PacketPort port, KeyTable keys, int firstQpn, int slots, int window, int maxPktPerAck) {
        this(port, keys, firstQpn, slots, window, maxPktPerAck, RnrBackoff.DEFAULT);
    }

    public QpTable(PacketPort port, KeyTable keys, int firstQpn, int slots, int window, int maxPktPerAck,
                   RnrBackoff rnrBackoff) {
        this.port = port;
        this.rnrBackoff = rnrBackoff;
        this.keys = keys;
        this.firstQpn = firstQpn;
        this.qps = new AtomicReferenceArray<>(slots);
        this.window = window;
        this.maxPktPerAck = maxPktPerAck;
        this.nextSlot = ThreadLocalRandom.current().nextInt(slots);
    }

    /** Sets the handler of the queue pairs' asynchronous events (null: none). */
    public void onAsyncEvent(Consumer<AsyncEvent> handler, Executor executor) {
        asyncSink = handler == null ? null : new AsyncSink(handler, executor);
    }

    /** Hands {@code event} to the handler's executor; callers may hold a QP's monitor. */
    void raise(AsyncEvent event) {
        AsyncSink sink = asyncSink;
        if (sink != null) {
            sink.executor().execute(() -> sink.handler().accept(event));
        }
    }

    /** A new QP in INIT on the next free number. */
    public synchronized RcQueuePair create(ProtectionDomain pd, SoftCompletionQueue sendCq, SoftCompletionQueue recvCq,
                                           int maxSend, int maxRecv) {
        int slots = qps.length();
        for (int n = 0; n < slots; n++) {
            int slot = nextSlot;
            nextSlot = (nextSlot + 1) % slots;
            if (qps.get(slot) == null) {
                RcQueuePair qp = new RcQueuePair(this, pd, sendCq, recvCq, firstQpn + slot, maxSend, maxRecv);
                qps.set(slot, qp);
                return qp;
            }
        }
        throw new VerbsException("out of QPs");
    }

    /** The QP numbered {@code qpn}, or null. */
    public RcQueuePair get(int qpn) {
        int slot = qpn - firstQpn;
        return slot >= 0 && slot < qps.length() ? qps.get(slot) : null;
    }

    void remove(RcQueuePair qp) {
        qps.compareAndSet(qp.qpn - firstQpn, qp, null);
    }

    /** Device close: every QP to ERROR (its work requests flushed). */
    public void errorAll() {
        for (int i = 0; i < qps.length(); i++) {
            RcQueuePair qp = qps.get(i);
            if (qp != null) {
                qp.toError();
            }
        }
    }
}

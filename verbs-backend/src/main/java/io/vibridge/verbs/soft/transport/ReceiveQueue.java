package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;

/**
 * The receive queue of one QP: a ring that posters fill on their own threads without the QP's monitor,
 * and the responder empties from the head under it (the receive thread). A consumer reposting one receive
 * per completed SEND would otherwise contend with the receive thread, which holds the QP's monitor for every
 * packet: reposts would block on that monitor and the receive thread pay their wake-ups (JFR shows it on the
 * server of {@code VerbsBench}).
 *
 * <p>Posters serialize on this object's monitor (ibv_post_recv is thread-safe, one lock per RQ in rxe); the
 * head is written only under the QP's monitor. {@link #tail} and {@link #head} are volatile: a WQE's fields,
 * written before the tail moves, are visible to the responder that reads the tail, and a slot is reused
 * only after the head has moved past it. {@link #flush} closes the queue for good (the QP entered the error
 * state): posts after it complete at once with a flush error (IBA 10.8.3.1), none is left behind.
 */
final class ReceiveQueue {
    /** A posted receive. */
    static final class Rwqe {
        long wrId;
        SoftMemoryRegion mr;
        int off;
        int len;
    }

    /** What a flush does with each waiting receive (pushes its flush completion). */
    interface Flushed {
        void flushed(long wrId);
    }

    private final Rwqe[] ring;
    private final int qpn;
    private volatile long head;
    private volatile long tail;
    private boolean closed;                                  // guarded by this

    ReceiveQueue(int qpn, int capacity) {
        this.qpn = qpn;
        this.ring = new Rwqe[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new Rwqe();
        }
    }

    /**
     * Checks and queues {@code wr} (any thread); false when the queue was flushed, the caller then completes
     * it with a flush error.
     */
    boolean post(ReceiveWorkRequest wr, ProtectionDomain pd) {
        SoftMemoryRegion mr = null;
        if (wr.length > 0 || wr.region != null) {
            if (!(wr.region instanceof SoftMemoryRegion m) || m.pd() != pd) {
                throw new IllegalArgumentException("receive memory region missing or of another protection domain");
            }
            if (wr.offset < 0 || wr.length < 0 || wr.offset > m.length() - wr.length) {
                throw new IllegalArgumentException("receive range outside the memory region");
            }
            if (!m.localWrite()) {
                throw new IllegalArgumentException("receive buffers need LOCAL_WRITE access");
            }
            mr = m;
        }
        synchronized (this) {
            if (closed) {
                return false;
            }
            long t = tail;
            if (t - head >= ring.length) {
                throw new VerbsException("receive queue of QP " + qpn + " is full (" + ring.length + ")");
            }
            Rwqe r = ring[(int) (t % ring.length)];
            r.wrId = wr.wrId;
            r.mr = mr;
            r.off = wr.offset;
            r.len = wr.length;
            tail = t + 1;                                    // publishes the fields above
        }
        return true;
    }

    /** True when no receive is posted (responder, under the QP's monitor). */
    boolean isEmpty() {
        return head == tail;
    }

    /** The oldest posted receive; only when not {@link #isEmpty} (responder). */
    Rwqe peek() {
        return ring[(int) (head % ring.length)];
    }

    /** Retires the oldest receive, which {@link #peek} returned; its slot may be reused at once (responder). */
    void remove(Rwqe r) {
        r.mr = null;
        head = head + 1;                                     // single writer: the QP's monitor holder
    }

    /** Closes the queue and hands every waiting receive, oldest first, to {@code action} (under the QP's monitor). */
    synchronized void flush(Flushed action) {
        closed = true;
        for (long h = head; h < tail; h++) {
            Rwqe r = ring[(int) (h % ring.length)];
            long id = r.wrId;
            r.mr = null;
            head = h + 1;
            action.flushed(id);
        }
    }
}

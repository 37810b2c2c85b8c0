package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;

/**
 * An ibv_cq on the device's completion channel. {@link #poll} calls the provider's {@code poll_cq} (verbs.h's
 * inline ibv_poll_cq) into a native ibv_wc array allocated once and decodes into the caller's instances: nothing is
 * allocated per completion. {@link #requestNotify} arms with {@code req_notify_cq} and then polls once, so that a
 * completion already waiting raises the notification at once as the SPI wants (ibv_req_notify_cq alone reports only
 * later ones); that completion is kept and returned first by the next poll.
 */
final class RdmaCoreCompletionQueue implements CompletionQueue {
    static final int BATCH = 64;
    private static final int IBV_WC_WITH_IMM = 1 << 1;
    private static final int IBV_WC_WITH_INV = 1 << 3;
    private final RdmaCoreDevice device;
    final MemorySegment cq;
    private final int capacity;
    private final long index;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final WorkCompletion stash = new WorkCompletion();
    private boolean stashed;
    private boolean closed;
    private volatile Runnable handler;
    private volatile Executor executor;

    RdmaCoreCompletionQueue(RdmaCoreDevice device, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("CQ capacity must be >= 1, got " + capacity);
        }
        this.device = device;
        this.capacity = capacity;
        this.wcs = arena.allocate(IbvLayouts.WC.byteSize() * BATCH, 8);
        this.index = device.register(this);
        MemorySegment c;
        try {
            MemorySegment errno = arena.allocate(Ibv.ERRNO_SIZE);
            c = (MemorySegment) Ibv.CREATE_CQ.invokeExact(errno, device.context, capacity,
                    MemorySegment.ofAddress(index), device.channel, 0);
            if (c.equals(MemorySegment.NULL)) {
                device.unregister(this, index);
                arena.close();
                throw new VerbsException("ibv_create_cq(" + device.name() + ", " + capacity + "): "
                        + Ibv.strerror(Ibv.errno(errno)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        cq = c.reinterpret(IbvLayouts.CQ.byteSize());
        try {
            RdmaCoreCheck.pointsTo("ibv_cq.context", cq, IbvLayouts.off(IbvLayouts.CQ, "context"), device.context);
            RdmaCoreCheck.pointsTo("ibv_cq.channel", cq, IbvLayouts.off(IbvLayouts.CQ, "channel"), device.channel);
            int cqe = cq.get(JAVA_INT, IbvLayouts.off(IbvLayouts.CQ, "cqe"));
            if (cqe < capacity) {
                throw RdmaCoreCheck.mismatch("ibv_cq.cqe reads " + cqe + " for a CQ of " + capacity);
            }
        } catch (VerbsException e) {
            close();
            throw e;
        }
    }

    @Override
    public synchronized int poll(WorkCompletion[] out) {
        if (closed) {
            throw new VerbsException("completion queue is closed");
        }
        int first = 0;
        if (stashed && out.length > 0) {
            out[0].copyFrom(stash);
            stashed = false;
            first = 1;
        }
        int n = Math.min(out.length - first, BATCH);
        if (n <= 0) {
            return first;
        }
        int got;
        try {
            got = (int) Ibv.FP_POLL_CQ.invokeExact(device.pollCq, cq, n, wcs);
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        if (got < 0) {
            throw new VerbsException("ibv_poll_cq failed on " + device.name() + ": " + got);
        }
        for (int i = 0; i < got; i++) {
            decode(wcs, i * IbvLayouts.WC.byteSize(), out[first + i]);
        }
        return first + got;
    }

    /** struct ibv_wc at {@code base} into {@code wc}. */
    static void decode(MemorySegment s, long base, WorkCompletion wc) {
        wc.wrId = s.get(JAVA_LONG, base + IbvLayouts.WC_WR_ID);
        wc.status = WcCodes.status(s.get(JAVA_INT, base + IbvLayouts.WC_STATUS));
        wc.opcode = WcCodes.opcode(s.get(JAVA_INT, base + IbvLayouts.WC_OPCODE));
        wc.byteLength = s.get(JAVA_INT, base + IbvLayouts.WC_BYTE_LEN);
        int flags = s.get(JAVA_INT, base + IbvLayouts.WC_FLAGS);
        wc.hasImmediate = (flags & IBV_WC_WITH_IMM) != 0;
        wc.immediate = wc.hasImmediate ? s.get(WcCodes.INT_BE, base + IbvLayouts.WC_IMM) : 0;
        // the union's other half: a host-order uint32_t, never together with WITH_IMM (ibv_poll_cq(3))
        wc.hasInvalidate = (flags & IBV_WC_WITH_INV) != 0;
        wc.invalidatedRkey = wc.hasInvalidate ? s.get(JAVA_INT, base + IbvLayouts.WC_INVALIDATED_RKEY) : 0;
        wc.qpNum = s.get(JAVA_INT, base + IbvLayouts.WC_QP_NUM);
        wc.solicited = false;                  // ibv_wc does not say (only ibv_wc_ex does)
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        boolean waiting;
        synchronized (this) {
            if (closed) {
                throw new VerbsException("completion queue is closed");
            }
            int rc;
            try {
                rc = (int) Ibv.FP_REQ_NOTIFY_CQ.invokeExact(device.reqNotifyCq, cq, solicitedOnly ? 1 : 0);
            } catch (Throwable t) {
                throw Ibv.bug(t);
            }
            if (rc != 0) {
                throw new VerbsException("ibv_req_notify_cq failed on " + device.name() + ": " + Ibv.strerror(Math.abs(rc)));
            }
            // a completion that arrived before the arm raises no event: look for one (solicitedOnly: any
            // completion waiting is reported too, the conservative reading)
            if (!stashed) {
                int got;
                try {
                    got = (int) Ibv.FP_POLL_CQ.invokeExact(device.pollCq, cq, 1, wcs);
                } catch (Throwable t) {
                    throw Ibv.bug(t);
                }
                if (got == 1) {
                    decode(wcs, 0, stash);
                    stashed = true;
                }
            }
            waiting = stashed;
        }
        if (waiting) {
            notified();
        }
    }

    /** A CQ event (or a completion found at arm time): run the handler once. */
    void notified() {
        Runnable h = handler;
        if (h == null) {
            return;
        }
        Executor ex = executor;
        if (ex != null) {
            ex.execute(h);
        } else {
            h.run();
        }
    }

    @Override
    public void onNotify(Runnable handler, Executor executor) {
        this.executor = executor;
        this.handler = handler;
    }

    @Override
    public void moderate(int count, int periodMicros) {
        if (count < 1 || count > 65535 || periodMicros < 0 || periodMicros > 65535) {
            throw new IllegalArgumentException("moderation count must be 1..65535 and period 0..65535 us, got "
                    + count + ", " + periodMicros);
        }
        if (!device.capabilities().contains(Capability.CQ_MODERATION)) {
            throw new UnsupportedOperationException("completion moderation: " + device.name()
                    + " has no ibv_modify_cq (no CQ_MODERATION)");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(IbvLayouts.MODIFY_CQ_ATTR);
            attr.set(JAVA_INT, 0, 1);                          // IBV_CQ_ATTR_MODERATE
            attr.set(JAVA_SHORT, 4, (short) count);
            attr.set(JAVA_SHORT, 6, (short) periodMicros);
            int rc;
            synchronized (this) {
                rc = (int) Ibv.FP_MODIFY_CQ.invokeExact(device.modifyCq, cq, attr);
            }
            if (rc != 0) {
                throw new VerbsException("ibv_modify_cq(" + count + ", " + periodMicros + ") on " + device.name()
                        + ": " + Ibv.strerror(Math.abs(rc)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.unregister(this, index);
        try {
            int rc = (int) Ibv.DESTROY_CQ.invokeExact(cq);
            if (rc != 0) {
                throw new VerbsException("ibv_destroy_cq on " + device.name() + ": " + Ibv.strerror(Math.abs(rc))
                        + " (a queue pair still uses it?)");
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "rdma-core CQ " + index + " of " + device.name();
    }
}

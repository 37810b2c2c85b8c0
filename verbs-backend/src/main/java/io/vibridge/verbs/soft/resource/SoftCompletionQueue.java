package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completion queue: a fixed ring of completion fields (no allocation per completion). If a producer
 * finds it full the completion is dropped, counted in {@link #overruns()} and logged: size CQs for
 * all the work requests that can be outstanding on the QPs that use them.
 */
public final class SoftCompletionQueue implements CompletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SoftCompletionQueue.class);
    /** Runs handlers armed without an executor of their own: the device's event thread. */
    private final Executor events;
    private final IntSupplier input;
    private final int capacity;
    private final long[] wrId;
    private final WcStatus[] status;
    private final WcOpcode[] opcode;
    private final int[] len;
    private final int[] imm;
    private final int[] qpn;
    private final byte[] flags;
    private long head;
    /** Written under the monitor; read without it by {@link #poll}'s empty fast path. */
    private volatile long tail;
    private long overruns;
    private boolean armed;
    private boolean solicitedOnly;
    private Runnable handler;
    private Executor executor;

    public SoftCompletionQueue(Executor events, int capacity) {
        this(events, capacity, null);
    }

    /**
     * {@code input} (or null): polled on a consumer's thread when {@link #poll} finds the queue empty, the device
     * receiving what waits on its socket there (polling mode; it returns the bytes received). Only while no
     * handler is set ({@link #onNotify}): an event-driven consumer, such as the gateway's event loop, never
     * runs the device's receive path inside its own poll.
     */
    public SoftCompletionQueue(Executor events, int capacity, IntSupplier input) {
        this.input = input;
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1");
        }
        this.events = events;
        this.capacity = capacity;
        wrId = new long[capacity];
        status = new WcStatus[capacity];
        opcode = new WcOpcode[capacity];
        len = new int[capacity];
        imm = new int[capacity];
        qpn = new int[capacity];
        flags = new byte[capacity];
    }

    /** Adds a completion (called by the transport). */
    public void push(long id, WcStatus st, WcOpcode op, int byteLen, boolean hasImm, int immediate, int qp,
                     boolean solicited) {
        Runnable toRun = null;
        Executor ex = null;
        synchronized (this) {
            if (tail - head >= capacity) {
                overruns++;
                LOG.error("completion queue overrun (capacity {}): completion of wr {} dropped", capacity, id);
                return;
            }
            int i = (int) (tail++ % capacity);
            wrId[i] = id;
            status[i] = st;
            opcode[i] = op;
            len[i] = byteLen;
            imm[i] = immediate;
            qpn[i] = qp;
            flags[i] = (byte) ((hasImm ? 1 : 0) | (solicited ? 2 : 0));
            if (armed && handler != null && (!solicitedOnly || solicited || st != WcStatus.SUCCESS)) {
                armed = false;
                toRun = handler;
                ex = executor;
            }
        }
        if (toRun != null) {
            (ex != null ? ex : events).execute(toRun);
        }
    }

    @Override
    public int poll(WorkCompletion[] out) {
        if (tail == headHint && (input == null || eventDriven || input.getAsInt() == 0 || tail == headHint)) {
            return 0;                     // empty: no monitor taken, so idle pollers do not slow producers
        }
        return pollLocked(out);
    }

    private volatile long headHint;
    private volatile boolean eventDriven;

    private synchronized int pollLocked(WorkCompletion[] out) {
        int n = 0;
        while (n < out.length && head < tail) {
            int i = (int) (head++ % capacity);
            WorkCompletion wc = out[n++];
            wc.wrId = wrId[i];
            wc.status = status[i];
            wc.opcode = opcode[i];
            wc.byteLength = len[i];
            wc.immediate = imm[i];
            wc.qpNum = qpn[i];
            wc.hasImmediate = (flags[i] & 1) != 0;
            wc.solicited = (flags[i] & 2) != 0;
        }
        headHint = head;
        return n;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        Runnable toRun = null;
        Executor ex = null;
        synchronized (this) {
            this.solicitedOnly = solicitedOnly;
            if (head < tail && handler != null) {
                toRun = handler;
                ex = executor;
            } else {
                armed = true;
            }
        }
        if (toRun != null) {
            (ex != null ? ex : events).execute(toRun);
        }
    }

    @Override
    public synchronized void onNotify(Runnable handler, Executor executor) {
        this.handler = handler;
        this.eventDriven = handler != null;
        this.executor = executor;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    public synchronized long overruns() {
        return overruns;
    }

    @Override
    public void close() {
        // nothing to release
    }
}

package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completion queue: a fixed ring of completion fields (no allocation per completion). If a producer
 * finds it full the completion is dropped, counted in {@link #overruns()} and logged: size CQs for
 * all the work requests that can be outstanding on the QPs that use them.
 *
 * <p>Moderation ({@link #moderate}) holds an armed notification back until {@code count} completions wait or
 * the period, timed from the first of them, ends on the device's timer thread.
 */
public final class SoftCompletionQueue implements CompletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SoftCompletionQueue.class);
    private static final int WITH_IMM = 1, SOLICITED = 2, WITH_INV = 4;
    /** Runs handlers armed without an executor of their own: the device's event thread. */
    private final Executor events;
    private final IntSupplier input;
    private final int capacity;
    private final long[] wrId;
    private final WcStatus[] status;
    private final WcOpcode[] opcode;
    private final int[] len;
    /** The immediate data or the invalidated R_Key, as {@link #flags} say (one slot: ibv_wc's union). */
    private final int[] imm;
    private final int[] qpn;
    /** {@link #WITH_IMM}, {@link #SOLICITED}, {@link #WITH_INV}. */
    private final byte[] flags;
    private long head;
    /** Written under the monitor; read without it by {@link #poll}'s empty fast path. */
    private volatile long tail;
    private long overruns;
    private boolean armed;
    private boolean solicitedOnly;
    private Runnable handler;
    private Executor executor;
    /** Runs moderation periods; null: this queue cannot moderate. */
    private final ScheduledExecutorService timers;
    private final Runnable periodEnd = this::periodEnded;
    private int moderationCount = 1;
    private long moderationPeriodNanos;
    /** Armed, and a completion that may raise the notification waits: moderation holds it back. */
    private boolean due;
    /** When the period of the completion that made the notification {@link #due} ends (nanoTime). */
    private long periodEndsAt;
    /** A period timer is scheduled and has not run: one at a time, each checking {@link #periodEndsAt}. */
    private boolean periodPending;

    public SoftCompletionQueue(Executor events, int capacity) {
        this(events, capacity, null, null);
    }

    /**
     * {@code input} (or null): polled on a consumer's thread when {@link #poll} finds the queue empty, the device
     * receiving what waits on its socket there (polling mode; it returns the bytes received). Only while no
     * handler is set ({@link #onNotify}): an event-driven consumer, such as the gateway's event loop, never
     * runs the device's receive path inside its own poll.
     */
    public SoftCompletionQueue(Executor events, int capacity, IntSupplier input, ScheduledExecutorService timers) {
        this.input = input;
        this.timers = timers;
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

    /**
     * What a completion's 32-bit {@code value} is: nothing, the immediate data or the R_Key of a SEND with
     * Invalidate, as {@code ibv_wc} keeps {@code imm_data} and {@code invalidated_rkey} in one union and tells them
     * apart by {@code IBV_WC_WITH_IMM} / {@code IBV_WC_WITH_INV}.
     */
    public enum Value {
        NONE, IMMEDIATE, INVALIDATED_RKEY
    }

    /** Adds a completion (called by the transport); {@code value} is read as {@code kind} says. */
    public void push(long id, WcStatus st, WcOpcode op, int byteLen, Value kind, int value, int qp,
                     boolean solicited) {
        Runnable toRun = null;
        Executor ex = null;
        long period = -1;
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
            imm[i] = value;
            qpn[i] = qp;
            flags[i] = (byte) ((kind == Value.IMMEDIATE ? WITH_IMM : 0) | (solicited ? SOLICITED : 0)
                    | (kind == Value.INVALIDATED_RKEY ? WITH_INV : 0));
            if (armed && handler != null && (!solicitedOnly || solicited || st != WcStatus.SUCCESS)) {
                if (tail - head >= moderationCount || st != WcStatus.SUCCESS) {
                    armed = false;
                    due = false;
                    toRun = handler;
                    ex = executor;
                } else if (!due) {
                    period = becomeDue();
                }
            }
        }
        if (toRun != null) {
            (ex != null ? ex : events).execute(toRun);
        } else if (period >= 0) {
            schedulePeriodEnd(period);
        }
    }

    /**
     * The first completion the armed notification is held back for: its period starts. Returns the delay of the
     * timer to schedule, or -1 when one is scheduled already (it will find the new {@link #periodEndsAt}).
     */
    private long becomeDue() {
        due = true;
        periodEndsAt = System.nanoTime() + moderationPeriodNanos;
        if (periodPending) {
            return -1;
        }
        periodPending = true;
        return moderationPeriodNanos;
    }

    private void schedulePeriodEnd(long delayNanos) {
        try {
            timers.schedule(periodEnd, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the device is closing: its queue pairs flush, and nobody waits for this notification
        }
    }

    /**
     * The timer: raises the notification if its period is over, else (a timer left from an earlier arm, which the
     * count raised) waits out the rest of the current period.
     */
    private void periodEnded() {
        Runnable toRun = null;
        Executor ex = null;
        long left = 0;
        synchronized (this) {
            if (armed && due && handler != null) {
                left = periodEndsAt - System.nanoTime();
                if (left <= 0) {
                    armed = false;
                    due = false;
                    toRun = handler;
                    ex = executor;
                }
            }
            periodPending = left > 0;
        }
        if (toRun != null) {
            (ex != null ? ex : events).execute(toRun);
        } else if (left > 0) {
            schedulePeriodEnd(left);
        }
    }

    @Override
    public void moderate(int count, int periodMicros) {
        if (count < 1 || count > 0xFFFF || periodMicros < 0 || periodMicros > 0xFFFF) {
            throw new IllegalArgumentException("moderation count must be 1..65535 and period 0..65535 us, not "
                    + count + " and " + periodMicros);
        }
        if (count > 1 && periodMicros == 0) {
            throw new IllegalArgumentException("a moderation count above 1 needs a period: a lone completion would "
                    + "never raise the notification");
        }
        if (count > 1 && timers == null) {
            throw new UnsupportedOperationException("this completion queue has no timer for moderation periods");
        }
        synchronized (this) {
            moderationCount = count;
            moderationPeriodNanos = TimeUnit.MICROSECONDS.toNanos(periodMicros);
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
            wc.qpNum = qpn[i];
            wc.hasImmediate = (flags[i] & WITH_IMM) != 0;
            wc.immediate = wc.hasImmediate ? imm[i] : 0;
            wc.hasInvalidate = (flags[i] & WITH_INV) != 0;
            wc.invalidatedRkey = wc.hasInvalidate ? imm[i] : 0;
            wc.solicited = (flags[i] & SOLICITED) != 0;
        }
        headHint = head;
        return n;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        Runnable toRun = null;
        Executor ex = null;
        long period = -1;
        synchronized (this) {
            this.solicitedOnly = solicitedOnly;
            if (tail - head >= moderationCount && handler != null) {
                toRun = handler;
                ex = executor;
            } else {
                armed = true;
                if (head < tail && handler != null && !due) {   // fewer than the moderation count wait
                    period = becomeDue();
                }
            }
        }
        if (toRun != null) {
            (ex != null ? ex : events).execute(toRun);
        } else if (period >= 0) {
            schedulePeriodEnd(period);
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

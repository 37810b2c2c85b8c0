package io.vibridge.verbs;

import java.util.concurrent.Executor;

/**
 * A completion queue. Thread-safe. Completions are delivered in the order the provider produced them
 * (per QP, in work-request order).
 */
public interface CompletionQueue extends AutoCloseable {
    /** Moves up to {@code out.length} completions into the caller's reusable instances; returns how many. */
    int poll(WorkCompletion[] out);

    /**
     * Arms the queue: the notification handler runs once when the next completion is added (or at once
     * if completions are already waiting). {@code solicitedOnly}: only for solicited receives and errors.
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * Sets the handler run after {@link #requestNotify}. It runs on {@code executor}, or when that is
     * null on the provider's event thread (never on a thread holding provider locks). Re-arm inside it.
     * The executor must hand the task to another thread (an event loop, a pool), not run it inline: the
     * provider may hold internal locks while it submits.
     */
    void onNotify(Runnable handler, Executor executor);

    /**
     * Completion moderation ({@code ibv_modify_cq}, {@code IBV_CQ_ATTR_MODERATE}): an armed notification is
     * raised once {@code count} completions wait, or {@code periodMicros} after the first of them arrived,
     * whichever comes first; an error completion raises it at once. {@code (1, 0)}, the default, raises it on
     * every completion. A consumer that sleeps between notifications trades up to {@code periodMicros} of latency
     * for one wake-up per {@code count} completions; it may change the values at any time, from the next
     * completion or arm on (Linux's {@code rdma_dim} steps them by the completions it finds per event). Both are
     * 16-bit, as in the verb; a count above 1 needs a period.
     *
     * @throws IllegalArgumentException count outside 1..65535 or period outside 0..65535
     * @throws UnsupportedOperationException the device lacks {@link Capability#CQ_MODERATION}
     */
    default void moderate(int count, int periodMicros) {
        throw new UnsupportedOperationException("completion moderation: the provider has no CQ_MODERATION");
    }

    int capacity();

    @Override
    void close();
}

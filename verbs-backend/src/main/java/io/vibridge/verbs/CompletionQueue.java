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

    int capacity();

    @Override
    void close();
}

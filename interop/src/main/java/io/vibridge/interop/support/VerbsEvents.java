package io.vibridge.interop.support;

import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.WorkCompletion;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One consumer thread's view of a connection: the completions of one CQ and the CM events of its ids, in one
 * stream, waited for with a {@link Deadline} (what rping.c's CQ thread and CM thread hand its main thread
 * through {@code cb->sem}). Completions are returned before CM events that were pending at the same time, so
 * the data of a message that preceded a DREQ is seen before the disconnect.
 *
 * <p>Register it as the CM handler (with a null executor: the provider's event thread) and create it on the
 * connection's CQ; only the consumer thread calls {@link #next}.
 */
public final class VerbsEvents implements CmEventHandler {
    /** A completion (a copy: the caller may keep it) or a CM event. */
    public sealed interface Event permits Completion, Cm {
    }

    public record Completion(WorkCompletion wc) implements Event {
    }

    public record Cm(CmEvent event) implements Event {
    }

    private final CompletionQueue cq;
    private final Semaphore wake = new Semaphore(0);
    private final ConcurrentLinkedQueue<CmEvent> cmEvents = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<Event> ready = new ArrayDeque<>();
    private final WorkCompletion[] batch = new WorkCompletion[16];

    public VerbsEvents(CompletionQueue cq) {
        this.cq = cq;
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        cq.onNotify(wake::release, null);
    }

    @Override
    public void onEvent(CmEvent event) {
        cmEvents.add(event);
        wake.release();
    }

    /**
     * The next event; blocks until one arrives.
     *
     * @param waitingFor what the caller waits for, for the timeout message
     * @throws InteropFailure when the deadline passes first
     */
    public Event next(Deadline deadline, String waitingFor) throws InteropFailure {
        for (;;) {
            Event e = poll();
            if (e != null) {
                return e;
            }
            cq.requestNotify(false);          // runs the handler at once if completions arrived meanwhile
            e = poll();
            if (e != null) {
                return e;
            }
            long left = deadline.remainingNanos();
            if (left == 0) {
                throw deadline.timeout(waitingFor);
            }
            try {
                wake.tryAcquire(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new InteropFailure("interrupted while waiting for " + waitingFor);
            }
        }
    }

    /** Puts an event back: the next {@link #next} returns it first. */
    public void unread(Event e) {
        ready.addFirst(e);
    }

    private Event poll() {
        if (!ready.isEmpty()) {
            return ready.pollFirst();
        }
        int n = cq.poll(batch);
        for (int i = 0; i < n; i++) {
            WorkCompletion copy = new WorkCompletion();
            copy.copyFrom(batch[i]);
            ready.addLast(new Completion(copy));
        }
        if (!ready.isEmpty()) {
            return ready.pollFirst();
        }
        CmEvent c = cmEvents.poll();
        return c == null ? null : new Cm(c);
    }
}

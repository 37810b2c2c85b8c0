package io.vibridge.vitcp.provider;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A completion queue (VIA 2.4, 3.4; VipCreateCQ/DestroyCQ/ResizeCQ/CQDone/CQWait/CQNotify). Each
 * entry names a VI and the work queue (send or receive) whose head descriptor completed; the consumer
 * then dequeues it with {@link Vi#sendDone()} / {@link Vi#recvDone()}. Overruns lose entries (VIA 6.4.1).
 */
public final class CompletionQueue {

    /** One completion notice (VipCQDone's VI handle and queue type). */
    public record Entry(Vi vi, boolean recvQueue) {
    }

    private final ViNic nic;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    private Entry[] ring;
    private int head;
    private int count;
    private int waiters;
    private long overruns;
    int attachedQueues;
    private boolean destroyed;
    private Consumer<Entry> notify;

    CompletionQueue(ViNic nic, int entries) {
        this.nic = nic;
        this.ring = new Entry[entries];
    }

    public ViNic nic() {
        return nic;
    }

    public int capacity() {
        lock.lock();
        try {
            return ring.length;
        } finally {
            lock.unlock();
        }
    }

    /** Completion notices lost because the queue was full. */
    public long overruns() {
        lock.lock();
        try {
            return overruns;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues a notice; returns a task that runs a pending VipCQNotify handler (the caller runs it
     * outside the engine lock), or null.
     */
    Runnable add(Vi vi, boolean recv, Entry cached) {
        Consumer<Entry> cb = null;
        Entry e = cached;
        lock.lock();
        try {
            if (destroyed) {
                return null;
            }
            if (notify != null) {
                cb = notify;
                notify = null;
            } else if (count == ring.length) {
                overruns++;
                return null;
            } else {
                ring[(head + count) % ring.length] = e;
                count++;
                if (waiters > 0) {
                    nonEmpty.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        if (cb == null) {
            return null;
        }
        Consumer<Entry> handler = cb;
        return () -> handler.accept(e);
    }

    /** VipCQDone: the oldest completion notice, or null. */
    public Entry done() {
        lock.lock();
        try {
            return pollLocked();
        } finally {
            lock.unlock();
        }
    }

    private Entry pollLocked() {
        if (count == 0) {
            return null;
        }
        Entry e = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
        return e;
    }

    /** VipCQWait: waits up to {@code timeout} for a notice; throws {@link ViException} (TIMEOUT) otherwise. */
    public Entry await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            waiters++;
            try {
                while (count == 0) {
                    if (destroyed) {
                        throw new ViException(ViException.Code.INVALID_STATE, "completion queue destroyed");
                    }
                    if (nanos <= 0) {
                        throw new ViException(ViException.Code.TIMEOUT, "no completion within " + timeout);
                    }
                    nanos = nonEmpty.awaitNanos(nanos);
                }
                return pollLocked();
            } finally {
                waiters--;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * VipCQNotify: calls {@code handler} once, on the provider's thread, for the next completion (or
     * at once for one already queued). The notice is handed to the handler instead of being queued.
     */
    public void notifyNext(Consumer<Entry> handler) {
        Entry e;
        lock.lock();
        try {
            e = pollLocked();
            if (e == null) {
                notify = handler;
                return;
            }
        } finally {
            lock.unlock();
        }
        handler.accept(e);
    }

    /** VipResizeCQ: keeps queued notices; fails if they do not fit. */
    public void resize(int entries) {
        if (entries < 1) {
            throw new ViException(ViException.Code.INVALID_PARAMETER, "entries " + entries);
        }
        lock.lock();
        try {
            if (entries < count) {
                throw new ViException(ViException.Code.INVALID_PARAMETER,
                        count + " queued notices do not fit in " + entries);
            }
            Entry[] n = new Entry[entries];
            for (int i = 0; i < count; i++) {
                n[i] = ring[(head + i) % ring.length];
            }
            ring = n;
            head = 0;
        } finally {
            lock.unlock();
        }
    }

    /** VipDestroyCQ: only once no work queue uses it (VIA 3.4). */
    public void destroy() {
        lock.lock();
        try {
            if (attachedQueues > 0) {
                throw new ViException(ViException.Code.INVALID_STATE, attachedQueues + " work queues still attached");
            }
            destroyed = true;
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        nic.cqDestroyed(this);
    }

    void attach(int delta) {
        lock.lock();
        try {
            attachedQueues += delta;
        } finally {
            lock.unlock();
        }
    }

    static long toNanos(Duration d) {
        return TimeUnit.NANOSECONDS.convert(d);
    }
}

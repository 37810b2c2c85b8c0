package io.vibridge.gateway.demo;

/**
 * Connections with completions waiting, handed from provider threads to the service loop. Each
 * connection is queued at most once (its {@code queued} flag), so a ring of the connection limit never
 * overflows and queueing allocates nothing.
 */
final class ReadyRing {
    private final TargetConnection[] ring;
    private int head;
    private int count;

    ReadyRing(int capacity) {
        ring = new TargetConnection[capacity];
    }

    /** Returns true if the connection was not queued yet. */
    synchronized boolean offer(TargetConnection c) {
        if (c.queued) {
            return false;
        }
        if (count == ring.length) {
            throw new IllegalStateException("ready ring full");
        }
        c.queued = true;
        ring[(head + count++) % ring.length] = c;
        return true;
    }

    synchronized TargetConnection poll() {
        if (count == 0) {
            return null;
        }
        TargetConnection c = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
        c.queued = false;
        return c;
    }

    synchronized boolean isEmpty() {
        return count == 0;
    }
}

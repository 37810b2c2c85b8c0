package io.vibridge.vitcp.security;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Remembers the HMACs of accepted signed connection segments for a window (120 s, VITCP-PROFILE §5)
 * so a replay is refused. Bounded: at most {@code capacity} entries; when full of unexpired entries
 * a new one is refused ({@link Outcome#FULL}) instead of evicting one, because forgetting an entry
 * early would let its replay through. Memory is about 200 bytes per entry.
 *
 * <p>Thread-safe (one lock; the critical section is a hash lookup plus expiry of old entries).
 */
public final class ReplayGuard {

    /** Result of {@link #admit}. */
    public enum Outcome { FRESH, REPLAY, FULL }

    private record Entry(ByteBuffer key, long expiresAtMillis) {
    }

    private final int capacity;
    private final long windowMillis;
    private final Map<ByteBuffer, Entry> byKey = new HashMap<>();
    private final ArrayDeque<Entry> byAge = new ArrayDeque<>();

    public ReplayGuard(int capacity, long windowMillis) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " < 1");
        }
        if (windowMillis < 1) {
            throw new IllegalArgumentException("window " + windowMillis + " ms < 1");
        }
        this.capacity = capacity;
        this.windowMillis = windowMillis;
    }

    /**
     * Records {@code mac} as seen at {@code nowMillis} unless it was seen within the window.
     *
     * @return FRESH (recorded), REPLAY (seen within the window) or FULL (not recorded)
     */
    public synchronized Outcome admit(byte[] mac, long nowMillis) {
        expire(nowMillis);
        ByteBuffer key = ByteBuffer.wrap(mac.clone());
        Entry seen = byKey.get(key);
        if (seen != null) {
            return Outcome.REPLAY;
        }
        if (byKey.size() >= capacity) {
            return Outcome.FULL;
        }
        Entry e = new Entry(key, nowMillis + windowMillis);
        byKey.put(key, e);
        byAge.addLast(e);
        return Outcome.FRESH;
    }

    /** Entries currently held (never more than {@link #capacity()}). */
    public synchronized int size() {
        return byKey.size();
    }

    public int capacity() {
        return capacity;
    }

    // Entries are appended in arrival order; if the clock steps back, a younger entry may sit
    // behind an older one and simply live a little longer (safe direction).
    private void expire(long nowMillis) {
        Entry head;
        while ((head = byAge.peekFirst()) != null && head.expiresAtMillis() <= nowMillis) {
            byAge.removeFirst();
            byKey.remove(head.key());
        }
    }
}

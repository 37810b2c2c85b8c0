package io.vibridge.vitcp.security;

import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Remembers the HMACs of accepted signed connection segments (VITCP-PROFILE §5) so a replay is refused, each
 * until the caller's expiry: the moment its timestamp leaves the clock window, after which the clock check
 * refuses a replay anyway. Bounded twice: at most {@code capacity} entries in all and at most {@code perClient}
 * for one client (the gateway: a client IP address), so that one client holding the key cannot fill the memory
 * and lock every other client of the route out. Expired entries are dropped first; when the memory
 * or the client's share is still full of live entries, a new one is refused ({@link Outcome#FULL}) rather than
 * an entry forgotten early, which would let its replay through. Memory is about 200 bytes per entry.
 *
 * <p>Thread-safe (one lock; the critical section is a hash lookup plus expiry of old entries).
 */
public final class ReplayGuard {

    /** Result of {@link #admit}. */
    public enum Outcome { FRESH, REPLAY, FULL }

    private record Entry(ByteBuffer key, Object client, long expiresAtMillis) {
    }

    private final int capacity;
    private final int perClient;
    private final Map<ByteBuffer, Entry> byKey = new HashMap<>();
    private final PriorityQueue<Entry> byExpiry = new PriorityQueue<>(Comparator.comparingLong(Entry::expiresAtMillis));
    /** Live entries per client (absent: none); a null client has no share of its own. */
    private final Map<Object, int[]> counts = new HashMap<>();

    /**
     * @param capacity  most entries at once
     * @param perClient most entries at once for one client, 1..capacity
     */
    public ReplayGuard(int capacity, int perClient) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " < 1");
        }
        if (perClient < 1 || perClient > capacity) {
            throw new IllegalArgumentException("per-client share " + perClient + " outside 1.." + capacity);
        }
        this.capacity = capacity;
        this.perClient = perClient;
    }

    /**
     * Records {@code mac} for {@code client} until {@code expiresAtMillis} unless it is already remembered.
     *
     * @param client who presented it (null: no per-client share applies, only the capacity)
     * @return FRESH (recorded), REPLAY (remembered) or FULL (not recorded: the memory or the client's share is
     *     full of live entries)
     */
    public synchronized Outcome admit(byte[] mac, Object client, long expiresAtMillis, long nowMillis) {
        expire(nowMillis);
        ByteBuffer key = ByteBuffer.wrap(mac.clone());
        if (byKey.containsKey(key)) {
            return Outcome.REPLAY;
        }
        int[] mine = client == null ? null : counts.get(client);
        if (byKey.size() >= capacity || (mine != null && mine[0] >= perClient)) {
            return Outcome.FULL;
        }
        Entry e = new Entry(key, client, expiresAtMillis);
        byKey.put(key, e);
        byExpiry.add(e);
        if (client != null) {
            counts.computeIfAbsent(client, c -> new int[1])[0]++;
        }
        return Outcome.FRESH;
    }

    /** Entries currently held (never more than {@link #capacity()}), expired ones included until the next admit. */
    public synchronized int size() {
        return byKey.size();
    }

    /** Entries currently held for {@code client}. */
    public synchronized int size(Object client) {
        int[] c = counts.get(client);
        return c == null ? 0 : c[0];
    }

    public int capacity() {
        return capacity;
    }

    public int perClient() {
        return perClient;
    }

    private void expire(long nowMillis) {
        Entry head;
        while ((head = byExpiry.peek()) != null && head.expiresAtMillis() <= nowMillis) {
            byExpiry.poll();
            byKey.remove(head.key());
            if (head.client() != null) {
                int[] c = counts.get(head.client());
                if (--c[0] == 0) {
                    counts.remove(head.client());
                }
            }
        }
    }
}

package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.VerbsException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * lkey/rkey table of one device: key = slot &lt;&lt; 8 | 8-bit tag (the tag changes at every reuse of a
 * slot so a stale key does not find a newer region). Lookup is lock-free and allocation-free.
 */
public final class KeyTable {
    private static final int SLOTS = 1 << 16;
    private final AtomicReferenceArray<SoftMemoryRegion> slots = new AtomicReferenceArray<>(SLOTS);
    private final int[] tags = new int[SLOTS];
    private int next = 1;

    synchronized int register(SoftMemoryRegion region) {
        for (int n = 0; n < SLOTS; n++) {
            int slot = next;
            next = next + 1 == SLOTS ? 1 : next + 1;
            if (slots.get(slot) == null) {
                tags[slot] = (tags[slot] + 1 + (int) (System.nanoTime() & 0x3F)) & 0xFF;
                slots.set(slot, region);
                return slot << 8 | tags[slot];
            }
        }
        throw new VerbsException("out of memory keys (" + SLOTS + " regions)");
    }

    /** The region {@code key} names, or null; the transport checks its PD, rights and range. */
    public SoftMemoryRegion lookup(int key) {
        int slot = key >>> 8;
        if (slot == 0 || slot >= SLOTS) {
            return null;
        }
        SoftMemoryRegion r = slots.get(slot);
        return r != null && r.rkey() == key ? r : null;
    }

    synchronized void remove(int key) {
        int slot = key >>> 8;
        if (slot > 0 && slot < SLOTS) {
            slots.set(slot, null);
        }
    }
}

package io.vibridge.gateway.config;

import java.util.OptionalInt;

/**
 * {@code staging.max-slots} against the memory the JVM can have ({@link MemoryLimits}). The staging pool may
 * take three quarters of the direct memory the JVM can really have ({@link MemoryLimits#directRoom}); the rest
 * is for Netty's buffers and the soft device's. {@code auto} (the default) is as many slots as
 * {@code limits.max-connections} connections reserve (rounded up to whole chunks), at most that share. A number
 * beyond the share is refused at start: the pool would reach the JVM's limit (connections refused) or the
 * container's (the kernel kills the gateway) before its configured size, under load rather than at start.
 */
final class StagingSize {
    static final String KEY = "staging.max-slots";
    /** Slots the pool can index at most (and the largest number the key takes). */
    static final int MAX = 1 << 24;

    private StagingSize() {
    }

    /** The share of {@link MemoryLimits#directRoom} staging may take, in bytes. */
    static long budget(MemoryLimits memory) {
        return memory.directRoom() / 4 * 3;
    }

    /**
     * @param configured the key's number, empty for {@code auto}
     * @param slotSize staging.slot-size
     * @param chunkSlots staging.chunk-slots
     * @param slotsPerConnection slots one connection reserves (limits.buffer-per-connection / slot-size)
     * @param maxConnections limits.max-connections
     */
    static int maxSlots(OptionalInt configured, int slotSize, int chunkSlots, int slotsPerConnection,
            int maxConnections, MemoryLimits memory) {
        long budget = budget(memory);
        long fit = budget / slotSize;
        String share = MemoryLimits.mib(budget) + ", the 3/4 of the direct memory this JVM can have that staging may "
                + "take (" + memory.describe() + ")";
        String more = "give the JVM more direct memory (-XX:MaxDirectMemorySize, a smaller heap, a larger memory limit)";
        if (configured.isPresent()) {
            int n = configured.getAsInt();
            if (n > fit) {
                throw new ConfigError(KEY, n + " slots of " + slotSize + " B (staging.slot-size) = "
                        + MemoryLimits.mib((long) n * slotSize) + " do not fit in " + share
                        + "; lower it or use auto, or " + more);
            }
            return n;
        }
        long need = (long) maxConnections * Math.max(1, slotsPerConnection);
        need = (need + chunkSlots - 1) / chunkSlots * chunkSlots; // the last chunk whole too
        if (fit < Math.max(1, slotsPerConnection)) {
            throw new ConfigError(KEY, "auto leaves no room for one connection: " + share + ", holds " + fit
                    + " slots of " + slotSize + " B (staging.slot-size), fewer than the " + slotsPerConnection
                    + " one connection reserves (limits.buffer-per-connection); " + more);
        }
        return (int) Math.min(MAX, Math.min(need, fit));
    }
}

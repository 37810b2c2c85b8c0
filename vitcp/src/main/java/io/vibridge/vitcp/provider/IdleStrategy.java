package io.vibridge.vitcp.provider;

import java.util.Locale;

/**
 * What the provider's threads do while nothing arrives (VipOpenNic option, {@link NicConfig#idle}), in the
 * sense of Aeron's idle strategies: each connection's reader polls its socket, a writer whose socket is full
 * retries, and a thread in {@code VipRecvWait}/{@code VipSendWait} checks its descriptor, for
 * {@code spinNanos}, then does so between yields of the CPU for {@code yieldNanos}, then blocks. VIA lets a
 * consumer poll instead of wait (VIA 6.4.2, {@code VipRecvDone}); this carries polling down to the socket, so
 * that a round trip pays no thread wake-up (tens of microseconds in a virtual machine).
 *
 * <ul>
 * <li>{@link #BLOCK} (default): block at once, no CPU spent while idle;
 * <li>{@link #SPIN}: never block: a core per polling thread stays busy (for few, latency-bound connections);
 * <li>{@link #BACKOFF}: spin 50 µs, yield up to 1 ms, then block.
 * </ul>
 *
 * @param name       the option value that selects it
 * @param spinNanos  how long to busy-poll after the last work (Long.MAX_VALUE: forever)
 * @param yieldNanos how long after that to poll between yields of the CPU
 */
public record IdleStrategy(String name, long spinNanos, long yieldNanos) {

    public static final IdleStrategy BLOCK = new IdleStrategy("block", 0, 0);
    public static final IdleStrategy SPIN = new IdleStrategy("spin", Long.MAX_VALUE, 0);
    public static final IdleStrategy BACKOFF = new IdleStrategy("backoff", 50_000, 1_000_000);

    /** {@code block}, {@code spin} or {@code backoff} (case-insensitive). */
    public static IdleStrategy parse(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "block" -> BLOCK;
            case "spin" -> SPIN;
            case "backoff" -> BACKOFF;
            default -> throw new IllegalArgumentException("idle must be block, spin or backoff, got " + v);
        };
    }

    /** True when threads never poll: they block as soon as nothing is there. */
    public boolean blocks() {
        return spinNanos == 0 && yieldNanos == 0;
    }

    /**
     * A poll found nothing, {@code idleNanos} after the last work: spins or yields once and returns true (poll
     * again), or returns false: block now.
     */
    public boolean idle(long idleNanos) {
        if (idleNanos < spinNanos) {
            Thread.onSpinWait();
            return true;
        }
        if (idleNanos - spinNanos < yieldNanos) {
            Thread.yield();
            return true;
        }
        return false;
    }
}

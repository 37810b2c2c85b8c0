package io.vibridge.verbs.soft.port;

import java.util.Locale;

/**
 * What the port's receive thread does while no packet waits (device option {@code idle}), in the sense of
 * Aeron's idle strategies: busy-poll the socket for {@code spinNanos}, then poll and yield the CPU for
 * {@code yieldNanos}, then block in the kernel until a packet arrives. As VIA lets a consumer poll
 * ({@code VipRecvDone}, {@code VipCQDone}) instead of waiting, a polling receive thread trades a core for the
 * wake-up a blocked thread pays on every packet (tens of microseconds in a virtual machine).
 *
 * <ul>
 * <li>{@link #BLOCK} (default): block at once, no CPU spent while idle;
 * <li>{@link #SPIN}: never block: one core per device stays busy;
 * <li>{@link #BACKOFF}: spin 50 µs, yield up to 1 ms, then block: latency while traffic flows, nothing when idle.
 * </ul>
 *
 * @param name       the option value that selects it
 * @param spinNanos  how long to busy-poll after the last packet (Long.MAX_VALUE: forever)
 * @param yieldNanos how long after that to poll between yields of the CPU
 */
public record IdleStrategy(String name, long spinNanos, long yieldNanos) {

    public static final IdleStrategy BLOCK = new IdleStrategy("block", 0, 0);
    public static final IdleStrategy SPIN = new IdleStrategy("spin", Long.MAX_VALUE, 0);
    public static final IdleStrategy BACKOFF = new IdleStrategy("backoff", 50_000, 1_000_000);

    /** The option's accepted values, for error messages. */
    public static final String ACCEPTED = "block, spin or backoff";

    /** {@code block}, {@code spin} or {@code backoff} (case-insensitive); null means {@link #BLOCK}. */
    public static IdleStrategy parse(String v) {
        if (v == null) {
            return BLOCK;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "block" -> BLOCK;
            case "spin" -> SPIN;
            case "backoff" -> BACKOFF;
            default -> throw new IllegalArgumentException("idle must be " + ACCEPTED + ", got " + v);
        };
    }

    /** True when the thread never polls: it blocks as soon as nothing waits. */
    public boolean blocks() {
        return spinNanos == 0 && yieldNanos == 0;
    }

    /**
     * Called when a poll found nothing, {@code idleNanos} after the last work: spins or yields once and returns
     * true (poll again), or returns false: block now.
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

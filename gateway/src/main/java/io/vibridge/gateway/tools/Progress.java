package io.vibridge.gateway.tools;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress lines of a long measurement, to stderr so that the figures on stdout stay parseable: nothing for
 * the first {@link #EVERY_NANOS}, then one line each as long (e.g. {@code ... 1234/5000 iterations (Send BW
 * 65536 B)}). One thread ticks it; a tick is one comparison with the clock the timed loops read anyway.
 */
public final class Progress {
    static final long EVERY_NANOS = 2_000_000_000L;

    private final PrintStream err;
    private final String what;
    private final long total;
    private final long durationNanos;
    private long start;
    private long next;

    /**
     * @param err      where to print, or null for nothing
     * @param what     the measurement, in the lines
     * @param total    iterations to go (with a duration: ignored)
     * @param duration the run's length in nanoseconds, or 0 when it counts iterations
     */
    public Progress(PrintStream err, String what, long total, long duration) {
        this.err = err;
        this.what = what;
        this.total = total;
        this.durationNanos = duration;
        this.start = System.nanoTime();
        this.next = start + EVERY_NANOS;
    }

    /** The clock starts at {@code now} (after a warm-up): the first line comes {@link #EVERY_NANOS} later. */
    public void start(long now) {
        start = now;
        next = now + EVERY_NANOS;
    }

    /** Prints nothing, ever. */
    public static Progress none() {
        return new Progress(null, "", 0, 0);
    }

    /** {@code done} iterations so far at time {@code now} (System.nanoTime). */
    public void tick(long done, long now) {
        if (err != null && now - next >= 0) {
            next = now + EVERY_NANOS;
            if (durationNanos > 0) {
                err.printf(Locale.ROOT, "... %d iterations, %.0f/%.0f s (%s)%n", done, (now - start) / 1e9,
                        durationNanos / 1e9, what);
            } else {
                err.printf(Locale.ROOT, "... %d/%d iterations (%s)%n", done, total, what);
            }
        }
    }
}

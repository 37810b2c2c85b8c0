package io.vibridge.gateway.tools;

/**
 * The highest completion rate over any of a bandwidth run's consecutive {@link #WINDOW_NANOS} intervals:
 * what {@code BW peak} means here (perftest derives its own from its fastest completions). An interval, not
 * a count of completions: completions arrive in bursts (a cumulative acknowledgement completes many at
 * once), and the rate of a burst says nothing of the link. A run shorter than one interval has no peak
 * ({@link #perSecond} 0; the average stands in). {@link #completed} is a comparison and an add.
 */
final class PeakRate {
    static final long WINDOW_NANOS = 100_000_000L;

    private long windowStart = Long.MIN_VALUE;
    private long inWindow;
    private double bestPerNano;

    /** One completion at {@code now} (System.nanoTime). */
    void completed(long now) {
        if (windowStart == Long.MIN_VALUE) {
            windowStart = now;
        }
        inWindow++;
        long span = now - windowStart;
        if (span >= WINDOW_NANOS) {
            bestPerNano = Math.max(bestPerNano, (double) inWindow / span);
            windowStart = now;
            inWindow = 0;
        }
    }

    /** Completions per second in the best interval; 0 when the run was shorter than one. */
    double perSecond() {
        return bestPerNano * 1e9;
    }
}

package io.vibridge.interop.support;

import java.time.Duration;

/** The end of a run's time budget (the global {@code --timeout}): every wait takes what is left of it. */
public final class Deadline {
    private final long atNanos;
    private final Duration budget;

    private Deadline(long atNanos, Duration budget) {
        this.atNanos = atNanos;
        this.budget = budget;
    }

    public static Deadline after(Duration budget) {
        return new Deadline(System.nanoTime() + budget.toNanos(), budget);
    }

    /** Nanoseconds left, at least 0. */
    public long remainingNanos() {
        return Math.max(0, atNanos - System.nanoTime());
    }

    /** Milliseconds left, at least 1 (socket timeouts take 0 as "forever"). */
    public int remainingMillisForSocket() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingNanos() / 1_000_000));
    }

    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /** The whole budget, for messages ("within 60 s"). */
    public Duration budget() {
        return budget;
    }

    /** A failure saying what did not happen in time. */
    public InteropFailure timeout(String waitingFor) {
        return new InteropFailure("timeout: " + waitingFor + " did not happen within the " + budget.toSeconds()
                + " s budget (--timeout)");
    }
}

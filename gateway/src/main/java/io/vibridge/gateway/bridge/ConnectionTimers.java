package io.vibridge.gateway.bridge;

import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * A connection's timers, on its own context: the deadline for the client's request, the grace of a drain and
 * the InfiniBand keepalive.
 */
final class ConnectionTimers {
    private final Vertx vertx;
    private long request = -1;
    private long grace = -1;
    private long keepalive = -1;
    private long frontEnd = -1;

    ConnectionTimers(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Runs {@code expired} after {@code timeout} unless {@link #requestAnswered} came first. */
    void requestDeadline(Duration timeout, Runnable expired) {
        request = vertx.setTimer(Math.max(1, timeout.toMillis()), t -> {
            request = -1;
            expired.run();
        });
    }

    void requestAnswered() {
        request = cancel(request);
    }

    /** Runs {@code over} once {@code grace} has passed (at least a millisecond). */
    void grace(Duration duration, Runnable over) {
        grace = vertx.setTimer(Math.max(1, duration.toMillis()), t -> {
            grace = -1;
            over.run();
        });
    }

    /** Runs {@code tick} every {@code period}; none when the period is zero. */
    void keepalive(Duration period, Runnable tick) {
        if (period.toMillis() > 0) {
            keepalive = vertx.setPeriodic(period.toMillis(), t -> tick.run());
        }
    }

    /** The front end's one timer: runs {@code action} after {@code delay}, replacing the one before. */
    void frontEnd(Duration delay, Runnable action) {
        frontEnd = cancel(frontEnd);
        frontEnd = vertx.setTimer(Math.max(1, delay.toMillis()), t -> {
            frontEnd = -1;
            action.run();
        });
    }

    void cancelAll() {
        frontEnd = cancel(frontEnd);
        request = cancel(request);
        grace = cancel(grace);
        keepalive = cancel(keepalive);
    }

    private long cancel(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        return -1;
    }
}

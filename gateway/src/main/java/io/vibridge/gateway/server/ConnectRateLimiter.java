package io.vibridge.gateway.server;

/**
 * Token bucket over the whole gateway for new TCP connections ({@code limits.connect-rate} per
 * second, {@code limits.connect-burst} tokens). A connection over the rate is closed before anything
 * is read from it (cheapest answer to a connect flood). Thread-safe; rate 0 = unlimited.
 */
final class ConnectRateLimiter {
    private final double ratePerNano;
    private final double burst;
    private double tokens;
    private long last;

    ConnectRateLimiter(double perSecond, int burst) {
        this.ratePerNano = perSecond / 1e9;
        this.burst = burst;
        this.tokens = burst;
        this.last = System.nanoTime();
    }

    synchronized boolean tryAcquire() {
        if (ratePerNano == 0) {
            return true;
        }
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - last) * ratePerNano);
        last = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}

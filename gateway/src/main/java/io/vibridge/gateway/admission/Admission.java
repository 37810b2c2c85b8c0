package io.vibridge.gateway.admission;

import io.micrometer.core.instrument.MeterRegistry;
import io.vibridge.gateway.metrics.ClientProtocol;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Admission of new TCP connections into setup, for every front end (VI/TCP in both framings, iWARP): the
 * pending bound ({@code limits.max-pending} over the gateway, {@code limits.max-pending-per-client} per
 * client address), its meters, and the periodic summary line that replaces one log line per connection
 * in a connect flood. Thread-safe.
 */
public final class Admission {
    private final PendingLimits limits;
    private final AdmissionMetrics metrics;
    private final long periodNanos;
    /** Per {@link SetupFailure}: when the next INFO line of that kind may be logged. */
    private final AtomicLongArray nextInfo = new AtomicLongArray(SetupFailure.values().length);
    private final long[][] lastRefused = new long[ClientProtocol.values().length][Refusal.values().length];
    private final long[][] lastFailed = new long[ClientProtocol.values().length][SetupFailure.values().length];

    /** @param periodNanos the summary period (the per-connection INFO lines are sampled once per period and kind) */
    public Admission(int maxPending, int maxPendingPerClient, MeterRegistry registry, long periodNanos) {
        this.limits = new PendingLimits(maxPending, maxPendingPerClient);
        this.metrics = new AdmissionMetrics(registry);
        this.periodNanos = periodNanos;
        long now = System.nanoTime();
        for (int i = 0; i < nextInfo.length(); i++) {
            nextInfo.set(i, now);
        }
    }

    /**
     * A new connection from {@code client} on a listener of {@code frontEnd}: its pending slot, or null when a
     * bound refused it (counted; the caller closes the socket before reading from it).
     */
    public Pending admit(ClientProtocol frontEnd, InetAddress client) {
        Refusal r = limits.tryAcquire(client);
        if (r != null) {
            metrics.refused(frontEnd, r);
            return null;
        }
        metrics.accepted(frontEnd);
        return new Pending(this, frontEnd, client);
    }

    /** A connection refused before admission for another reason (the connect rate): counted. */
    public void refused(ClientProtocol frontEnd, Refusal why) {
        metrics.refused(frontEnd, why);
    }

    void release(ClientProtocol frontEnd, InetAddress client) {
        limits.release(client);
        metrics.setupEnded(frontEnd);
    }

    /** Counts a failed setup; true for the first of its kind in the current period (log it at INFO). */
    boolean failed(ClientProtocol frontEnd, SetupFailure why) {
        metrics.failed(frontEnd, why);
        long now = System.nanoTime();
        long next = nextInfo.get(why.ordinal());
        return now - next >= 0 && nextInfo.compareAndSet(why.ordinal(), next, now + periodNanos);
    }

    /** Connections in setup now, over the gateway. */
    public int pending() {
        return limits.total();
    }

    /** Connections in setup now from {@code client}. */
    public int pending(InetAddress client) {
        return limits.of(client);
    }

    /**
     * What happened to connection setup since the last call, as one line, or null when nothing was refused and
     * no setup failed: refusals by front end and bound, setups ended without an answer by kind, and how many are
     * pending now.
     */
    public synchronized Summary summary() {
        StringBuilder b = new StringBuilder();
        long refusedAll = 0;
        for (ClientProtocol e : ClientProtocol.values()) {
            StringBuilder part = new StringBuilder();
            long refused = 0;
            StringBuilder why = new StringBuilder();
            for (Refusal r : Refusal.values()) {
                long now = metrics.refusedTotal(e, r);
                long d = now - lastRefused[e.ordinal()][r.ordinal()];
                lastRefused[e.ordinal()][r.ordinal()] = now;
                if (d > 0) {
                    refused += d;
                    why.append(why.isEmpty() ? "" : ", ").append(d).append(' ').append(describe(r));
                }
            }
            if (refused > 0) {
                part.append(refused).append(" refused at accept (").append(why).append(')');
            }
            long failed = 0;
            StringBuilder kinds = new StringBuilder();
            for (SetupFailure f : SetupFailure.values()) {
                long now = metrics.failedTotal(e, f);
                long d = now - lastFailed[e.ordinal()][f.ordinal()];
                lastFailed[e.ordinal()][f.ordinal()] = now;
                if (d > 0) {
                    failed += d;
                    kinds.append(kinds.isEmpty() ? "" : ", ").append(d).append(' ').append(f.description());
                }
            }
            if (failed > 0) {
                part.append(part.isEmpty() ? "" : ", ").append(failed).append(" ended in setup without an answer (")
                        .append(kinds).append(')');
            }
            if (!part.isEmpty()) {
                b.append(b.isEmpty() ? "" : "; ").append(e.label()).append(": ").append(part);
            }
            refusedAll += refused;
        }
        if (b.isEmpty()) {
            return null;
        }
        b.append("; ").append(limits.total()).append(" in setup now");
        return new Summary(b.toString(), refusedAll);
    }

    private String describe(Refusal r) {
        return switch (r) {
            case PENDING -> r.description() + " " + limits.max() + " (limits.max-pending)";
            case PENDING_PER_CLIENT -> r.description() + " " + limits.maxPerClient()
                    + " (limits.max-pending-per-client)";
            case RATE -> r.description() + " (limits.connect-rate)";
        };
    }

    /** One period's line; {@code refused}: connections refused at accept in it (the line is a WARN then). */
    public record Summary(String line, long refused) {
    }
}

package io.vibridge.gateway.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vibridge.gateway.metrics.ClientProtocol;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of connection setup, by front end (the {@code encapsulation} tag, as GatewayMetrics): TCP
 * connections accepted into setup, refused at accept (by {@link Refusal}), pending now, and ended in setup
 * without an answer (by {@link SetupFailure}). Registered once; events only increment meters already held.
 */
final class AdmissionMetrics {
    private final Counter[] accepted = new Counter[ClientProtocol.values().length];
    private final Counter[][] refused = new Counter[ClientProtocol.values().length][Refusal.values().length];
    private final Counter[][] failed = new Counter[ClientProtocol.values().length][SetupFailure.values().length];
    private final AtomicLong[] pending = new AtomicLong[ClientProtocol.values().length];

    AdmissionMetrics(MeterRegistry registry) {
        for (ClientProtocol e : ClientProtocol.values()) {
            int i = e.ordinal();
            accepted[i] = Counter.builder("vibridge.connections.accepted")
                    .description("TCP connections accepted into setup (within limits.max-pending and the connect rate), "
                            + "by front end")
                    .tag("encapsulation", e.label())
                    .register(registry);
            for (Refusal r : Refusal.values()) {
                refused[i][r.ordinal()] = Counter.builder("vibridge.connections.refused")
                        .description("TCP connections closed at accept, before anything was read, by front end and "
                                + "reason (pending, pending_per_client, rate)")
                        .tag("encapsulation", e.label())
                        .tag("reason", r.tag())
                        .register(registry);
            }
            for (SetupFailure f : SetupFailure.values()) {
                failed[i][f.ordinal()] = Counter.builder("vibridge.connections.setup.failed")
                        .description("Accepted connections that ended in setup without an answer, by front end and "
                                + "reason (timeout, closed, protocol)")
                        .tag("encapsulation", e.label())
                        .tag("reason", f.tag())
                        .register(registry);
            }
            pending[i] = new AtomicLong();
            Gauge.builder("vibridge.connections.pending", pending[i], AtomicLong::get)
                    .description("Connections in setup now (accepted, not yet bridged or closed), by front end; "
                            + "bounded by limits.max-pending")
                    .tag("encapsulation", e.label())
                    .register(registry);
        }
    }

    void accepted(ClientProtocol e) {
        accepted[e.ordinal()].increment();
        pending[e.ordinal()].incrementAndGet();
    }

    void setupEnded(ClientProtocol e) {
        pending[e.ordinal()].decrementAndGet();
    }

    void refused(ClientProtocol e, Refusal r) {
        refused[e.ordinal()][r.ordinal()].increment();
    }

    void failed(ClientProtocol e, SetupFailure f) {
        failed[e.ordinal()][f.ordinal()].increment();
    }

    long refusedTotal(ClientProtocol e, Refusal r) {
        return (long) refused[e.ordinal()][r.ordinal()].count();
    }

    long failedTotal(ClientProtocol e, SetupFailure f) {
        return (long) failed[e.ordinal()][f.ordinal()].count();
    }

    long pending(ClientProtocol e) {
        return pending[e.ordinal()].get();
    }
}

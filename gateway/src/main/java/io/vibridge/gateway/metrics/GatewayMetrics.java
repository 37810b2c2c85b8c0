package io.vibridge.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The gateway's meters (DESIGN "Observability"). Every meter is registered once, up front, so the
 * per-message paths only increment counters they already hold: no lookup, no tag arrays, no boxing.
 * Prometheus names carry the {@code vibridge_} prefix; Micrometer adds {@code _total} to counters
 * and the base unit to summaries and timers.
 */
public final class GatewayMetrics {

    private final MeterRegistry registry;
    private final AtomicLong activeConnections = new AtomicLong();
    private final Counter connectionsOpened;
    private final Map<RejectReason, Counter> rejects = new EnumMap<>(RejectReason.class);
    private final Counter[][] bytes = new Counter[Direction.values().length][Operation.values().length];
    private final Counter[][] messages = new Counter[Direction.values().length][Operation.values().length];
    private final Counter[] creditStalls = new Counter[Direction.values().length];
    private final Counter disconnects;
    private final Timer cmRoundTrip;
    private final DistributionSummary connectSetup;

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("vibridge.connections.active", activeConnections, AtomicLong::get)
                .description("VI/TCP connections currently bridged")
                .register(registry);
        connectionsOpened = Counter.builder("vibridge.connections.opened")
                .description("VI/TCP connections bridged since start (Connect Accept sent)")
                .register(registry);
        disconnects = Counter.builder("vibridge.connections.closed")
                .description("Bridged connections that have ended")
                .register(registry);
        for (RejectReason reason : RejectReason.values()) {
            rejects.put(reason, Counter.builder("vibridge.connections.rejected")
                    .description("VI/TCP connections refused, by reason")
                    .tag("reason", reason.tag())
                    .register(registry));
        }
        for (Direction d : Direction.values()) {
            for (Operation op : Operation.values()) {
                bytes[d.ordinal()][op.ordinal()] = Counter.builder("vibridge.bytes")
                        .description("Payload bytes bridged, by direction and operation")
                        .baseUnit("bytes")
                        .tag("direction", d.tag())
                        .tag("operation", op.tag())
                        .register(registry);
                messages[d.ordinal()][op.ordinal()] = Counter.builder("vibridge.messages")
                        .description("Messages bridged, by direction and operation")
                        .tag("direction", d.tag())
                        .tag("operation", op.tag())
                        .register(registry);
            }
            creditStalls[d.ordinal()] = Counter.builder("vibridge.credit.stalls")
                    .description("Times a message waited for the receiving side's credits")
                    .tag("direction", d.tag())
                    .register(registry);
        }
        cmRoundTrip = Timer.builder("vibridge.cm.rtt")
                .description("InfiniBand CM REQ to REP round-trip time")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        connectSetup = DistributionSummary.builder("vibridge.connect.setup")
                .description("VI Connect Request to Connect Accept, in seconds")
                .baseUnit("seconds")
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void connectionOpened() {
        activeConnections.incrementAndGet();
        connectionsOpened.increment();
    }

    public void connectionClosed() {
        activeConnections.decrementAndGet();
        disconnects.increment();
    }

    /** Connections bridged since start (the periodic summary line). */
    public long openedTotal() {
        return (long) connectionsOpened.count();
    }

    /** Bridged connections closed since start. */
    public long closedTotal() {
        return (long) disconnects.count();
    }

    public long activeConnections() {
        return activeConnections.get();
    }

    public void rejected(RejectReason reason) {
        rejects.get(reason).increment();
    }

    public void message(Direction direction, Operation operation, long payloadBytes) {
        messages[direction.ordinal()][operation.ordinal()].increment();
        bytes[direction.ordinal()][operation.ordinal()].increment(payloadBytes);
    }

    public void creditStall(Direction direction) {
        creditStalls[direction.ordinal()].increment();
    }

    public void cmRoundTrip(long nanos) {
        cmRoundTrip.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void connectSetup(long nanos) {
        connectSetup.record(nanos / 1e9);
    }

    /**
     * Registers a gauge that reads a provider's counter (InfiniBand retransmissions, NAKs, ICRC drops,
     * staging use) each time Prometheus scrapes, so the hot path of the provider stays untouched.
     */
    public <T> void gauge(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
        Gauge.builder(name, source, value).description(description).tags(tags).register(registry);
    }

    /** A monotonically increasing provider counter, exported as a Prometheus counter. */
    public <T> void functionCounter(String name, String description, T source, ToDoubleFunction<T> value,
                                    String... tags) {
        io.micrometer.core.instrument.FunctionCounter.builder(name, source, value)
                .description(description).tags(tags).register(registry);
    }
}

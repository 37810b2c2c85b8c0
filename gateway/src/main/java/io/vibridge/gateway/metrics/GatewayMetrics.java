package io.vibridge.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.wire.Encapsulation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
    private final AtomicLong[] activeConnections = new AtomicLong[ClientProtocol.values().length];
    private final Counter[] connectionsOpened = new Counter[ClientProtocol.values().length];
    private final Counter[] connectionsClosed = new Counter[ClientProtocol.values().length];
    private final ClientBytes[] clientBytes = new ClientBytes[ClientProtocol.values().length];
    private final Map<FrameCheck, Counter> frameErrors = new EnumMap<>(FrameCheck.class);
    private final Map<RejectReason, Counter> rejects = new EnumMap<>(RejectReason.class);
    private final Map<Limit, Counter> limited = new EnumMap<>(Limit.class);
    private final Counter[][] bytes = new Counter[Direction.values().length][Operation.values().length];
    private final Counter[][] messages = new Counter[Direction.values().length][Operation.values().length];
    private final Counter[] creditStalls = new Counter[Direction.values().length];
    private final Counter[][] privateDataBytes = new Counter[ClientProtocol.values().length][Direction.values().length];
    private final Counter[][] sendInvalidates = new Counter[ClientProtocol.values().length][Direction.values().length];
    private final Timer cmRoundTrip;
    private final Timer connectSetup;
    private final Map<String, Counter> asyncEvents = new HashMap<>();
    private final Counter targetRdmaRefused;
    private final Counter iwarpRtrTimeouts;

    /**
     * Histogram buckets of the setup timers, 10 us .. 10 s in 1-2.5-5 steps (19 and +Inf): from below a CM
     * round trip on a fast fabric to beyond the longest setup the gateway waits for, max-cm-retries + 1 CM
     * timeouts of infiniband.cm-response-timeout (4 x 1.07 s with the defaults), with a CM retry (one
     * timeout more than the answer) in a bucket of its own.
     */
    static final Duration[] SETUP_BUCKETS = buckets(10_000, 10_000_000_000L);

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (ClientProtocol e : ClientProtocol.values()) {
            int i = e.ordinal();
            activeConnections[i] = new AtomicLong();
            Gauge.builder("vibridge.connections.active", activeConnections[i], AtomicLong::get)
                    .description("Connections currently bridged, by front end (encapsulation: vitcp, rdmatcp, iwarp)")
                    .tag("encapsulation", e.label())
                    .register(registry);
            connectionsOpened[i] = Counter.builder("vibridge.connections.opened")
                    .description("Connections bridged since start (VI Connect Accept or MPA Reply sent), by front end")
                    .tag("encapsulation", e.label())
                    .register(registry);
            connectionsClosed[i] = Counter.builder("vibridge.connections.closed")
                    .description("Bridged connections that have ended, by encapsulation")
                    .tag("encapsulation", e.label())
                    .register(registry);
            clientBytes[i] = new ClientBytes(clientBytes(e, "in"), clientBytes(e, "out"));
            for (Direction d : Direction.values()) {
                privateDataBytes[i][d.ordinal()] = Counter.builder("vibridge.private.data")
                        .description("Application private data carried in connection setup (MPA Request -> CM REQ, "
                                + "CM REP -> MPA Reply, CM REJ -> MPA Reject), by front end and direction")
                        .baseUnit("bytes")
                        .tag("encapsulation", e.label())
                        .tag("direction", d.tag())
                        .register(registry);
                sendInvalidates[i][d.ordinal()] = Counter.builder("vibridge.send.invalidate")
                        .description("Sends with Invalidate bridged (also counted as Sends in vibridge_messages), "
                                + "by front end and direction")
                        .tag("encapsulation", e.label())
                        .tag("direction", d.tag())
                        .register(registry);
            }
        }
        for (FrameCheck c : FrameCheck.values()) {
            if (c != FrameCheck.OK) {
                frameErrors.put(c, Counter.builder("vibridge.rdmatcp.frame.errors")
                        .description("Connections ended by a seed-004 frame that failed a check (VITCP-PROFILE §8), by check")
                        .tag("check", c.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                        .register(registry));
            }
        }
        for (RejectReason reason : RejectReason.values()) {
            rejects.put(reason, Counter.builder("vibridge.connections.rejected")
                    .description("VI/TCP connections refused, by reason")
                    .tag("reason", reason.tag())
                    .register(registry));
        }
        for (Limit l : Limit.values()) {
            limited.put(l, Counter.builder("vibridge.connections.limited")
                    .description("Connections refused by one of the gateway's own limits (also counted as rejected, "
                            + "reason limit), by limit")
                    .tag("limit", l.tag())
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
        for (String kind : ASYNC_EVENT_KINDS) {
            asyncEvents.put(kind, Counter.builder("vibridge.ib.async.events")
                    .description("Asynchronous events of the InfiniBand device (ibv_get_async_event), by kind")
                    .tag("event", kind)
                    .register(registry));
        }
        iwarpRtrTimeouts = Counter.builder("vibridge.iwarp.rtr.timeouts")
                .description("iWARP streams terminated because the client's RTR (peer-to-peer mode) did not come "
                        + "within iwarp.request-timeout of the MPA Reply")
                .register(registry);
        targetRdmaRefused = Counter.builder("vibridge.target.rdma.refused")
                .description("Connections ended because the target RDMA-accessed the client's memory where the gateway"
                        + " does not carry it (no cut-through: hardware providers, infiniband.cut-through = off)")
                .register(registry);
        cmRoundTrip = Timer.builder("vibridge.cm.rtt")
                .description("InfiniBand CM REQ to REP round-trip time")
                .serviceLevelObjectives(SETUP_BUCKETS)
                .register(registry);
        connectSetup = Timer.builder("vibridge.connect.setup")
                .description("Client connect request to its acceptance (VI Connect Request to Connect Accept, "
                        + "MPA Request to MPA Reply), the CM round trip included")
                .serviceLevelObjectives(SETUP_BUCKETS)
                .register(registry);
    }

    /** The {@code event} tag values of {@code vibridge_ib_async_events_total}. */
    static final List<String> ASYNC_EVENT_KINDS = List.of("qp_access_error", "qp_invalid_request", "qp_fatal",
            "port_down", "port_active", "address_change", "device_fatal");

    /** Counts a device's async event by kind. */
    public void asyncEvent(AsyncEvent event) {
        String kind = switch (event) {
            case AsyncEvent.QueuePairError e -> switch (e.cause()) {
                case ACCESS_VIOLATION -> "qp_access_error";
                case INVALID_REQUEST -> "qp_invalid_request";
                case FATAL -> "qp_fatal";
            };
            case AsyncEvent.PortStateChange p -> p.active() ? "port_active" : "port_down";
            case AsyncEvent.AddressChange a -> "address_change";
            case AsyncEvent.DeviceFatal d -> "device_fatal";
        };
        asyncEvents.get(kind).increment();
    }

    /** A connection ended by target RDMA aimed at the client's memory, which the gateway does not carry. */
    public void targetRdmaRefused() {
        targetRdmaRefused.increment();
    }

    /** 1, 2.5, 5 x each power of ten from {@code fromNanos} up to {@code toNanos}. */
    private static Duration[] buckets(long fromNanos, long toNanos) {
        List<Duration> l = new ArrayList<>();
        for (long decade = fromNanos; decade <= toNanos; decade *= 10) {
            for (long b : new long[] {decade, decade * 5 / 2, decade * 5}) {
                if (b <= toNanos) {
                    l.add(Duration.ofNanos(b));
                }
            }
        }
        return l.toArray(Duration[]::new);
    }

    private Counter clientBytes(ClientProtocol e, String direction) {
        return Counter.builder("vibridge.client.bytes")
                .description("Bytes read from (in) and written to (out) clients' TCP connections, headers and "
                        + "framing included, by front end")
                .baseUnit("bytes")
                .tag("encapsulation", e.label())
                .tag("direction", direction)
                .register(registry);
    }

    /** The client-side TCP byte counters of one encapsulation (held by each connection's channel). */
    public record ClientBytes(Counter in, Counter out) {
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void connectionOpened(ClientProtocol e) {
        activeConnections[e.ordinal()].incrementAndGet();
        connectionsOpened[e.ordinal()].increment();
    }

    public void connectionClosed(ClientProtocol e) {
        activeConnections[e.ordinal()].decrementAndGet();
        connectionsClosed[e.ordinal()].increment();
    }

    public ClientBytes clientBytes(ClientProtocol e) {
        return clientBytes[e.ordinal()];
    }

    public void connectionOpened(Encapsulation e) {
        connectionOpened(ClientProtocol.of(e));
    }

    public void connectionClosed(Encapsulation e) {
        connectionClosed(ClientProtocol.of(e));
    }

    public ClientBytes clientBytes(Encapsulation e) {
        return clientBytes(ClientProtocol.of(e));
    }

    /** A connection ended by a seed-004 frame check (a bad CRC, an unknown Connection ID, ...). */
    public void frameError(FrameCheck check) {
        Counter c = frameErrors.get(check);
        if (c != null) {
            c.increment();
        }
    }

    /** Connections bridged since start (the periodic summary line). */
    public long openedTotal() {
        return sum(connectionsOpened);
    }

    /** Bridged connections closed since start. */
    public long closedTotal() {
        return sum(connectionsClosed);
    }

    public long activeConnections() {
        long n = 0;
        for (AtomicLong a : activeConnections) {
            n += a.get();
        }
        return n;
    }

    private static long sum(Counter[] counters) {
        double n = 0;
        for (Counter c : counters) {
            n += c.count();
        }
        return (long) n;
    }

    public void rejected(RejectReason reason) {
        rejects.get(reason).increment();
    }

    /** A connection refused by {@code limit}: counted as rejected (reason limit) and by the limit hit. */
    public void limited(Limit limit) {
        rejects.get(RejectReason.LIMIT).increment();
        limited.get(limit).increment();
    }

    public void message(Direction direction, Operation operation, long payloadBytes) {
        messages[direction.ordinal()][operation.ordinal()].increment();
        bytes[direction.ordinal()][operation.ordinal()].increment(payloadBytes);
    }

    /** {@code bytes} of application private data carried in connection setup. */
    public void privateData(ClientProtocol e, Direction direction, int bytes) {
        privateDataBytes[e.ordinal()][direction.ordinal()].increment(bytes);
    }

    /** A Send with Invalidate bridged. */
    public void sendInvalidate(ClientProtocol e, Direction direction) {
        sendInvalidates[e.ordinal()][direction.ordinal()].increment();
    }

    public void iwarpRtrTimeout() {
        iwarpRtrTimeouts.increment();
    }

    public void creditStall(Direction direction) {
        creditStalls[direction.ordinal()].increment();
    }

    public void cmRoundTrip(long nanos) {
        cmRoundTrip.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void connectSetup(long nanos) {
        connectSetup.record(nanos, TimeUnit.NANOSECONDS);
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
        FunctionCounter.builder(name, source, value)
                .description(description).tags(tags).register(registry);
    }

    /** As {@link #functionCounter(String, String, Object, ToDoubleFunction, String...)} with a base unit (e.g. seconds). */
    public <T> void functionCounter(String name, String description, String baseUnit, T source,
                                    ToDoubleFunction<T> value) {
        FunctionCounter.builder(name, source, value)
                .description(description).baseUnit(baseUnit).register(registry);
    }
}

package io.vibridge.gateway.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.VerbsDevice;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The admin HTTP endpoint (DESIGN "Observability and operations"): {@code /metrics} in the
 * Prometheus text format, {@code /health} (the process is alive), {@code /ready} (the gateway
 * accepts connections: listener bound, fabric up, not draining), {@code /connections} (JSON: every bridge with
 * its queue pair, as {@code rdma res show qp}), {@code /device} (the verbs device, as {@code ibv_devinfo}) and
 * {@code /stat} (the device's counters, as {@code rdma statistic}).
 *
 * <p>Unauthenticated peers must not be able to hold it or read it: with a token every path but
 * {@code /health} and {@code /ready} (what orchestrators probe) answers 401 without it; an idle connection is
 * closed after {@link Options#idleTimeout()}; beyond {@link Options#maxConnections()} a new connection is closed at
 * once, so idle admin clients cannot take the process's file descriptors from the VI/TCP listeners.
 */
public final class AdminServer {

    /** Access policy: the bearer token (null: none), idle timeout, connections at once. */
    public record Options(String token, Duration idleTimeout, int maxConnections) {
        /** No token, 30 s idle timeout, 64 connections: reference.conf's defaults. */
        public static final Options DEFAULTS = new Options(null, Duration.ofSeconds(30), 64);
    }

    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Vertx vertx;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private final Supplier<List<ConnectionInfo>> connections;
    private final VerbsDevice device;
    private HttpServer server;
    private BearerToken token;
    private final AtomicInteger open = new AtomicInteger();
    private Counter refused;
    private Counter unauthorized;

    /** Without a device: {@code /device} and {@code /stat} answer 404. */
    public AdminServer(Vertx vertx, PrometheusMeterRegistry registry, BooleanSupplier ready,
                       Supplier<List<ConnectionInfo>> connections) {
        this(vertx, registry, ready, connections, null);
    }

    public AdminServer(Vertx vertx, PrometheusMeterRegistry registry, BooleanSupplier ready,
                       Supplier<List<ConnectionInfo>> connections, VerbsDevice device) {
        this.vertx = vertx;
        this.registry = registry;
        this.ready = ready;
        this.connections = connections;
        this.device = device;
    }

    /** Binds the server with {@link Options#DEFAULTS}; the future carries the actual port (useful with port 0). */
    public Future<Integer> start(String host, int port) {
        return start(host, port, Options.DEFAULTS);
    }

    /** Binds the server with {@code options}; the future carries the actual port. */
    public Future<Integer> start(String host, int port, Options options) {
        token = options.token() == null ? null : new BearerToken(options.token());
        int max = options.maxConnections();
        refused = Counter.builder("vibridge.admin.connections.refused")
                .description("Admin HTTP connections closed on arrival: admin.max-connections were open")
                .register(registry);
        unauthorized = Counter.builder("vibridge.admin.unauthorized")
                .description("Admin HTTP requests answered 401: no or a wrong bearer token (admin.token)")
                .register(registry);
        // HTTP/1.1 only: with h2c detection on (Vert.x's default) a connection is created, and connectionHandler
        // called, only once its first bytes arrive, so silent connections would escape the count
        HttpServerOptions o = new HttpServerOptions()
                .setHttp2ClearTextEnabled(false)
                .setIdleTimeout((int) Math.max(1, options.idleTimeout().toMillis()))
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
        return vertx.createHttpServer(o)
                .connectionHandler(connection -> {
                    if (open.incrementAndGet() > max) {
                        open.decrementAndGet();
                        refused.increment();
                        connection.close();
                        return;
                    }
                    connection.closeHandler(v -> open.decrementAndGet());
                })
                .requestHandler(this::handle)
                .listen(port, host)
                .map(s -> {
                    server = s;
                    return s.actualPort();
                });
    }

    public Future<Void> stop() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    private void handle(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
            request.response().setStatusCode(405).putHeader(HttpHeaders.ALLOW, "GET, HEAD").end();
            return;
        }
        String path = request.path();
        if (token != null && !"/health".equals(path) && !"/ready".equals(path)) {
            String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
            if (!token.admits(authorization)) {
                unauthorized.increment();
                // RFC 6750 §3: the challenge; invalid_token when a token came and was wrong
                request.response().setStatusCode(401)
                        .putHeader("WWW-Authenticate", authorization == null ? "Bearer realm=\"vibridge\""
                                : "Bearer realm=\"vibridge\", error=\"invalid_token\"")
                        .end("admin token required (admin.token)\n");
                return;
            }
        }
        switch (path) {
            case "/metrics" -> request.response()
                    .putHeader(HttpHeaders.CONTENT_TYPE, PROMETHEUS_TEXT)
                    .end(registry.scrape());
            case "/health" -> json(request, 200, new JsonObject().put("status", "UP"));
            case "/ready" -> {
                boolean isReady = ready.getAsBoolean();
                json(request, isReady ? 200 : 503, new JsonObject().put("status", isReady ? "READY" : "NOT_READY"));
            }
            case "/connections" -> json(request, 200, connectionsJson());
            case "/device" -> {
                if (device == null) {
                    notFound(request);
                } else {
                    json(request, 200, DeviceInfo.of(device).toJson());
                }
            }
            case "/stat" -> {
                if (device == null) {
                    notFound(request);
                } else {
                    JsonObject counters = new JsonObject();
                    device.counters().named().forEach(counters::put);
                    json(request, 200, new JsonObject().put("device", device.name()).put("counters", counters));
                }
            }
            default -> notFound(request);
        }
    }

    private static void notFound(HttpServerRequest request) {
        request.response().setStatusCode(404).end("not found: " + request.path() + "\n");
    }

    private JsonArray connectionsJson() {
        JsonArray array = new JsonArray();
        for (ConnectionInfo c : connections.get()) {
            array.add(new JsonObject()
                    .put("id", c.id())
                    .put("frontEnd", c.frontEnd())
                    .put("client", c.client())
                    .put("route", c.route())
                    .put("target", c.target())
                    .put("state", c.state())
                    .put("bytesIn", c.bytesIn())
                    .put("bytesOut", c.bytesOut())
                    .put("openedAt", Instant.ofEpochMilli(c.openedAtMillis()).toString())
                    .put("infiniband", c.qp() == null ? null : qpJson(c.qp())));
        }
        return array;
    }

    /** The queue pair's fields; one the provider cannot report is null. */
    static JsonObject qpJson(QpInfo q) {
        return new JsonObject()
                .put("qpn", q.qpn())
                .put("remoteQpn", known(q.remoteQpn()))
                .put("state", q.state().name())
                .put("sendPsn", known(q.sendPsn()))
                .put("expectedPsn", known(q.expectedPsn()))
                .put("pathMtu", q.pathMtu())
                .put("retransmissions", known(q.retransmissions()))
                .put("timeouts", known(q.timeouts()));
    }

    private static Long known(long v) {
        return v == QpInfo.UNKNOWN ? null : v;
    }

    private static void json(HttpServerRequest request, int status, Object body) {
        request.response()
                .setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.toString() + "\n");
    }
}

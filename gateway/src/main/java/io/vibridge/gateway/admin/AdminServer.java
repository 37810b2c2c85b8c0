package io.vibridge.gateway.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.VerbsDevice;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The admin HTTP endpoint (DESIGN "Observability and operations"): {@code /metrics} in the
 * Prometheus text format, {@code /health} (the process is alive), {@code /ready} (the gateway
 * accepts connections: listener bound, fabric up, not draining), {@code /connections} (JSON: every bridge with
 * its queue pair, as {@code rdma res show qp}), {@code /device} (the verbs device, as {@code ibv_devinfo}) and
 * {@code /stat} (the device's counters, as {@code rdma statistic}).
 */
public final class AdminServer {

    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Vertx vertx;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private final Supplier<List<ConnectionInfo>> connections;
    private final VerbsDevice device;
    private HttpServer server;

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

    /** Binds the server; the future carries the actual port (useful with port 0). */
    public Future<Integer> start(String host, int port) {
        return vertx.createHttpServer()
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
        switch (request.path()) {
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
                    .put("openedAt", java.time.Instant.ofEpochMilli(c.openedAtMillis()).toString())
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

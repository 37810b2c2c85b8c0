package io.vibridge.gateway.admin;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpState;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.wire.Encapsulation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class AdminServerTest {

    private Vertx vertx;
    private AdminServer admin;
    private GatewayMetrics metrics;
    private final AtomicBoolean ready = new AtomicBoolean();
    private int port;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        metrics = new GatewayMetrics(registry);
        admin = new AdminServer(vertx, registry, ready::get, () -> List.of(
                new ConnectionInfo(7, "127.0.0.1:40000", "storage", "127.0.0.3:5000/0x21388", "CONNECTED",
                        123, 456, 1_700_000_000_000L, "iwarp", QpInfo.basic(17, QpState.RTS, 1024)),
                new ConnectionInfo(8, "127.0.0.1:40001", "", "", "INCOMING", 0, 0, 1_700_000_000_000L, "vitcp")));
        port = admin.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void metricsShowTheGatewayMetersAndTheyMove() throws Exception {
        String before = get("/metrics").body();
        assertThat(before)
                .contains("vibridge_connections_active{encapsulation=\"vitcp\"} 0.0")
                .contains("vibridge_connections_active{encapsulation=\"rdmatcp\"} 0.0")
                .contains("vibridge_connections_rejected_total{reason=\"no_route\"} 0.0")
                .contains("vibridge_rdmatcp_frame_errors_total{check=\"crc\"} 0.0")
                .contains("vibridge_rdmatcp_frame_errors_total{check=\"connection-id\"} 0.0")
                .contains("vibridge_bytes_total{direction=\"client_to_target\",operation=\"send\"} 0.0");

        metrics.connectionOpened(Encapsulation.RDMATCP);
        metrics.clientBytes(Encapsulation.RDMATCP).in().increment(100);
        metrics.frameError(FrameCheck.CRC);
        metrics.rejected(RejectReason.NO_ROUTE);
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.SEND, 4096);
        metrics.cmRoundTrip(150_000);

        HttpResponse<String> after = get("/metrics");
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(after.body())
                .contains("vibridge_connections_active{encapsulation=\"rdmatcp\"} 1.0")
                .contains("vibridge_connections_active{encapsulation=\"vitcp\"} 0.0")
                .contains("vibridge_connections_opened_total{encapsulation=\"rdmatcp\"} 1.0")
                .contains("vibridge_client_bytes_total{direction=\"in\",encapsulation=\"rdmatcp\"} 100.0")
                .contains("vibridge_rdmatcp_frame_errors_total{check=\"crc\"} 1.0")
                .contains("vibridge_connections_rejected_total{reason=\"no_route\"} 1.0")
                .contains("vibridge_bytes_total{direction=\"client_to_target\",operation=\"send\"} 4096.0")
                .contains("vibridge_messages_total{direction=\"client_to_target\",operation=\"send\"} 1.0")
                .contains("vibridge_cm_rtt_seconds_count 1");
    }

    @Test
    void healthIsUpAndReadinessFollowsTheGateway() throws Exception {
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/ready").statusCode()).isEqualTo(503);
        ready.set(true);
        HttpResponse<String> r = get("/ready");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("READY");
    }

    @Test
    void connectionsAreListedAsJson() throws Exception {
        HttpResponse<String> r = get("/connections");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonArray array = new JsonArray(r.body());
        assertThat(array).hasSize(2);
        assertThat(array.getJsonObject(0).getString("client")).isEqualTo("127.0.0.1:40000");
        assertThat(array.getJsonObject(0).getLong("bytesOut")).isEqualTo(456L);
        assertThat(array.getJsonObject(0).getString("openedAt")).isEqualTo("2023-11-14T22:13:20Z");
        // the queue pair: what the provider knows, null for what it cannot say (DiSNI: QPN, state, MTU)
        JsonObject ib = array.getJsonObject(0).getJsonObject("infiniband");
        assertThat(ib.getInteger("qpn")).isEqualTo(17);
        assertThat(ib.getString("state")).isEqualTo("RTS");
        assertThat(ib.getInteger("pathMtu")).isEqualTo(1024);
        assertThat(ib.containsKey("remoteQpn")).isTrue();
        assertThat(ib.getLong("remoteQpn")).isNull();
        assertThat(ib.getLong("sendPsn")).isNull();
        assertThat(ib.getLong("retransmissions")).isNull();
        assertThat(array.getJsonObject(1).containsKey("infiniband")).isTrue();
        assertThat(array.getJsonObject(1).getJsonObject("infiniband")).isNull();   // no queue pair yet
    }

    @Test
    void withoutADeviceTheDeviceViewsAreNotFound() throws Exception {
        assertThat(get("/device").statusCode()).isEqualTo(404);
        assertThat(get("/stat").statusCode()).isEqualTo(404);
    }

    @Test
    void unknownPathsAndMethodsAreRefused() throws Exception {
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }
}

package io.vibridge.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vibridge.gateway.cli.CliRun;
import io.vibridge.gateway.config.ConfigError;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin endpoint is loopback by default, takes an optional bearer token for everything but
 * /health and /ready, closes idle connections and holds a bounded number of them.
 */
class AdminAccessTest {
    static final String TOKEN = "s3cret-admin-token-0123456789";
    private static final int WAIT_MILLIS = 30_000; // a generous bound for a close to arrive, not a speed figure

    private final HttpClient http = HttpClient.newHttpClient();
    private Vertx vertx;
    private final AtomicBoolean ready = new AtomicBoolean();

    @AfterEach
    void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private int start(AdminServer.Options options) throws Exception {
        vertx = Vertx.vertx();
        AdminServer admin = new AdminServer(vertx, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), ready::get,
                () -> List.of(new ConnectionInfo(7, "127.0.0.1:40000", "storage", "127.0.0.3:5000/0x21388",
                        "CONNECTED", 1, 2, 1_700_000_000_000L, "vitcp")));
        return admin.start("127.0.0.1", 0, options).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<String> get(int port, String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDefaultBindsLoopbackOnly() throws Exception {
        GatewayConfig defaults = GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway {}"));
        assertThat(defaults.admin().host()).isEqualTo("127.0.0.1");
        assertThat(defaults.admin().tokenRequired()).isFalse();
        // a gateway with the default admin.host: reachable on 127.0.0.1, not on another address of the host
        // (127.0.0.5 stands for one: a socket bound to 0.0.0.0 would answer there too)
        try (GatewayServer g = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString(
                "vibridge.gateway { listen { host = \"127.0.0.1\", port = 0, rdmatcp-port = off }\n"
                        + "admin.port = 0\ninfiniband { provider = soft, address = \"127.0.0.253\" }\n"
                        + "shutdown-grace = 1s }")))) {
            assertThat(get(g.adminPort(), "/health", null).statusCode()).isEqualTo(200);
            assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.5", g.adminPort()), WAIT_MILLIS))
                    .isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void withATokenEverythingButHealthAndReadyNeedsIt() throws Exception {
        int port = start(new AdminServer.Options(TOKEN, Duration.ofSeconds(30), 64));
        for (String path : List.of("/metrics", "/connections", "/device", "/stat", "/nope")) {
            HttpResponse<String> none = get(port, path, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"vibridge\"");
            assertThat(none.body()).doesNotContain("127.0.0.1:40000");
            HttpResponse<String> wrong = get(port, path, "Bearer " + TOKEN + "x");
            assertThat(wrong.statusCode()).as(path).isEqualTo(401);
            assertThat(wrong.headers().firstValue("WWW-Authenticate")).get().asString().contains("invalid_token");
            assertThat(get(port, path, "Basic " + TOKEN).statusCode()).as(path).isEqualTo(401);
        }
        assertThat(get(port, "/connections", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(get(port, "/connections", "bearer " + TOKEN).body()).contains("127.0.0.1:40000");
        assertThat(get(port, "/metrics", "Bearer " + TOKEN).body()).contains("vibridge_admin_unauthorized_total 15.0");
        // what orchestrators probe stays open
        assertThat(get(port, "/health", null).statusCode()).isEqualTo(200);
        assertThat(get(port, "/ready", null).statusCode()).isEqualTo(503);
        ready.set(true);
        assertThat(get(port, "/ready", null).statusCode()).isEqualTo(200);
    }

    /** Reads until EOF; the bytes read. Fails (SocketTimeoutException) when the server keeps the connection. */
    private static byte[] untilClosed(Socket s) throws IOException {
        s.setSoTimeout(WAIT_MILLIS);
        return s.getInputStream().readAllBytes();
    }

    private static String oneRequest(Socket s) throws IOException {
        s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.setSoTimeout(WAIT_MILLIS);
        InputStream in = s.getInputStream();
        StringBuilder b = new StringBuilder();
        while (!b.toString().contains("\r\n\r\n") || !b.toString().endsWith("}\n")) { // the JSON body ends "}\n"
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        int port = start(new AdminServer.Options(null, Duration.ofMillis(300), 64));
        try (Socket silent = new Socket("127.0.0.1", port)) {
            assertThat(untilClosed(silent)).isEmpty();
        }
        try (Socket kept = new Socket("127.0.0.1", port)) {
            assertThat(oneRequest(kept)).startsWith("HTTP/1.1 200");
            assertThat(untilClosed(kept)).as("closed once idle after its request").isEmpty();
        }
    }

    @Test
    void connectionsBeyondTheCapAreClosedAtOnce() throws Exception {
        int port = start(new AdminServer.Options(null, Duration.ofSeconds(60), 2));
        // a and b say nothing (the attack: idle connections up to the fd limit); accepted first, they fill the cap
        try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port)) {
            try (Socket c = new Socket("127.0.0.1", port)) {
                c.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(untilClosed(c)).as("no answer beyond the cap").isEmpty();
            } catch (SocketException reset) {
                // closed before the request was written: as good
            }
            a.close();
            // a's slot comes free once the server has seen it close
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            String answer = "";
            while (!answer.startsWith("HTTP/1.1 200") && System.nanoTime() < end) {
                try (Socket d = new Socket("127.0.0.1", port)) {
                    answer = oneRequest(d);
                } catch (SocketException closed) {
                    answer = "";
                }
            }
            assertThat(answer).startsWith("HTTP/1.1 200");
            assertThat(oneRequest(b)).as("the kept connection still works").startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void theCliSendsTheTokenFromAFile(@TempDir Path dir) throws Exception {
        int port = start(new AdminServer.Options(TOKEN, Duration.ofSeconds(30), 64));
        Path file = dir.resolve("token");
        Files.writeString(file, TOKEN + "\n");
        String url = "http://127.0.0.1:" + port;
        CliRun ok = CliRun.of("connections", "--url", url, "--token-file", file.toString());
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("127.0.0.1:40000");
        CliRun without = CliRun.of("connections", "--url", url);
        assertThat(without.code()).isEqualTo(1);
        assertThat(without.err().lines().toList()).hasSize(1).first().asString().contains("answered 401")
                .contains("--token-file");
        Path wrong = dir.resolve("wrong");
        Files.writeString(wrong, "not-the-right-token-at-all\n");
        assertThat(CliRun.of("stat", "--url", url, "--token-file", wrong.toString()).err()).contains("this one is wrong");
    }

    @Test
    void theTokenComesFromTheConfigOrAFileNotBoth(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, TOKEN + "\nsecond line ignored\n");
        assertThat(config("token = \"" + TOKEN + "\"").admin().token()).isEqualTo(TOKEN);
        assertThat(config("token-file = \"" + file + "\"").admin().token()).isEqualTo(TOKEN);
        assertThatThrownBy(() -> config("token = \"" + TOKEN + "\", token-file = \"" + file + "\""))
                .isInstanceOf(ConfigError.class).hasMessageContaining("not both");
        assertThatThrownBy(() -> config("token = short")).isInstanceOf(ConfigError.class)
                .hasMessageContaining("vibridge.gateway.admin.token").hasMessageContaining("at least 16");
        assertThatThrownBy(() -> config("token = \"has spaces in the token\"")).isInstanceOf(ConfigError.class)
                .hasMessageContaining("RFC 6750");
        assertThatThrownBy(() -> config("token-file = \"" + dir.resolve("absent") + "\"")).isInstanceOf(ConfigError.class)
                .hasMessageContaining("vibridge.gateway.admin.token-file").hasMessageContaining("cannot read");
        assertThat(config("idle-timeout = 5s, max-connections = 8").admin())
                .extracting(GatewayConfig.Admin::idleTimeout, GatewayConfig.Admin::maxConnections)
                .containsExactly(Duration.ofSeconds(5), 8);
    }

    private static GatewayConfig config(String admin) {
        return GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway.admin { " + admin + " }"));
    }
}

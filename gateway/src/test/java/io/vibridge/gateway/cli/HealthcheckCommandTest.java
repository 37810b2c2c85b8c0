package io.vibridge.gateway.cli;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;

class HealthcheckCommandTest {

    @Test
    void exitsZeroOnlyWhenTheEndpointAnswers2xx() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/health", ex -> {
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.createContext("/ready", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            assertThat(Main.execute("healthcheck", "--url", base + "/health")).isZero();
            assertThat(Main.execute("healthcheck", "--url", base + "/ready")).isEqualTo(1);
        } finally {
            server.stop(0);
        }
        // Nothing listens any more: a refused connection is unhealthy, not an exception.
        assertThat(Main.execute("healthcheck", "--url",
                "http://127.0.0.1:" + server.getAddress().getPort() + "/health")).isEqualTo(1);
    }
}

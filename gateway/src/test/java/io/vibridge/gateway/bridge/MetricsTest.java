package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** /metrics scraped over HTTP before and after traffic: the listed meters move; /connections lists the bridge. */
class MetricsTest {

    static String get(int port, String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(T).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    static double value(String scrape, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+)$").matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void metricsMoveWithTraffic() throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.67", 5000, 4, 65552);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.68",
                        TestSupport.route("echo", "127.0.0.67", 5000, 0, 4), ""));
                ViNic nic = TestSupport.clientNic()) {
            String before = get(g.adminPort(), "/metrics");
            assertThat(value(before, "vibridge_connections_active{encapsulation=\"vitcp\"}")).isEqualTo(0);
            assertThat(value(before, "vibridge_bytes_total{direction=\"client_to_target\",operation=\"send\"}")).isEqualTo(0);
            assertThat(before).contains("vibridge_ib_retransmissions_total", "vibridge_staging_slots_capacity",
                    "vibridge_ib_naks_received_total{kind=\"rnr\"}");
            assertThat(get(g.adminPort(), "/ready")).contains("READY");
            try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 4)) {
                c.connect(g.port(), "echo");
                for (int i = 0; i < 10; i++) {
                    c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 10000));
                    assertThat(c.vi.sendWait(T).isError()).isFalse();
                    assertThat(c.vi.recvWait(T).isError()).isFalse();
                    c.vi.postRecv(Descriptor.receive().data(c.mr, (i % 4) * 65536, 65536));
                }
                c.vi.postSend(Descriptor.rdmaWrite(target.rdma.address(), target.rdma.rkey()).data(c.mr, 0, 5000));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                String during = get(g.adminPort(), "/metrics");
                assertThat(value(during, "vibridge_connections_active{encapsulation=\"vitcp\"}")).isEqualTo(1);
                assertThat(value(during, "vibridge_connections_opened_total{encapsulation=\"vitcp\"}")).isEqualTo(1);
                assertThat(value(during, "vibridge_bytes_total{direction=\"client_to_target\",operation=\"send\"}"))
                        .isEqualTo(100000);
                assertThat(value(during, "vibridge_messages_total{direction=\"target_to_client\",operation=\"send\"}"))
                        .isEqualTo(10);
                assertThat(value(during, "vibridge_bytes_total{direction=\"client_to_target\",operation=\"rdma_write\"}"))
                        .isEqualTo(5000);
                assertThat(value(during, "vibridge_cm_rtt_seconds_count")).isEqualTo(1);
                assertThat(value(during, "vibridge_staging_slots_in_use")).isGreaterThan(0);
                assertThat(value(during, "vibridge_ib_packets_total{direction=\"out\"}")).isGreaterThan(10);
                String conns = get(g.adminPort(), "/connections");
                assertThat(conns).contains("\"route\":\"\\\"echo\\\"\"").contains("\"state\":\"CONNECTED\"");
            }
            EndToEndTest.awaitTrue(() -> g.bridgeContext().bridges().isEmpty());
            String after = get(g.adminPort(), "/metrics");
            assertThat(value(after, "vibridge_connections_active{encapsulation=\"vitcp\"}")).isEqualTo(0);
            assertThat(value(after, "vibridge_connections_closed_total{encapsulation=\"vitcp\"}")).isEqualTo(1);
            assertThat(value(after, "vibridge_staging_slots_in_use")).isEqualTo(0);
        }
    }
}

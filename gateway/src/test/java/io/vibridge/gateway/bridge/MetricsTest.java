package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.MemoryLimits;
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

    /**
     * One connection set up: the setup histograms have their 19 buckets (10 us .. 10 s) and +Inf with one
     * observation; the JVM, process and build meters are there, the direct buffer pool holding at least the
     * staging chunks allocated so far.
     */
    static void assertSetupHistogramsAndProcessMeters(String scrape, StagingPool pool) {
        for (String h : new String[] {"vibridge_connect_setup_seconds", "vibridge_cm_rtt_seconds"}) {
            assertThat(Pattern.compile("(?m)^" + h + "_bucket\\{le=").matcher(scrape).results().count()).as(h)
                    .isEqualTo(20);
            assertThat(value(scrape, h + "_bucket{le=\"1.0E-5\"}")).as(h).isZero();
            assertThat(value(scrape, h + "_bucket{le=\"10.0\"}")).as(h).isEqualTo(1);
            assertThat(value(scrape, h + "_bucket{le=\"+Inf\"}")).as(h).isEqualTo(1);
            assertThat(value(scrape, h + "_count")).as(h).isEqualTo(1);
        }
        assertThat(value(scrape, "jvm_buffer_memory_used_bytes{id=\"direct\"}"))
                .isGreaterThanOrEqualTo((double) pool.allocated() * pool.slotSize());
        assertThat(value(scrape, "vibridge_direct_memory_max_bytes")).isEqualTo(MemoryLimits.ofThisJvm().maxDirect());
        assertThat(value(scrape, "vibridge_staging_allocation_failures_total")).isZero();
        assertThat(scrape).containsPattern("(?m)^jvm_memory_used_bytes\\{area=\"heap\",id=\"[^\"]+\"\\} [0-9]")
                .containsPattern("(?m)^jvm_memory_max_bytes\\{area=\"nonheap\",id=\"Metaspace\"\\} ")
                .contains("jvm_gc_memory_allocated_bytes_total ", "jvm_gc_overhead ", "jvm_threads_states_threads{",
                        "jvm_info{", "process_cpu_usage ", "system_cpu_processors ", "process_start_time_seconds ")
                .doesNotContain("process_cpu_time_ns_total", "system_cpu_count");
        assertThat(value(scrape, "jvm_threads_live_threads")).isPositive();
        assertThat(value(scrape, "jvm_classes_loaded_classes")).isPositive();
        assertThat(value(scrape, "process_cpu_seconds_total")).isPositive();
        assertThat(value(scrape, "process_uptime_seconds")).isPositive();
        assertThat(value(scrape, "process_files_open_files")).isPositive();
        assertThat(value(scrape, "vibridge_build_info{version=\"development\"}")).isEqualTo(1);
    }

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
            assertThat(before).contains("vibridge_ib_retransmissions_total", "vibridge_ib_rnr_wait_seconds_total", "vibridge_staging_slots_capacity",
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
                // Reliable Delivery completes the client's send once the gateway has it; the gateway counts the
                // RDMA Write when InfiniBand completes it, a moment later
                EndToEndTest.awaitTrue(() -> g.registry().get("vibridge.bytes").tags("direction", "client_to_target",
                        "operation", "rdma_write").counter().count() == 5000);
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
                assertSetupHistogramsAndProcessMeters(during, g.bridgeContext().pool());
                String conns = get(g.adminPort(), "/connections");
                assertThat(conns).contains("\"route\":\"\\\"echo\\\"\"").contains("\"state\":\"CONNECTED\"");
            }
            EndToEndTest.awaitTrue(() -> g.bridgeContext().connections().isEmpty());
            String after = get(g.adminPort(), "/metrics");
            assertThat(value(after, "vibridge_connections_active{encapsulation=\"vitcp\"}")).isEqualTo(0);
            assertThat(value(after, "vibridge_connections_closed_total{encapsulation=\"vitcp\"}")).isEqualTo(1);
            assertThat(value(after, "vibridge_staging_slots_in_use")).isEqualTo(0);
        }
    }
}

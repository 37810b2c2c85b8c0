package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.cli.CliRun;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The RDMA user's views of a running gateway with one bridged connection: {@code /connections} and
 * {@code vibridge connections} with the bridge's queue pair, {@code /stat} and {@code vibridge stat}, and
 * {@code vibridge devices} on the gateway's own address (held by it: read from {@code /device}) and on a
 * free one (opened and closed again).
 */
class AdminViewsTest {
    private static final String TARGET = "127.0.0.130";
    private static final String GATEWAY = "127.0.0.131";
    private static final String FREE = "127.0.0.132";

    @Test
    void aLiveBridgeShowsItsQueuePairCountersAndDevice() throws Exception {
        try (EchoTarget target = new EchoTarget(TARGET, 5000, 4, 65552);
                GatewayServer g = GatewayServer.start(TestSupport.config(GATEWAY,
                        TestSupport.route("echo", TARGET, 5000, 0, 4), ""));
                ViNic nic = TestSupport.clientNic();
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 4)) {
            c.connect(g.port(), "echo");
            c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 10000));
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            assertThat(c.vi.recvWait(T).isError()).isFalse();
            String url = "http://127.0.0.1:" + g.adminPort();

            JsonArray connections = new JsonArray(MetricsTest.get(g.adminPort(), "/connections"));
            assertThat(connections).hasSize(1);
            JsonObject bridge = connections.getJsonObject(0);
            assertThat(bridge.getString("route")).isEqualTo("\"echo\"");   // the fields of before are all still there
            JsonObject ib = bridge.getJsonObject("infiniband");
            assertThat(ib.getInteger("qpn")).isGreaterThanOrEqualTo(16);             // rxe's first ordinary QPN
            assertThat(ib.getLong("remoteQpn")).isGreaterThanOrEqualTo(16L);
            assertThat(ib.getString("state")).isEqualTo("RTS");
            assertThat(ib.getInteger("pathMtu")).isEqualTo(4096);                    // loopback
            assertThat(ib.getLong("sendPsn")).isBetween(0L, 0xFFFFFFL);
            assertThat(ib.getLong("expectedPsn")).isBetween(0L, 0xFFFFFFL);
            assertThat(ib.getLong("retransmissions")).isNotNull();
            assertThat(ib.getLong("timeouts")).isNotNull();

            CliRun conns = CliRun.of("connections", "--url", url);
            assertThat(conns.code()).as(conns.err()).isZero();
            assertThat(conns.out().lines().toList()).hasSize(2);
            assertThat(conns.out().lines().findFirst().orElseThrow()).startsWith("id ").contains("lqpn", "rqpn",
                    "qp-state", "sq-psn", "rq-psn", "mtu", "retrans", "timeouts");
            assertThat(conns.out().lines().skip(1).findFirst().orElseThrow())
                    .contains("vitcp", "echo", TARGET + ":5000", " " + ib.getInteger("qpn") + " ",
                            " " + ib.getLong("remoteQpn") + " ", "RTS", "4096");

            CliRun stat = CliRun.of("stat", "--url", url);
            assertThat(stat.code()).as(stat.err()).isZero();
            assertThat(stat.out().lines().findFirst().orElseThrow()).isEqualTo("link soft-" + GATEWAY + "/1");
            assertThat(stat.out()).containsPattern("(?m)^packets_out [1-9][0-9]*$")
                    .containsPattern("(?m)^retransmissions [0-9]+$").containsPattern("(?m)^icrc_drops 0$");

            CliRun devices = CliRun.of("devices", "--address", GATEWAY, "--provider", "soft", "--url", url);
            assertThat(devices.code()).as(devices.err()).isZero();
            assertThat(devices.out()).contains(GATEWAY + ":4791 is in use", "hca_id:\tsoft-" + GATEWAY,
                    "0000:0000:0000:0000:0000:ffff:7f00:0083, RoCE v2 (::ffff:" + GATEWAY + ")", "udp_port:",
                    "idle:");
        }
    }

    @Test
    void devicesOpensAFreeAddressAndReleasesIt() throws Exception {
        CliRun r = CliRun.of("devices", "--address", FREE, "--provider", "soft");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^\tsoft +priority 0 +usable$")
                .containsPattern("(?m)^\tdisni +priority 100 +unusable: .*\\(only when named\\)$")
                .contains("hca_id:\tsoft-" + FREE, "\tprovider:\t\t\tsoft", "PORT_ACTIVE (4)", "max_mtu:\t\t4096 (5)",
                        "active_mtu:\t\t4096 (5)", "link_layer:\t\tEthernet", "ffff:7f00:0084, RoCE v2",
                        "REMOTE_ACCESS_HANDLER", "udp_port:\t\t4791", "interface_mtu:\t\t65536", "udp_offload:",
                        "idle:\t\t\tblock", "target RDMA WRITE, READ -> client:\tyes (cut-through)",
                        "cm-format hello:\t\t\twhole Hello (92 bytes)", "Service IDs:\t\t\t\tany");
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress(FREE, 4791))) {
            assertThat(again.isBound()).isTrue();
        }
    }

    @Test
    void viewsOfAGatewayThatIsNotThereAreOneLine() {
        for (String command : new String[] {"connections", "stat"}) {
            CliRun r = CliRun.of(command, "--url", "http://127.0.0.1:1");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.err().lines().toList()).singleElement().asString()
                    .startsWith("vibridge " + command + ": cannot reach the gateway's admin endpoint http://127.0.0.1:1/");
        }
        CliRun watch = CliRun.of("stat", "--watch", "0");
        assertThat(watch.code()).isEqualTo(2);
        assertThat(watch.err()).startsWith("vibridge stat: --watch must be at least 1 second");
    }
}

package io.vibridge.gateway.tools;

import io.vibridge.gateway.demo.control.TargetMode;
import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The tools end to end: VI/TCP client -> gateway -> soft RoCEv2 fabric -> demo target, one JVM. */
class ThroughGatewayTest {
    static TargetService target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() throws Exception {
        target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.44")).withProvider("soft")
                .withReceives(16, 65552).withRegionSize(4 << 20)
                .withSchemes(Set.of(ServiceIdScheme.IWARP, ServiceIdScheme.SDP, ServiceIdScheme.RDMA_CM)));
        String route = "{ match = \"demo%d\", target = \"127.0.0.44\", port = 5000, flowc = %d, "
                + "receive-size = 65552, receive-buffers = 8 }";
        String hocon = "vibridge.gateway { listen { host = \"127.0.0.1\", port = 0, rdmatcp-port = 0 }\n"
                + "admin { host = \"127.0.0.1\", port = 0 }\n"
                + "infiniband { provider = soft, address = \"127.0.0.43\", local-ack-timeout = 14, cm-response-timeout = 14 }\n"
                + "staging { max-slots = 256 }\nshutdown-grace = 2s\n"
                + "routes = [" + route.formatted(0, 0) + "," + route.formatted(1, 1) + ",\n"
                + "{ match = \"demo-sdp\", target = \"127.0.0.44\", port = 5000, service-id = sdp, flowc = 0, "
                + "receive-size = 65552, receive-buffers = 8 }\n"
                + "{ match = \"demo-cma\", target = \"127.0.0.44\", port = 5000, service-id = rdma-cm, "
                + "cm-format = rdma-cm, flowc = 1, receive-size = 65552, receive-buffers = 8 }\n"
                // CM-MAPPING §2.1: the short Hello behind a CMA header the gateway writes, as rdma_cm would
                + "{ match = \"demo-hello-cma\", target = \"127.0.0.44\", port = 5000, service-id = rdma-cm, "
                + "hello-carriage = cma-header, flowc = 0, receive-size = 65552, receive-buffers = 8 }\n"
                + "{ match = \"demo-hello-cma-fc1\", target = \"127.0.0.44\", port = 5000, service-id = rdma-cm, "
                + "hello-carriage = cma-header, flowc = 1, receive-size = 65552, receive-buffers = 8 } ]\n}";
        gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString(hocon)));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    static ViClientOptions options(int flowc, int size) {
        return new ViClientOptions(new InetSocketAddress("127.0.0.1", gateway.port()), "demo" + flowc,
                ReliabilityLevel.RELIABLE_RECEPTION, true, null, size, 8, 4, Duration.ofSeconds(30));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void ping_throughTheGateway(int flowc) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Ping.run(options(flowc, 1000), 3, Duration.ZERO, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("3 sent, 3 received, 0 mismatched");
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo-sdp", "demo-cma", "demo-hello-cma", "demo-hello-cma-fc1"})
    void ping_overSdpAndRdmaCmRoutes(String route) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Ping.run(options(0, 1000).withDiscriminator(route), 3, Duration.ZERO,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void perf_everyTest_throughTheGateway(int flowc) throws Exception {
        Perf.Settings s = new Perf.Settings(EnumSet.allOf(Perf.Test.class), 8, 65536, 30, 30, null, 10, 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Perf.Result> rs = Perf.run(options(flowc, 65536), s, "through the gateway",
                new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(rs).extracting(Perf.Result::test).containsExactly(Perf.Test.values());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("RDMA Read BW Test (VI/TCP, through the gateway)");
    }

    /**
     * Zero-length Sends without immediate data, client -> gateway -> demo target -> gateway -> client: with
     * FlowC 0 each is a header-only SEND marked FLAG_EMPTY_MESSAGE both ways (without the flag the target, and
     * the bridge on the way back, would take it for a credit update and the client would wait forever). More
     * messages than receive buffers, so credits cycle; then the sink counts them.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void zeroLengthSends_areEchoedAndCounted(int flowc) throws Exception {
        try (ViClient c = ViClient.open(options(flowc, 65536))) {
            c.connect();
            for (int i = 0; i < 20; i++) {
                c.vi.postSend(Descriptor.send().data(c.sendMr, 0, 0));
                Descriptor echo = c.awaitReceive();
                assertThat(echo.length()).isZero();
                assertThat(echo.hasImmediate()).isFalse();
                c.repost(echo);
                c.awaitSend();
            }
            assertThat(c.controlOk(Control.STATS, null).getLong(Control.HEADER)).isEqualTo(20);
            c.setMode(TargetMode.SINK);
            for (int i = 0; i < 5; i++) {
                c.vi.postSend(Descriptor.send().data(c.sendMr, 0, 0));
                c.awaitSend();
            }
            // RC keeps order: the STATS request is read after the five empty messages
            assertThat(c.controlOk(Control.STATS, null).getLong(Control.HEADER)).isEqualTo(25);
        }
    }

    /**
     * Default echo mode: a WRITE WITH IMMEDIATE takes a target receive (and with FlowC 0 an mseq,
     * advertising nothing) and is not answered; the Send after it is echoed into the right receive.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void writeWithImmediate_isNotAnsweredByTheDefaultEcho(int flowc) throws Exception {
        try (ViClient c = ViClient.open(options(flowc, 65536))) {
            c.connect();
            WriteWithImmediateChecks.writesAreNotAnswered(c);
        }
    }

    /** echo-ack-writes, selected explicitly: each WRITE WITH IMMEDIATE is answered by an empty Send with its immediate. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void writeWithImmediate_isAnsweredInEchoAckWritesMode(int flowc) throws Exception {
        try (ViClient c = ViClient.open(options(flowc, 65536))) {
            c.connect();
            c.setMode(TargetMode.ECHO_ACK_WRITES);
            WriteWithImmediateChecks.writesAreAnswered(c);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void targetInitiatedRdma_throughTheGateway(int flowc) throws Exception {
        try (ViClient c = ViClient.open(options(flowc, 65536))) {
            MemoryRegion mem = c.expose(1 << 20);
            c.connect();
            // the target RDMA WRITEs a pattern into our memory (cut through the gateway)
            int len = 100_000;
            ByteBuffer w = ByteBuffer.allocate(20).putLong(0, mem.address(4096)).putInt(8, mem.handle())
                    .putInt(12, len).putInt(16, 42);
            ByteBuffer wr = c.controlOk(Control.WRITE_TO_PEER, w);
            assertThat(wr.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(42, len));
            assertThat(Control.crc32c(mem.buffer(), 4096, len)).isEqualTo(Control.patternCrc(42, len));
            // the target RDMA READs our memory and returns the CRC of what it read
            Control.fillPattern(mem.buffer(), 500_000, 70_000, 7);
            ByteBuffer r = ByteBuffer.allocate(16).putLong(0, mem.address(500_000)).putInt(8, mem.handle())
                    .putInt(12, 70_000);
            ByteBuffer rr = c.controlOk(Control.READ_FROM_PEER, r);
            assertThat(rr.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(7, 70_000));
        }
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One client address gets a share of {@code limits.max-connections} by default (1/8), so it cannot
 * exhaust the gateway or its target for everyone else; each refusal names the limit it hit, in the log line, in
 * {@code vibridge_connections_limited_total{limit}} and, for iWARP, in the MPA Reject's private data.
 */
class FairShareTest {
    static EchoTarget target;
    static GatewayServer gateway;
    static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    static final Logger bridgeLog = (Logger) LoggerFactory.getLogger("io.vibridge.gateway.bridge");

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.235", 5000, 8, 65552);
        // max-connections 24: each address may hold 3 (auto), the gateway 24
        gateway = GatewayServer.start(TestSupport.config("127.0.0.236",
                TestSupport.route("echo", "127.0.0.235", 5000, 1, 4),
                // CM timeouts of the defaults (1 s, 3 retries), not TestSupport's 67 ms: under a loaded machine's
                // full test run a slow CM answer would be IS 12, and this test counts every connection
                "limits { max-connections = 24 }\ninfiniband { cm-response-timeout = 18, max-cm-retries = 3 }\niwarp { host = \"127.0.0.1\", listeners = [ { port = 0, route = \"echo\" } ] }"));
        logs.start();
        bridgeLog.addAppender(logs);
    }

    /** The lines logged so far (ListAppender appends under its own lock: AppenderBase.doAppend). */
    private static List<ILoggingEvent> lines() {
        synchronized (logs) {
            return new ArrayList<>(logs.list);
        }
    }

    @AfterAll
    static void stop() {
        bridgeLog.detachAppender(logs);
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static GatewayConfig config(String limits) {
        return GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway { limits { " + limits + " } }"));
    }

    @Test
    void theDefaultPerClientLimitIsAnEighthOfTheGatewaysLimit() {
        assertThat(config("").limits().maxConnections()).isEqualTo(1000);
        assertThat(config("").limits().maxConnectionsPerClient()).isEqualTo(125);
        assertThat(config("max-connections = 24").limits().maxConnectionsPerClient()).isEqualTo(3);
        assertThat(config("max-connections = 5").limits().maxConnectionsPerClient()).as("at least 1").isEqualTo(1);
        assertThat(config("max-connections-per-client = auto").limits().maxConnectionsPerClient()).isEqualTo(125);
        // one big client, or many behind one NAT address: the operator sets it
        assertThat(config("max-connections-per-client = 1000").limits().maxConnectionsPerClient()).isEqualTo(1000);
    }

    /** A raw VI/TCP connection from {@code from}: the answer's segment (Accept or Reject); kept open when accepted. */
    private static ControlSegment connect(String from, List<SocketChannel> open) throws IOException {
        SocketChannel ch = SocketChannel.open();
        ch.bind(new InetSocketAddress(from, 0));
        ch.connect(new InetSocketAddress("127.0.0.1", gateway.port()));
        ConnectionHeader h = ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, true, false, false),
                Discriminator.ofUtf8("fair"), 65536, 4, Discriminator.ofUtf8("echo"));
        ByteBuffer b = ByteBuffer.allocate(512);
        b.limit(new ConnectRequest(1000, 0, 4, h).encode(b, 0));
        while (b.hasRemaining()) {
            ch.write(b);
        }
        ch.socket().setSoTimeout((int) T.toMillis());
        var in = ch.socket().getInputStream();
        byte[] head = in.readNBytes(24);
        int len = SegmentHeader.segmentLength(ByteBuffer.wrap(head), 0);
        ByteBuffer seg = ByteBuffer.allocate(len).put(head).put(in.readNBytes(len - 24)).flip();
        ControlSegment answer = ControlSegment.decode(seg, 0, len);
        if (answer instanceof ConnectReject) {
            ch.close();
        } else {
            open.add(ch);
        }
        return answer;
    }

    private static String scrape() {
        return gateway.registry().scrape();
    }

    private static void assertLogged(String fragment) throws InterruptedException {
        EndToEndTest.awaitTrue(() -> lines().stream().anyMatch(e -> e.getFormattedMessage().contains(fragment)));
    }

    @Test
    void oneAddressGetsItsShareOthersStillConnectAndEachRefusalNamesItsLimit() throws Exception {
        List<SocketChannel> open = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                assertThat(connect("127.0.0.239", open)).as("within the share").isNotInstanceOf(ConnectReject.class);
            }
            assertThat(connect("127.0.0.239", open)).isEqualTo(new ConnectReject(IsCode.RESOURCES_EXHAUSTED));
            assertLogged("Connect Reject IS 14 (per-client connection limit 3 (limits.max-connections-per-client) "
                    + "reached by 127.0.0.239)");
            assertThat(scrape()).containsPattern("vibridge_connections_limited_total\\{limit=\"client\"\\} 1")
                    .containsPattern("vibridge_connections_rejected_total\\{reason=\"limit\"\\} 1");
            // the same address over iWARP shares the budget; the MPA Reject says which limit (RFC 5044 §7.1.2)
            // (IwarpClient connects from 127.0.0.1: fill that address's share first)
            for (int i = 0; i < 3; i++) {
                assertThat(connect("127.0.0.1", open)).isNotInstanceOf(ConnectReject.class);
            }
            try (var c = new IwarpClient(gateway.iwarpPorts().getFirst(), false)) {
                assertThat(c.closedByGateway(T)).isTrue();
                assertThat(c.failure).isNotNull();
                assertThat(c.failure.getMessage()).contains("per-client connection limit 3");
            }
            // other addresses are not affected, up to the gateway's own limit
            for (int a = 240; open.size() < 24; a++) {
                for (int i = 0; i < 3 && open.size() < 24; i++) {
                    assertThat(connect("127.0.0." + a, open)).isNotInstanceOf(ConnectReject.class);
                }
            }
            assertThat(connect("127.0.0.250", open)).isEqualTo(new ConnectReject(IsCode.RESOURCES_EXHAUSTED));
            assertLogged("Connect Reject IS 14 (gateway connection limit 24 (limits.max-connections))");
            assertThat(scrape()).containsPattern("vibridge_connections_limited_total\\{limit=\"gateway\"\\} 1")
                    .containsPattern("vibridge_connections_limited_total\\{limit=\"client\"\\} 2")
                    .containsPattern("vibridge_connections_limited_total\\{limit=\"staging\"\\} 0");
        } finally {
            for (SocketChannel ch : open) {
                ch.close();
            }
        }
    }
}

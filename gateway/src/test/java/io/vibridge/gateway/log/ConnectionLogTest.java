package io.vibridge.gateway.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.Ping;
import io.vibridge.gateway.tools.ViClientOptions;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Two connections through a gateway with the bridge's lines at DEBUG: every line a bridge logs for a
 * connection names its id in the message and carries the same id in the MDC, and the id does not leak
 * into the lines logged outside a connection.
 */
class ConnectionLogTest {

    @Test
    void everyLineOfAConnectionCarriesItsId() throws Exception {
        Logger bridge = (Logger) LoggerFactory.getLogger("io.vibridge.gateway.bridge");
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level saved = bridge.getLevel();
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        root.addAppender(events);
        bridge.setLevel(Level.DEBUG);
        try (TargetService target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.124"))
                .withProvider("soft"));
                GatewayServer gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString("""
                        vibridge.gateway {
                          listen { host = "127.0.0.1", port = 0, rdmatcp-port = off }
                          admin { host = "127.0.0.1", port = 0 }
                          infiniband { provider = soft, address = "127.0.0.125" }
                          routes = [ { match = "logged", target = "127.0.0.124", port = 5000 } ]
                        }
                        """)))) {
            for (int i = 0; i < 2; i++) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
                assertThat(Ping.run(new ViClientOptions(new InetSocketAddress("127.0.0.1", gateway.port()), "logged",
                        ReliabilityLevel.RELIABLE_DELIVERY, false, null, 100, 4, 1, Duration.ofSeconds(30)), 1,
                        Duration.ZERO, print, print)).as(out.toString(StandardCharsets.UTF_8)).isZero();
            }
        } finally {
            bridge.setLevel(saved);
            root.detachAppender(events);
        }
        List<ILoggingEvent> bridgeLines = events.list.stream()
                .filter(e -> e.getLoggerName().startsWith("io.vibridge.gateway.bridge.")).toList();
        // accepted, CM REQ, bridged, ended, closed ... for each of the two connections
        assertThat(bridgeLines).hasSizeGreaterThanOrEqualTo(4);
        Pattern conn = Pattern.compile("^(iwarp )?conn (\\d+) ");
        for (ILoggingEvent e : bridgeLines) {
            Matcher m = conn.matcher(e.getFormattedMessage());
            assertThat(m.find()).as(e.getFormattedMessage()).isTrue();
            assertThat(e.getMDCPropertyMap()).as(e.getFormattedMessage()).containsEntry(ConnectionLogger.KEY, m.group(2));
        }
        assertThat(bridgeLines.stream().map(e -> e.getMDCPropertyMap().get(ConnectionLogger.KEY)).distinct())
                .hasSize(2);
        assertThat(events.list.stream().filter(e -> !e.getLoggerName().startsWith("io.vibridge.gateway.bridge.")))
                .isNotEmpty().allSatisfy(e -> assertThat(e.getMDCPropertyMap()).doesNotContainKey(ConnectionLogger.KEY));
    }
}

package io.vibridge.gateway.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The shipped logback.xml (not the tests' logback-test.xml), loaded into a context of its own with
 * stdout captured: every text line starts with the date, time and zone offset; VIBRIDGE_LOG_FORMAT=json
 * gives one JSON object per line with the connection id in its MDC.
 */
class LogFormatTest {

    /** Lines the shipped configuration writes for {@code log}, with {@code format} (null: the default). */
    private static List<String> lines(String format, Consumer<LoggerContext> log) throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(MDC.getMDCAdapter()); // the one ConnectionLogger writes to
        if (format != null) {
            context.putProperty("VIBRIDGE_LOG_FORMAT", format);
        }
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
            log.accept(context);
        } finally {
            context.stop();
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void everyTextLineStartsWithDateTimeAndZone() throws Exception {
        List<String> lines = lines(null, c -> {
            c.getLogger("io.vibridge.gateway.server.GatewayServer").info("gateway stopped");
            ConnectionLogger.of(c.getLogger("io.vibridge.gateway.bridge.BridgedConnection"), 17)
                    .warn("conn {} target side disconnected", 17);
        });
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l)
                .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) .*"));
        assertThat(lines.get(0)).endsWith(" INFO  [main] i.v.g.s.GatewayServer - gateway stopped");
        assertThat(lines.get(1)).endsWith(" WARN  [main] i.v.g.b.BridgedConnection - conn 17 target side disconnected");
    }

    @Test
    void theJsonLayoutCarriesTheConnectionIdAsAField() throws Exception {
        List<String> lines = lines("json", c -> {
            Logger conn = ConnectionLogger.of(c.getLogger("io.vibridge.gateway.bridge.TargetSide"), 42);
            conn.info("conn {} InfiniBand {} failed: {}", 42, "SEND", "RETRY_EXCEEDED");
            c.getLogger("io.vibridge.gateway.server.GatewayServer").info("gateway stopped");
        });
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l).startsWith("{\"timestamp\":").endsWith("}"));
        assertThat(lines.get(0)).contains("\"level\":\"INFO\"")
                .contains("\"loggerName\":\"io.vibridge.gateway.bridge.TargetSide\"")
                .contains("\"mdc\": {\"conn\":\"42\"}")
                .contains("\"formattedMessage\":\"conn 42 InfiniBand SEND failed: RETRY_EXCEEDED\"");
        // the id is set for the connection's own line only
        assertThat(lines.get(1)).contains("\"mdc\": {}").contains("\"formattedMessage\":\"gateway stopped\"");
    }
}

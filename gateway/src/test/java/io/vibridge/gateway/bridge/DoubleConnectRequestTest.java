package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A second Connect Request on one VI/TCP connection, while the gateway still sets up the target side for the
 * first, is a protocol error (VITCP-PROFILE §9.8: a broken segment sequence closes TCP without a report). The
 * target's later CM Established must not meet a closed engine, which would throw an IllegalStateException
 * that Vert.x logs as an ERROR with its stack trace.
 */
class DoubleConnectRequestTest {
    static EchoTarget target;
    static GatewayServer gateway;
    static ViNic nic;
    static TestSupport.Client good;
    static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    static final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    /** Setup failures after the first of a kind per summary period are DEBUG (a flood is not a line each): count all. */
    static final Logger bridge = (Logger) LoggerFactory.getLogger(BridgedConnection.class);
    static Level bridgeLevel;

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.233", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.234",
                TestSupport.route("echo", "127.0.0.233", 5000, 1, 8), ""));
        nic = TestSupport.clientNic();
        good = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 8);
        good.connect(gateway.port(), "echo");
        bridgeLevel = bridge.getLevel();
        bridge.setLevel(Level.DEBUG);
        logs.start();
        root.addAppender(logs);
    }

    /** The lines logged so far (ListAppender appends under its own lock: AppenderBase.doAppend). */
    private static List<ILoggingEvent> lines() {
        synchronized (logs) {
            return new ArrayList<>(logs.list);
        }
    }

    @AfterAll
    static void stop() {
        root.detachAppender(logs);
        bridge.setLevel(bridgeLevel);
        good.close();
        nic.close();
        gateway.close();
        target.close();
    }

    private static ByteBuffer connectRequest() {
        ConnectionHeader h = ConnectionHeader.unsigned(
                ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, true, false, false),
                Discriminator.ofUtf8("raw"), 65536, 4, Discriminator.ofUtf8("echo"));
        ByteBuffer b = ByteBuffer.allocate(512);
        b.limit(new ConnectRequest(1000, 0, 4, h).encode(b, 0));
        return b;
    }

    /** Reads until EOF; what the gateway sent before closing. */
    private static byte[] readToEnd(SocketChannel ch) throws IOException {
        ch.socket().setSoTimeout((int) T.toMillis());
        return ch.socket().getInputStream().readAllBytes();
    }

    @Test
    void secondConnectRequestIsAProtocolErrorWithOneLineAndNoStackTrace() throws Exception {
        // the second request lands before, during or after the CM round trip of the first (delays of 0 to 4 ms):
        // the ERROR would come from one handled between the target's CM REP and the Established event
        int rounds = 160;
        for (int i = 0; i < rounds; i++) {
            try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", gateway.port()))) {
                ch.socket().setTcpNoDelay(true);
                ByteBuffer one = connectRequest();
                ByteBuffer two = one.duplicate();
                while (one.hasRemaining()) {
                    ch.write(one);
                }
                LockSupport.parkNanos(i * 25_000L);
                while (two.hasRemaining()) {
                    ch.write(two);
                }
                // VITCP-PROFILE §9.8: a broken segment sequence closes TCP without a report; when the target answered
                // before the second request arrived, the first one's Connect Accept went out before it
                byte[] sent = readToEnd(ch);
                if (sent.length > 0) {
                    assertThat(ControlSegment.decode(ByteBuffer.wrap(sent), 0, sent.length))
                            .as("round " + i).isInstanceOf(ConnectAccept.class);
                }
            }
        }
        // one line per connection: "connection setup failed: PROTOCOL (...)" or, after the Accept, "disconnected: ..."
        EndToEndTest.awaitTrue(() -> lines().stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("connection segment CONNECT_REQUEST in state ")
                        && (m.contains("connection setup failed: PROTOCOL") || m.contains(" disconnected: protocol error")))
                .count() == rounds);
        // each bridge's target side set up (or not) and torn down: every one released
        EndToEndTest.awaitTrue(() -> gateway.bridgeContext().bridgedConnections() == 1
                && gateway.bridgeContext().connections().size() == 1);
        // the gateway's own lines: no ERROR, no stack trace; a WARN only for a request that came after the Accept
        // (the connected VI's protocol error line). The test target's CM thread may complain of a REQ withdrawn
        // before it accepted it: not the gateway's.
        var gatewayLines = lines().stream().filter(e -> !e.getThreadName().startsWith("echo-target")).toList();
        assertThat(gatewayLines).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
                .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
        assertThat(gatewayLines).filteredOn(e -> e.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
                .allMatch(m -> m.contains("protocol error: connection segment CONNECT_REQUEST in state CONNECTED"));
        good.vi.postSend(Descriptor.send().data(good.mr, good.sendArea(0), 3000));
        assertThat(good.vi.sendWait(T).isError()).isFalse();
        assertThat(good.vi.recvWait(T).isError()).isFalse();
        good.vi.postRecv(Descriptor.receive().data(good.mr, 0, 65536));
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.EndToEndTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vibridge.gateway.bridge.ClientDriver.Assurance;
import io.vibridge.gateway.bridge.ClientDriver.Hostile;
import io.vibridge.gateway.bridge.ClientDriver.Hostility;
import io.vibridge.gateway.bridge.ClientDriver.Session;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * Malformed and hostile clients of every front end (sockets speaking VI/TCP or iWARP by hand) are closed with
 * a logged reason on a line that names them, while a well-behaved client of the same front end on the same
 * gateway keeps working. Each case has a gateway of its own (request timeouts of 1 s): the first setup failure
 * of a kind in a summary period is the one logged at INFO or WARN. The shutdown grace is beyond the suite's
 * bound, so a bad connection cannot pass by being closed when its drain times out.
 */
class HostileClientTest {
    static EchoTarget target;
    ClientDriver driver;
    GatewayServer gateway;
    Session good;
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeAll
    static void startTarget() {
        target = new EchoTarget("127.0.0.69", 5000, 8, 65552);
    }

    @AfterAll
    static void stopTarget() {
        target.close();
    }

    private static Logger bridgeLog() {
        return (Logger) LoggerFactory.getLogger("io.vibridge.gateway.bridge");
    }

    private void start(FrontEndKind kind) throws Exception {
        driver = kind.open(Duration.ofSeconds(1), "echo");
        gateway = GatewayServer.start(TestSupport.config("127.0.0.70",
                TestSupport.route("echo", "127.0.0.69", 5000, 1, 8), driver.config() + "\n" + TestSupport.PATIENT));
        good = driver.connect(gateway, "echo", Assurance.USUAL, 8);
        logs.start();
        bridgeLog().addAppender(logs);
    }

    @AfterEach
    void stop() throws Exception {
        bridgeLog().detachAppender(logs);
        if (good != null) {
            good.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (driver != null) {
            driver.close();
        }
    }

    /** The good client's Send is echoed, and the bad client's connection is gone from the gateway. */
    private void assertGoodClientStillWorks() throws Exception {
        awaitTrue(() -> gateway.bridgeContext().connections().size() == 1);
        byte[] m = new byte[3000];
        new Random(3).nextBytes(m);
        m[0] = 1; // never one of the target's command words
        good.send(m);
        assertThat(good.awaitEcho()).isEqualTo(m);
    }

    /** A gateway log line that names the client on {@code clientPort} and says {@code fragment}. */
    private void assertLogged(int clientPort, String fragment) throws InterruptedException {
        String client = ":" + clientPort + " ";
        awaitTrue(() -> {
            List<ILoggingEvent> lines;
            synchronized (logs) { // AppenderBase appends under the appender's lock
                lines = List.copyOf(logs.list);
            }
            return lines.stream().map(ILoggingEvent::getFormattedMessage)
                    .anyMatch(l -> l.contains(client) && l.contains(fragment));
        });
    }

    /** What a bad client does, by hand. */
    @FunctionalInterface
    private interface Act {
        void on(Hostile bad) throws IOException;
    }

    /**
     * The bad client on {@code opened} does {@code act}: the gateway closes it as {@code input} calls for, with a
     * logged reason on a line that names it, and the good client still works.
     */
    private void assertBadClientClosed(Hostile opened, Hostility input, Act act) throws Exception {
        try (Hostile bad = opened) {
            int port = bad.localPort();
            act.on(bad);
            bad.assertClosedByGateway(input);
            assertLogged(port, driver.reason(input));
        }
        assertGoodClientStillWorks();
    }

    private double setupFailed(String reason) {
        return gateway.registry().get("vibridge.connections.setup.failed")
                .tag("encapsulation", driver.protocol().label()).tag("reason", reason).counter().count();
    }

    /** VI/TCP: vi.incoming-timeout; iWARP: iwarp.request-timeout. Nothing is answered. */
    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void aSilentClientIsClosedAfterTheRequestTimeout(FrontEndKind kind) throws Exception {
        start(kind);
        double before = setupFailed("timeout");
        assertBadClientClosed(driver.hostile(gateway, "echo"), Hostility.SILENT, bad -> { });
        awaitTrue(() -> setupFailed("timeout") == before + 1);
    }

    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void partOfARequestThenSilenceIsClosedAfterTheRequestTimeout(FrontEndKind kind) throws Exception {
        start(kind);
        double before = setupFailed("timeout");
        assertBadClientClosed(driver.hostile(gateway, "echo"), Hostility.PART_OF_THE_REQUEST,
                Hostile::sendPartOfTheRequest);
        awaitTrue(() -> setupFailed("timeout") == before + 1);
    }

    /**
     * Closed at once, not by the request timeout. VI/TCP reads a Connect Request of version 7 and answers it
     * with a Connect Reject; iWARP finds no MPA Request key and closes without a word (a setup failure).
     */
    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void garbageBeforeTheConnectRequest(FrontEndKind kind) throws Exception {
        start(kind);
        double timeout = setupFailed("timeout");
        assertBadClientClosed(driver.hostile(gateway, "echo"), Hostility.GARBAGE_BEFORE_THE_REQUEST,
                Hostile::sendGarbage);
        assertThat(setupFailed("timeout")).as("not closed by the request timeout").isEqualTo(timeout);
    }

    /** VI/TCP: beyond the agreed MTU; iWARP: beyond what the target's receive buffer and a staging slot hold. */
    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void aMessageLargerThanTheConnectionTakes(FrontEndKind kind) throws Exception {
        start(kind);
        long received = target.received.get();
        assertBadClientClosed(driver.established(gateway, "echo"), Hostility.MESSAGE_TOO_LARGE,
                Hostile::sendMessageLargerThanTheLimit);
        assertThat(target.received.get()).as("only the good client's message reached the target")
                .isEqualTo(received + 1);
    }

    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void anOversizedRdmaLength(FrontEndKind kind) throws Exception {
        start(kind);
        assertBadClientClosed(driver.established(gateway, "echo"), Hostility.OVERSIZED_RDMA_LENGTH,
                Hostile::sendOversizedRdmaLength);
    }

    @ParameterizedTest
    @EnumSource(FrontEndKind.class)
    void aReservedSegmentTypeOrOpcode(FrontEndKind kind) throws Exception {
        start(kind);
        assertBadClientClosed(driver.established(gateway, "echo"), Hostility.RESERVED_OPCODE,
                Hostile::sendReservedOpcode);
    }

    /** VI/TCP only: iWARP has no credits (a Send without a buffer is the gateway's to hold: backpressure). */
    @Test
    void viCreditAbuse() throws Exception {
        start(FrontEndKind.VI_TCP);
        try (ViTcpDriver.Raw r = new ViTcpDriver.Raw(gateway.port()).connect()) {
            int n = r.credits + 3;
            ByteBuffer burst = ByteBuffer.allocate(n * 25);
            for (int i = 0; i < n; i++) {
                ByteBuffer s = r.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 1, 0, r.msg++);
                burst.put(s);
            }
            int port = r.localPort();
            r.write(burst.flip());
            assertThat(r.closedByGateway()).isTrue();
            assertLogged(port, "credit abuse");
        }
        assertGoodClientStillWorks();
    }

    /**
     * VI/TCP only: more RDMA Read Requests than the Connect Accept's read window. iWARP's equivalent, a Read
     * Request beyond the IRD of the MPA Reply, is the iwarp engine's (IwarpConnectionTest).
     */
    @Test
    void viReadWindowAbuse() throws Exception {
        start(FrontEndKind.VI_TCP);
        try (ViTcpDriver.Raw r = new ViTcpDriver.Raw(gateway.port()).connect()) {
            int n = r.readWindow + 2;
            ByteBuffer burst = ByteBuffer.allocate(n * 40);
            for (int i = 0; i < n; i++) {
                ByteBuffer s = r.segment(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0, 0,
                        r.msg++);
                RdmaHeader.write(s, 24, target.rdma.address(), target.rdma.rkey(), 60000);
                burst.put(s);
            }
            int port = r.localPort();
            r.write(burst.flip());
            assertThat(r.closedByGateway()).isTrue();
            assertLogged(port, "IS 7");
        }
        assertGoodClientStillWorks();
    }
}

package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.cli.PingCommand;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** ping against an in-process vitcp peer (echo and sink), directly over loopback TCP. */
class PingCommandTest {
    static VitcpPeer echo;
    static VitcpPeer sink;

    @BeforeAll
    static void start() throws Exception {
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        echo = VitcpPeer.start(any, "demo", TargetMode.ECHO, 8, 4096, 1 << 20, null);
        sink = VitcpPeer.start(any, "demo", TargetMode.SINK, 8, 4096, 1 << 20, null);
    }

    @AfterAll
    static void stop() {
        echo.close();
        sink.close();
    }

    private static ViClientOptions options(InetSocketAddress to, String disc, ReliabilityLevel level, boolean fc,
                                           int size, Duration timeout) {
        return new ViClientOptions(to, disc, level, fc, null, size, 4, 1, timeout);
    }

    private record Run(int code, String out, String err) {
    }

    private static Run ping(ViClientOptions o, int count) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Ping.run(o, count, Duration.ZERO, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void ping_echoMatches_everyLevelAndFlowControl() throws Exception {
        for (ReliabilityLevel level : ReliabilityLevel.values()) {
            Run r = ping(options(echo.address(), "demo", level, level == ReliabilityLevel.RELIABLE_RECEPTION, 1000,
                    Duration.ofSeconds(20)), 4);
            assertThat(r.code()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).contains("PING demo via 127.0.0.1:" + echo.address().getPort())
                    .contains("connected in ").contains("1000 bytes from demo: seq=4 time=")
                    .contains("4 sent, 4 received, 0 mismatched, 0% loss").contains("rtt min/avg/max/mdev = ");
        }
    }

    @Test
    void ping_zeroBytesAndBig() throws Exception {
        assertThat(ping(options(echo.address(), "demo", ReliabilityLevel.RELIABLE_DELIVERY, false, 0,
                Duration.ofSeconds(20)), 2).code()).isZero();
        assertThat(ping(options(echo.address(), "demo", ReliabilityLevel.RELIABLE_DELIVERY, false, 4096,
                Duration.ofSeconds(20)), 2).code()).isZero();
    }

    @Test
    void wrongDiscriminator_isNoMatch_exitCode2() throws Exception {
        Run r = ping(options(echo.address(), "nobody", ReliabilityLevel.RELIABLE_DELIVERY, false, 56,
                Duration.ofSeconds(20)), 1);
        assertThat(r.code()).isEqualTo(Ping.CONNECT_FAILED);
        assertThat(r.err()).contains("No Match");
    }

    @Test
    void noEcho_isLoss_exitCode1() throws Exception {
        Run r = ping(options(sink.address(), "demo", ReliabilityLevel.RELIABLE_DELIVERY, false, 56,
                Duration.ofSeconds(1)), 2);
        assertThat(r.code()).isEqualTo(Ping.MISMATCH_OR_LOSS);
        assertThat(r.out()).contains("2 sent, 0 received");
    }

    @Test
    void commandLine_exitCodes() {
        PrintStream saved = System.out;
        PrintStream savedErr = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
            String gw = "127.0.0.1:" + echo.address().getPort();
            assertThat(new CommandLine(new PingCommand()).execute("--gateway", gw, "-c", "2", "-i", "0", "-s", "64"))
                    .isZero();
            assertThat(new CommandLine(new PingCommand()).execute("--gateway", gw, "--discriminator", "x", "-c", "1"))
                    .isEqualTo(2);
            assertThat(new CommandLine(new PingCommand()).execute("--gateway", "nohostport", "-c", "1")).isEqualTo(2);
        } finally {
            System.setOut(saved);
            System.setErr(savedErr);
        }
        assertThat(buf.toString(StandardCharsets.UTF_8)).contains("No Match").contains("expected host:port");
    }

    @Test
    void commandLine_keyTextAndHexReachAPeerThatChecksThem() throws Exception {
        byte[] key = "a-shared-secret-of-32-bytes-long".getBytes(StandardCharsets.US_ASCII);
        try (VitcpPeer signed = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), "demo", TargetMode.ECHO, 8, 4096,
                1 << 20, key)) {
            String gw = "127.0.0.1:" + signed.address().getPort();
            PrintStream saved = System.out;
            try {
                System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                assertThat(new CommandLine(new PingCommand()).execute("--gateway", gw, "-c", "1", "-i", "0", "--key",
                        "a-shared-secret-of-32-bytes-long")).isZero();
                assertThat(new CommandLine(new PingCommand()).execute("--gateway", gw, "-c", "1", "-i", "0", "--key",
                        "hex:" + HexFormat.of().formatHex(key))).isZero();
                // a different key of a valid length: refused by the peer (Connect Reject IS 11), exit 2
                assertThat(new CommandLine(new PingCommand()).execute("--gateway", gw, "-c", "1", "-i", "0", "--key",
                        "another-secret-of-32-bytes-long!")).isEqualTo(2);
            } finally {
                System.setOut(saved);
            }
        }
    }
}

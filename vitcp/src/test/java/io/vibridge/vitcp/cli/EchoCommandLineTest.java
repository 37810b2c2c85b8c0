package io.vibridge.vitcp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The echo endpoint's command line: help on request, one-line errors with exit 2, no stack trace. */
class EchoCommandLineTest {

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = EchoCommand.commandLine(new EchoCommand(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void assertOneLineError(Run r, String... fragments) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        String first = r.err().lines().findFirst().orElseThrow();
        assertThat(first).startsWith("vitcp-echo: ").contains(fragments);
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("Usage:");
    }

    @Test
    void helpAndVersionExitZero() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).startsWith("Usage: vitcp-echo").contains("--key=<key>").contains("--port=<port>");
        Run version = run("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("vitcp-echo ");
    }

    @Test
    void unknownOptionIsOneLineAndAHint() {
        Run r = run("--bogus");
        assertOneLineError(r, "Unknown option: '--bogus'");
        assertThat(r.err().lines()).containsExactly("vitcp-echo: Unknown option: '--bogus'",
                "Try 'vitcp-echo --help' for more information.");
    }

    @Test
    void keyShorterThan16BytesIsAnOptionError() {
        Run r = run("--key", "short");
        assertOneLineError(r, "--key", "at least 16 bytes, got 5");
    }

    @Test
    void aKeyOf16BytesOrMoreIsTaken() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        EchoCommand echo = new EchoCommand(new PrintStream(text, true, StandardCharsets.UTF_8));
        EchoCommand.commandLine(echo).parseArgs("--port", "0", "--rdmatcp-port", "off", "--key",
                "hex:00112233445566778899aabbccddeeff");
        echo.start();
        try {
            assertThat(text.toString(StandardCharsets.UTF_8)).contains("security HMAC-SHA256");
        } finally {
            echo.nic().close();
        }
    }

    @Test
    void badReliabilityIsAnOptionError() {
        assertOneLineError(run("--reliability", "sometimes"), "--reliability", "sometimes");
    }

    @Test
    void portInUseNamesTheAddressAndPort() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Run r = run("--bind", "127.0.0.1", "--port", String.valueOf(taken.getLocalPort()), "--rdmatcp-port", "off");
            assertOneLineError(r, "127.0.0.1:" + taken.getLocalPort());
            assertThat(r.err().lines()).hasSize(1);
        }
    }
}

package io.vibridge.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command line as a user meets it: {@code --help} and {@code --version} on every command; a bad
 * option is one line and a hint; a configuration or start-up fault is one line naming the key, the file
 * and line, or the address and port; exit code 2 and no stack trace for any of them.
 */
class CommandLineTest {

    /** Every subcommand Main lists but picocli's own {@code help}: a new command is covered by itself. */
    static Stream<String> commands() {
        return Main.commandLine().getSubcommands().keySet().stream().filter(c -> !c.equals("help"));
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyCommandPrintsItsUsageOnHelp(String command) {
        CliRun r = CliRun.of(command, "--help");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("Usage: vibridge " + command).contains("-h, --help").contains("-V, --version");
        assertThat(r.err()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyCommandPrintsTheVersion(String command) {
        CliRun r = CliRun.of(command, "--version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("vibridge ");
    }

    @Test
    void helpLabelsAreReadable() {
        for (String command : commands().toList()) {
            String usage = CliRun.of(command, "--help").out();
            // picocli's default label is the Java field name in angle brackets, e.g. <maxConnections>
            assertThat(usage).as(command).doesNotContainPattern("<[a-z]+[A-Z][A-Za-z]*>");
        }
        assertThat(CliRun.of("ping", "--help").out()).contains("--gateway=<host:port>").contains("-c, --count=<n>");
        assertThat(CliRun.of("gateway", "--help").out()).contains("--config=<file>");
    }

    @Test
    void aBadOptionIsOneLineAndAHintWithoutTheUsage() {
        CliRun r = CliRun.of("gateway", "--bogus").assertUserError("gateway", "Unknown option: '--bogus'");
        assertThat(r.errLines()).containsExactly("vibridge gateway: Unknown option: '--bogus'",
                "Try 'vibridge gateway --help' for more information.");
        CliRun.of("ping", "--count", "many").assertUserError("ping", "--count", "many");
        CliRun.of("target", "--region-size", "12x").assertUserError("target", "--region-size", "not a size: '12x'");
        CliRun.of().assertUserError("", "a command is required");
    }

    @Test
    void anEnumLikeValueOutsideItsSetIsAnOptionErrorNamingTheSet() {
        CliRun.of("ping", "--reliability", "sometimes")
                .assertUserError("ping", "Invalid value for option '--reliability'", "ud, rd or rr", "'sometimes'");
        CliRun.of("ping", "--framing", "tcp").assertUserError("ping", "'--framing'", "vitcp or rdmatcp");
        CliRun.of("ping", "--gateway", "nohostport").assertUserError("ping", "'--gateway'", "expected host:port");
        CliRun.of("perf", "--op", "atomic")
                .assertUserError("perf", "'--op'", "must be send, write, read or recv, got 'atomic'");
        CliRun.of("perf", "--test", "nope").assertUserError("perf", "'--test'", "must be lat, bw, connect or all");
        CliRun.of("perf", "--framing", "roce").assertUserError("perf", "'--framing'", "vitcp, rdmatcp or iwarp");
        CliRun.of("target", "--service-id", "iwarp,foo")
                .assertUserError("target", "'--service-id'", "unknown service-id scheme \"foo\"");
    }

    @Test
    void aKeyShorterThan16BytesIsAnOptionError() {
        CliRun.of("ping", "--key", "short").assertUserError("ping", "--key", "at least 16 bytes, got 5");
        CliRun.of("perf", "--key", "hex:0011").assertUserError("perf", "--key", "at least 16 bytes, got 2");
    }

    @Test
    void aHoconSyntaxErrorNamesTheFileAndLine(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("syntax.conf");
        Files.writeString(conf, "vibridge.gateway {\n  routes = [ { match = \"storage\" target = } ]\n}\n");
        CliRun.of("gateway", "--config", conf.toString())
                .assertOneLineError("gateway", "file " + conf, "line 2");
    }

    @Test
    void anInvalidValueNamesTheKey(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "vibridge.gateway.limits.max-connections = -5\n");
        CliRun.of("gateway", "--config", conf.toString())
                .assertOneLineError("gateway", "vibridge.gateway.limits.max-connections", "-5");
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        CliRun.of("gateway", "--config", dir.resolve("nope.conf").toString())
                .assertOneLineError("gateway", "configuration file not found", "nope.conf");
    }

    private static String config(String ib, int listenPort) {
        return "vibridge.gateway { listen { host = \"127.0.0.1\", port = " + listenPort + ", rdmatcp-port = off }\n"
                + "admin { host = \"127.0.0.1\", port = 0 }\n"
                + "infiniband { provider = soft, address = \"" + ib + "\" }\n"
                + "shutdown-grace = 1s\n}\n";
    }

    @Test
    void aListenPortInUseNamesTheAddressPortAndKey(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Path conf = dir.resolve("port.conf");
            Files.writeString(conf, config("127.0.0.120", taken.getLocalPort()));
            CliRun.of("gateway", "--config", conf.toString()).assertOneLineError("gateway",
                    "127.0.0.1:" + taken.getLocalPort(), "listen.port", "in use");
        }
    }

    @Test
    void aDeviceAddressInUseNamesTheAddressAndPort(@TempDir Path dir) throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.121", 4791))) {
            Path conf = dir.resolve("device.conf");
            Files.writeString(conf, config("127.0.0.121", 0));
            CliRun.of("gateway", "--config", conf.toString()).assertOneLineError("gateway",
                    "127.0.0.121:4791", "infiniband.address");
        }
    }

    @Test
    void checkPrintsASummaryAndExitsZero(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("ok.conf");
        Files.writeString(conf, """
                vibridge.gateway {
                  routes = [ { match = "storage", target = "127.0.0.5", port = 5000 } ]
                  iwarp.listeners = [ { port = 7472, route = "storage" } ]
                }
                """);
        CliRun r = CliRun.of("gateway", "--config", conf.toString(), "--check");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out().lines()).singleElement().asString()
                .startsWith("vibridge gateway: configuration OK (" + conf + "): VI/TCP on 0.0.0.0:7470")
                .contains("iWARP on 0.0.0.0 port 7472").contains("1 route (\"storage\")")
                // staging.max-slots = auto: what the JVM's memory allows, up to max-connections connections
                .containsPattern("staging room for \\d+ connections at once \\(15 slots each, "
                        + "limits.max-connections = 1000\\)$");
    }

    @Test
    void checkReportsTheErrorWithExitTwo(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "vibridge.gateway.iwarp.listeners = [ { port = 7472, route = \"nobody\" } ]\n");
        CliRun.of("gateway", "--config", conf.toString(), "--check")
                .assertOneLineError("gateway", "iwarp.listeners[0].route", "nobody");
    }

    @Test
    void checkReportsAStagingPoolTheJvmCannotHold(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("huge.conf");
        Files.writeString(conf, "vibridge.gateway.staging.max-slots = 1000000\n"); // 62 GiB of 64 KiB slots
        CliRun.of("gateway", "--config", conf.toString(), "--check")
                .assertOneLineError("gateway", "vibridge.gateway.staging.max-slots", "do not fit");
    }

    @Test
    void checkWarnsWhenStagingHoldsFewerConnectionsThanTheLimit(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("small.conf");
        Files.writeString(conf, "vibridge.gateway.staging.max-slots = 150\n");
        CliRun r = CliRun.of("gateway", "--config", conf.toString(), "--check");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("staging room for 10 connections at once");
        assertThat(r.errLines()).singleElement().asString().startsWith("vibridge gateway: warning: ")
                .contains("10 connections").contains("limits.max-connections = 1000");
    }

    @Test
    void demoChecksTheDefaultConfiguration() {
        CliRun r = CliRun.of("demo", "--check");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("vibridge demo: configuration OK").contains("1 route (\"demo\")");
    }
}

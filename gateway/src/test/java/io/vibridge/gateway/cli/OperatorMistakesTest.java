package io.vibridge.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An operator's mistake is one line on stderr and exit 2, never a stack trace, and a
 * configuration that would silently run the built-in defaults is an error.
 */
class OperatorMistakesTest {

    @Test
    void anEmptyConfigurationFileNamesTheRootKey(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("empty.conf");
        Files.writeString(conf, "");
        CliRun.of("gateway", "--config", conf.toString(), "--check")
                .assertOneLineError("gateway", conf.toString(), "no vibridge.gateway block", "the file is empty");
        CliRun.of("gateway", "--config", conf.toString())
                .assertOneLineError("gateway", "no vibridge.gateway block");
    }

    @Test
    void keysWithoutTheVibridgeGatewayPrefixNameTheRootKey(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("noprefix.conf");
        Files.writeString(conf, "listen { port = 7000 }\nroutes = [ { match = \"x\", target = \"10.0.0.5\", port = 5000 } ]\n");
        CliRun.of("gateway", "--config", conf.toString(), "--check").assertOneLineError("gateway",
                "no vibridge.gateway block", "top-level keys listen, routes", "vibridge.gateway { ... }");
    }

    @Test
    void anEmptyVibridgeGatewayBlockIsTheDefaultsOnPurpose(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("defaults.conf");
        Files.writeString(conf, "vibridge.gateway {}\n");
        CliRun r = CliRun.of("gateway", "--config", conf.toString(), "--check");
        assertThat(r.code()).as(r.err()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:9464", "localhost:9464", "http//127.0.0.1:9464", "http://", "ftp://127.0.0.1:9464",
            "http://127.0.0.1:9464 x", "http://[::1"})
    void aMalformedUrlIsOneLine(String url) {
        for (String command : new String[] {"stat", "connections"}) {
            CliRun r = CliRun.of(command, "--url", url);
            r.assertUserError(command, "--url");
            assertThat(r.errLines()).as(r.err()).hasSizeLessThanOrEqualTo(2); // the error, perhaps picocli's "Try ..." hint
        }
    }

    @Test
    void perfAllInOneBesideTheDemoIsOneLine() throws Exception {
        // what the README's demo holds: the soft devices' UDP port 4791 on the target's address
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.237", 4791))) {
            CliRun r = CliRun.of("perf", "--all-in-one", "--target-address", "127.0.0.237",
                    "--gateway-ib-address", "127.0.0.238", "--test", "lat", "-n", "10");
            r.assertOneLineError("perf", "127.0.0.237", "4791", "--target-address");
        }
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.238", 4791))) {
            CliRun r = CliRun.of("perf", "--all-in-one", "--target-address", "127.0.0.237",
                    "--gateway-ib-address", "127.0.0.238", "--test", "lat", "-n", "10");
            r.assertOneLineError("perf", "127.0.0.238", "4791", "--gateway-ib-address");
        }
    }
}

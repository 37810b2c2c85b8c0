package io.vibridge.gateway.cli;

import io.vibridge.gateway.tools.Ping;
import io.vibridge.gateway.tools.Sizes;
import io.vibridge.gateway.tools.ViClientOptions;
import io.vibridge.vitcp.wire.Encapsulation;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vibridge ping}: connect through the gateway, send, check the echo. */
@Command(name = "ping", mixinStandardHelpOptions = true,
        description = "VI/TCP ping: connects (shows the setup time), sends Sends with a pattern and checks "
                + "every echo. Exit 0 only when every echo matched; 1 on loss or mismatch; 2 when the connect fails.")
public final class PingCommand implements Callable<Integer> {

    @Option(names = "--gateway",
            description = "Gateway host:port (default: 127.0.0.1:7470, or 127.0.0.1:7471 with --framing rdmatcp).")
    String gateway;

    @Option(names = "--framing", defaultValue = "vitcp",
            description = "vitcp (native VI/TCP) or rdmatcp (seed-004 RDMA/TCP frames, VITCP-PROFILE §8) "
                    + "(default: ${DEFAULT-VALUE}).")
    String framing;

    @Option(names = "--discriminator", defaultValue = "demo",
            description = "Called discriminator, the gateway's route (default: ${DEFAULT-VALUE}).")
    String discriminator;

    @Option(names = {"-c", "--count"}, defaultValue = "5", description = "Pings (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = {"-s", "--size"}, defaultValue = "56", description = "Payload bytes (default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = {"-i", "--interval"}, defaultValue = "1.0",
            description = "Seconds between pings (default: ${DEFAULT-VALUE}).")
    double interval;

    @Option(names = "--reliability", defaultValue = "rd",
            description = "ud, rd or rr (default: ${DEFAULT-VALUE}).")
    String reliability;

    @Option(names = "--flow-control", description = "Ask for descriptor flow control.")
    boolean flowControl;

    @Option(names = "--key", description = "HMAC-SHA256 connect key (text, or hex:...).")
    String key;

    @Option(names = "--timeout", defaultValue = "10", description = "Connect and echo timeout in seconds (default: ${DEFAULT-VALUE}).")
    double timeout;

    @Override
    public Integer call() throws Exception {
        ViClientOptions o;
        try {
            Encapsulation e = Encapsulation.ofLabel(framing);
            String remote = gateway != null ? gateway : "127.0.0.1:" + e.defaultPort();
            o = new ViClientOptions(ViClientOptions.parseHostPort(remote), discriminator,
                    ViClientOptions.parseReliability(reliability), flowControl, Sizes.key(key), Sizes.parse(size), 4, 1,
                    Duration.ofMillis((long) (timeout * 1000)), e);
        } catch (IllegalArgumentException e) {
            System.err.println("ping: " + e.getMessage());
            return 2;
        }
        return Ping.run(o, count, Duration.ofMillis((long) (interval * 1000)), System.out, System.err);
    }
}

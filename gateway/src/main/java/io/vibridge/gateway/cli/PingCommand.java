package io.vibridge.gateway.cli;

import io.vibridge.gateway.tools.Ping;
import io.vibridge.gateway.tools.ViClientOptions;
import io.vibridge.vitcp.cli.EncapsulationConverter;
import io.vibridge.vitcp.wire.Encapsulation;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vibridge ping}: connect through the gateway, send, check the echo. */
@Command(name = "ping", mixinStandardHelpOptions = true,
        description = "VI/TCP ping: connects (shows the setup time), sends Sends with a pattern and checks "
                + "every echo. Exit 0 only when every echo matched; 1 on loss or mismatch; 2 when the connect fails.")
public final class PingCommand implements Callable<Integer> {

    @Option(names = "--gateway", paramLabel = "<host:port>", converter = HostPortConverter.class,
            description = "Gateway host:port (default: 127.0.0.1:7470, or 127.0.0.1:7471 with --framing rdmatcp).")
    InetSocketAddress gateway;

    @Option(names = "--framing", defaultValue = "vitcp", paramLabel = "<framing>",
            converter = EncapsulationConverter.class,
            description = "vitcp (native VI/TCP) or rdmatcp (seed-004 RDMA/TCP frames, VITCP-PROFILE §8) "
                    + "(default: ${DEFAULT-VALUE}).")
    Encapsulation framing;

    @Option(names = "--discriminator", defaultValue = "demo", paramLabel = "<route>",
            description = "Called discriminator, the gateway's route (default: ${DEFAULT-VALUE}).")
    String discriminator;

    @Option(names = {"-c", "--count"}, defaultValue = "5", paramLabel = "<n>",
            description = "Pings (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = {"-s", "--size"}, defaultValue = "56", paramLabel = "<size>", converter = SizeConverter.class,
            description = "Payload bytes (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = {"-i", "--interval"}, defaultValue = "1.0", paramLabel = "<seconds>",
            description = "Seconds between pings (default: ${DEFAULT-VALUE}).")
    double interval;

    @Mixin
    ViConnectOptions connect;

    @Option(names = "--flow-control", description = "Ask for descriptor flow control.")
    boolean flowControl;

    @Option(names = "--timeout", defaultValue = "10", paramLabel = "<seconds>",
            description = "Connect and echo timeout in seconds (default: ${DEFAULT-VALUE}).")
    double timeout;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ViClientOptions o;
        try {
            InetSocketAddress remote = gateway != null ? gateway : new InetSocketAddress("127.0.0.1", framing.defaultPort());
            o = new ViClientOptions(remote, discriminator, connect.reliability, flowControl, connect.key(), size, 4, 1,
                    Duration.ofMillis((long) (timeout * 1000)), framing);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        return Ping.run(o, count, Duration.ofMillis((long) (interval * 1000)), System.out, System.err);
    }
}

package io.vibridge.gateway.cli;

import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.server.StartupError;
import io.vibridge.gateway.tools.Sizes;
import io.vibridge.verbs.VerbsException;
import io.vibridge.vitcp.cli.OptionConverter;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vibridge target}: the demo InfiniBand-side service (echo, sink, source, echo-ack-writes) on the verbs SPI. */
@Command(name = "target", mixinStandardHelpOptions = true,
        description = "Demo InfiniBand-side service: accepts CM REQs with a Hello, serves echo/sink/source "
                + "and the VBRG control protocol over one RDMA-readable/writable region.")
public final class TargetCommand implements Callable<Integer> {

    @Option(names = "--address", defaultValue = "127.0.0.3", paramLabel = "<ip>",
            description = "Verbs device IP address (soft provider: UDP socket address) (default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--udp-port", defaultValue = "4791", paramLabel = "<port>",
            description = "RoCEv2 UDP port (default: ${DEFAULT-VALUE}).")
    int udpPort;

    @Option(names = "--provider", paramLabel = "<soft|disni>",
            description = "Verbs provider: soft or disni (default: automatic).")
    String provider;

    @Option(names = "--port", defaultValue = "5000", paramLabel = "<port>",
            description = "Emulated TCP port P the Service IDs derive from (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--service-id", split = ",", paramLabel = "<scheme>", converter = SchemeConverter.class,
            description = "Service ID schemes to listen on: iwarp, sdp, rdma-cm (default: iwarp,sdp).")
    List<ServiceIdScheme> serviceIds;

    @Option(names = "--mode", defaultValue = "echo", paramLabel = "<mode>", converter = ModeConverter.class,
            description = "echo (Sends; an RDMA Write with immediate is not answered), sink, source, or "
                    + "echo-ack-writes (echo, and each RDMA Write with immediate answered by an empty Send with its "
                    + "immediate) (default: ${DEFAULT-VALUE}).")
    TargetMode mode;

    @Option(names = "--receive-buffers", defaultValue = "64", paramLabel = "<n>",
            description = "Receives posted per connection (default: ${DEFAULT-VALUE}).")
    int receiveBuffers;

    @Option(names = "--receive-size", defaultValue = "64KiB", paramLabel = "<size>", converter = SizeConverter.class,
            description = "Bytes per receive, raised to the Hello's DesRemRcvSz up to --max-receive-size (default: ${DEFAULT-VALUE}).")
    int receiveSize;

    @Option(names = "--max-receive-size", defaultValue = "1MiB", paramLabel = "<size>", converter = SizeConverter.class,
            description = "Largest receive a Hello may ask for (default: ${DEFAULT-VALUE}).")
    int maxReceiveSize;

    @Option(names = "--region-size", defaultValue = "16MiB", paramLabel = "<size>", converter = SizeConverter.class,
            description = "Region exposed for remote RDMA read/write (default: ${DEFAULT-VALUE}).")
    int regionSize;

    @Option(names = "--size", defaultValue = "64KiB", paramLabel = "<size>", converter = SizeConverter.class,
            description = "Source mode: payload bytes per Send (default: ${DEFAULT-VALUE}).")
    int sourceSize;

    @Option(names = "--source-depth", defaultValue = "16", paramLabel = "<n>",
            description = "Source mode: Sends outstanding (default: ${DEFAULT-VALUE}).")
    int sourceDepth;

    @Option(names = "--max-connections", defaultValue = "4096", paramLabel = "<n>",
            description = "Concurrent connections; more get REJ 28 (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--memory-budget", defaultValue = "2GiB", paramLabel = "<size>",
            description = "Receive memory of all connections together; when short, new connections get fewer receives (>= 3), then REJ 28 (default: ${DEFAULT-VALUE}).")
    String memoryBudget;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        TargetConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        StopSignal stop = StopSignal.install();
        TargetService service = start(config);
        spec.commandLine().getOut().printf("target ready on %s: %s, mode %s; region address 0x%x rkey 0x%x length %d%n",
                address, service.serviceIdsText(), config.mode().cliName(),
                service.region().address(), service.region().rkey(), service.region().length());
        spec.commandLine().getOut().flush();
        stop.await();
        service.close();
        return 0;
    }

    /** Starts the target; a device that cannot be opened (its UDP port taken, say) is a {@link StartupError}. */
    static TargetService start(TargetConfig config) {
        try {
            return TargetService.start(config);
        } catch (VerbsException e) {
            throw new StartupError("cannot open the target's verbs device at " + config.address().getHostAddress()
                    + " (UDP port " + config.udpPort() + "): " + e.getMessage(), e);
        }
    }

    TargetConfig config() {
        EnumSet<ServiceIdScheme> schemes = serviceIds == null || serviceIds.isEmpty()
                ? EnumSet.of(ServiceIdScheme.IWARP, ServiceIdScheme.SDP) : EnumSet.copyOf(serviceIds);
        InetAddress ip;
        try {
            ip = InetAddress.ofLiteral(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--address must be an IP literal, got '" + address + "'");
        }
        return new TargetConfig(ip, udpPort, provider, port, schemes, mode, receiveBuffers, receiveSize,
                Math.max(receiveSize, maxReceiveSize), regionSize, sourceSize, sourceDepth, maxConnections,
                parseLong(memoryBudget));
    }

    private static long parseLong(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("gib") || t.endsWith("g")) {
            try {
                return Long.parseLong(t.replaceAll("[a-z]", "").trim()) << 30;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a size: '" + text + "'");
            }
        }
        return Sizes.parse(text);
    }

    static final class SchemeConverter extends OptionConverter<ServiceIdScheme> {
        SchemeConverter() {
            super(ServiceIdScheme::fromConfigName);
        }
    }

    static final class ModeConverter extends OptionConverter<TargetMode> {
        ModeConverter() {
            super(TargetMode::fromCliName);
        }
    }
}

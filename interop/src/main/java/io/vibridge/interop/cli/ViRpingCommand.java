package io.vibridge.interop.cli;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.Outcome;
import io.vibridge.interop.virping.ViRpingClient;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vi-rping}: rping's client role over VI/TCP, through a gateway route to an rping server. */
@Command(name = "vi-rping", sortOptions = false,
        header = "rping's client role over VI/TCP through a vibridge gateway to an rping server.",
        description = {"The gateway route (cm-format = rdma-cm) leads to an rping server. The VI Sends carry rping's "
                + "buffer advertisements naming this client's VI memory (address, memory handle); the server's RDMA "
                + "READ and WRITE reach that memory cut through the gateway.", ""})
public final class ViRpingCommand extends InteropCommand {
    @Option(names = "--gateway", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7470",
            description = "The gateway's VI/TCP listener (default: ${DEFAULT-VALUE}).")
    String gateway;

    @Option(names = "--discriminator", paramLabel = "NAME", required = true,
            description = "The gateway route leading to the rping server.")
    String discriminator;

    @Option(names = "--reliability", paramLabel = "delivery|reception", defaultValue = "delivery",
            description = "VI reliability level (default: ${DEFAULT-VALUE}; also rd, rr).")
    String reliability;

    @Option(names = "-C", paramLabel = "COUNT", defaultValue = "10", description = "Pings (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "64",
            description = "Ping data size, 26..65535 (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "-V", description = "Validate ping data: the sink equals the source after each ping.")
    boolean validate;

    @Option(names = "-v", description = "Display ping data.")
    boolean verbose;

    @Override
    String resultName() {
        return ViRpingClient.NAME;
    }

    @Override
    Outcome execute(Deadline deadline) {
        ViRpingClient.Settings s = new ViRpingClient.Settings(Cli.hostPort(gateway, "--gateway"), discriminator,
                reliability(reliability), count, size, validate, verbose);
        return ViRpingClient.run(s, deadline, out);
    }

    static ReliabilityLevel reliability(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "delivery", "rd", "reliable-delivery" -> ReliabilityLevel.RELIABLE_DELIVERY;
            case "reception", "rr", "reliable-reception" -> ReliabilityLevel.RELIABLE_RECEPTION;
            default -> throw new IllegalArgumentException("--reliability must be delivery or reception, got '" + text
                    + "'");
        };
    }
}

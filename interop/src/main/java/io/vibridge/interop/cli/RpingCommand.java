package io.vibridge.interop.cli;

import io.vibridge.interop.rping.CmParameters;
import io.vibridge.interop.rping.RpingClient;
import io.vibridge.interop.rping.RpingPattern;
import io.vibridge.interop.rping.RpingServer;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code rping}: rping's server ({@code -s}) or client ({@code -c}) on the soft verbs device. */
@Command(name = "rping", sortOptions = false,
        header = "rping-compatible server (-s) or client (-c) on the soft verbs device.",
        description = {"As librdmacm/examples/rping.c: rdma_cm TCP port space (Service ID 0x0000000001060000 + port), "
                + "a CMA header in the REQ, 16-byte buffer advertisements, per ping an RDMA READ of the client's "
                + "source and an RDMA WRITE of its sink. The server serves one connection until the client "
                + "disconnects (with -C: exactly that many iterations; with -V: each READ must be rping's text). "
                + "The client pings -C times; -V compares sink and source after each ping.", ""})
public final class RpingCommand extends InteropCommand {
    @Option(names = "-s", description = "Server side.")
    boolean server;

    @Option(names = "-c", description = "Client side.")
    boolean client;

    @Option(names = "-a", paramLabel = "ADDR",
            description = "Server: the address to bind (REQs for another destination are refused; also the "
                    + "device when --device is absent). Client: the server's address.")
    String address;

    @Option(names = "-I", paramLabel = "ADDR", description = "Client: source address (the device when --device "
            + "is absent).")
    String source;

    @Option(names = "-p", paramLabel = "PORT", defaultValue = "7174", description = "Port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "-C", paramLabel = "COUNT",
            description = "Client: pings (default 10; rping's 0 = forever is refused). Server: iterations the client "
                    + "must complete (default 0 = any number).")
    Integer count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "64",
            description = "Ping data size, " + RpingPattern.MIN_SIZE + ".." + RpingPattern.MAX_SIZE
                    + " (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "-V", description = "Validate ping data (client: sink == source; server: READ == rping's text).")
    boolean validate;

    @Option(names = "-v", description = "Display ping data.")
    boolean verbose;

    @Option(names = "-d", description = "Debug lines: every completion and CM event.")
    boolean debug;

    @Option(names = "--cma-port", paramLabel = "PORT", defaultValue = "0",
            description = "Client: the CMA header's source port (default 0: random in 32768..60999).")
    int cmaPort;

    @Option(names = "--ack-timeout", paramLabel = "EXP", defaultValue = "17",
            description = "Local ACK timeout exponent, 4.096 us x 2^EXP (default: ${DEFAULT-VALUE}).")
    int ackTimeout;

    @Option(names = "--cm-timeout", paramLabel = "EXP", defaultValue = "20",
            description = "CM response timeout exponent (default: ${DEFAULT-VALUE}, rdma_cm's).")
    int cmTimeout;

    @Option(names = "--cm-retries", paramLabel = "N", defaultValue = "15",
            description = "CM REQ retries (default: ${DEFAULT-VALUE}, rdma_cm's).")
    int cmRetries;

    @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "0",
            description = "Client: path MTU of the REQ (default 0: the port's largest, as rdma_cm).")
    int mtu;

    @Option(names = "--min-rnr-timer", paramLabel = "CODE", defaultValue = "12",
            description = "RNR NAK timer code we answer with (default: ${DEFAULT-VALUE}).")
    int minRnrTimer;

    @Mixin
    DeviceOptions device;

    @Override
    String resultName() {
        return server && !client ? RpingServer.NAME : client && !server ? RpingClient.NAME : "rping";
    }

    @Override
    Outcome execute(Deadline deadline) {
        if (server == client) {
            throw new IllegalArgumentException("give exactly one of -s (server) and -c (client)");
        }
        return server ? runServer(deadline) : runClient(deadline);
    }

    private Outcome runServer(Deadline deadline) {
        InetAddress listen = address == null ? null : Cli.address(address, "-a");
        RpingServer.Settings st = new RpingServer.Settings(listen, port, count == null ? 0 : count, size, validate,
                verbose, debug, minRnrTimer);
        try (VerbsDevice d = device.open(address);
             RpingServer srv = RpingServer.listen(d, st, deadline, out)) {
            return srv.serve();
        }
    }

    private Outcome runClient(Deadline deadline) {
        if (address == null) {
            throw new IllegalArgumentException("the client needs -a ADDR, the server's address");
        }
        if (device.address == null && source == null) {
            throw new IllegalArgumentException("the client needs --device ADDR (or -I ADDR): the local soft device");
        }
        CmParameters cm = new CmParameters(ackTimeout, cmTimeout, cmRetries, CmParameters.RETRY_COUNT,
                CmParameters.RNR_RETRY_COUNT, mtu, minRnrTimer);
        RpingClient.Settings st = new RpingClient.Settings(Cli.address(address, "-a"), port,
                count == null ? 10 : count, size, validate, verbose, debug, cmaPort, cm);
        try (VerbsDevice d = device.open(source)) {
            return RpingClient.run(d, st, deadline, out);
        }
    }
}

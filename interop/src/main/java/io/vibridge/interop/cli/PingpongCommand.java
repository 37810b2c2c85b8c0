package io.vibridge.interop.cli;

import io.vibridge.interop.pingpong.PingpongClient;
import io.vibridge.interop.pingpong.PingpongServer;
import io.vibridge.interop.pingpong.PingpongSettings;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.io.IOException;
import java.net.InetSocketAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pingpong}: ibv_rc_pingpong's server (no host) or client ({@code HOST}) on the soft verbs device. */
@Command(name = "pingpong", sortOptions = false,
        header = "ibv_rc_pingpong-compatible server (no HOST) or client (HOST) on the soft verbs device.",
        description = {"As libibverbs/examples/rc_pingpong.c: LID:QPN:PSN:GID exchanged over TCP, the RC QP "
                + "connected out of band (no CM), -n SEND exchanges. Also checks every received message "
                + "(its length and rc_pingpong's bytes).", ""})
public final class PingpongCommand extends InteropCommand {
    @Parameters(arity = "0..1", paramLabel = "HOST",
            description = "Connect to the server at HOST (without: be the server).")
    String host;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515",
            description = "TCP port to listen on / connect to (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", defaultValue = "4096",
            description = "Size of message to exchange (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", defaultValue = "1000",
            description = "Number of exchanges (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", defaultValue = "1024",
            description = "Path MTU (default: ${DEFAULT-VALUE}).")
    int mtu;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEP", defaultValue = "500",
            description = "Number of receives to post at a time (default: ${DEFAULT-VALUE}).")
    int rxDepth;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "GIDX",
            description = "Accepted and ignored: a soft port has one GID (its IPv4-mapped address), always sent.")
    Integer gidIndex;

    @Option(names = {"-c", "--chk"}, description = "Client: zero each page's first byte; server: check them.")
    boolean chk;

    @Option(names = {"-e", "--events"}, description = "Accepted: completions are always waited for with events.")
    boolean events;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Accepted and ignored (see --device).")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "1",
            description = "IB port: a soft device has port 1 only.")
    int ibPort;

    @Option(names = {"-l", "--sl"}, paramLabel = "SL", defaultValue = "0",
            description = "Accepted and ignored (RoCEv2 carries no SL).")
    int sl;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "0.0.0.0",
            description = "Server: TCP address to listen on (default: ${DEFAULT-VALUE}, as rc_pingpong's AI_PASSIVE).")
    String bind;

    @Option(names = "--ack-timeout", paramLabel = "EXP", defaultValue = "14",
            description = "Local ACK timeout exponent (default: ${DEFAULT-VALUE}, rc_pingpong's).")
    int ackTimeout;

    @Mixin
    DeviceOptions device;

    @Override
    String resultName() {
        return host == null ? PingpongServer.NAME : PingpongClient.NAME;
    }

    @Override
    Outcome execute(Deadline deadline) throws IOException {
        if (ibPort != 1) {
            throw new IllegalArgumentException("-i " + ibPort + ": a soft device has port 1 only");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("-p " + port + ": out of range");
        }
        PingpongSettings s = new PingpongSettings(size, iters, mtu, rxDepth, chk, ackTimeout);
        try (VerbsDevice d = device.open(null)) {
            if (host == null) {
                try (PingpongServer srv = PingpongServer.open(d, s, new InetSocketAddress(Cli.address(bind, "--bind"),
                        port), out)) {
                    out.println("waiting for a client on TCP port " + srv.port());
                    return srv.run(deadline);
                }
            }
            return PingpongClient.run(d, s, new InetSocketAddress(Cli.address(host, "HOST"), port), deadline, out);
        }
    }
}

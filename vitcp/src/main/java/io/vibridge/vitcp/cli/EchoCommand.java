package io.vibridge.vitcp.cli;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.ConnectListener;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.IncomingConnection;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A passive VI/TCP echo endpoint: listens on one port and discriminator at a chosen reliability
 * level, echoes every Send back as a Send (immediate data included), and exposes one registered
 * region with RDMA Read and Write enabled whose address and handle it prints. An RDMA Write with
 * immediate data consumes a receive but is not answered: the receive is posted again.
 */
@Command(name = "vitcp-echo", mixinStandardHelpOptions = true, versionProvider = EchoCommand.Version.class,
        description = "Passive VI/TCP (profile 1) echo endpoint with one RDMA-enabled region.")
public final class EchoCommand implements Callable<Integer> {

    @Option(names = "--bind", paramLabel = "<address>",
            description = "Address to listen on (default ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String bind;

    @Option(names = "--port", paramLabel = "<port>",
            description = "TCP port (default ${DEFAULT-VALUE}; 0 = any).", defaultValue = "7470")
    int port;

    @Option(names = "--rdmatcp-port", paramLabel = "<port|off>",
            description = "TCP port of the second listener, VI/TCP in seed-004 RDMA/TCP "
            + "frames (VITCP-PROFILE §8; default ${DEFAULT-VALUE}; 0 = any; off = none).", defaultValue = "7471")
    String rdmaTcpPort;

    @Option(names = "--discriminator", paramLabel = "<text>",
            description = "Called discriminator to answer, UTF-8 (default ${DEFAULT-VALUE}).",
            defaultValue = "echo")
    String discriminator;

    @Option(names = "--reliability", paramLabel = "<level>",
            description = "UNRELIABLE_DELIVERY, RELIABLE_DELIVERY or RELIABLE_RECEPTION "
            + "(or 0, 1, 2; default ${DEFAULT-VALUE}).", defaultValue = "RELIABLE_DELIVERY",
            converter = ReliabilityConverter.class)
    ReliabilityLevel reliability;

    @Option(names = "--flow-control", description = "Ask for descriptor flow control.")
    boolean flowControl;

    @Option(names = "--region-size", paramLabel = "<bytes>",
            description = "Bytes of the RDMA region (default ${DEFAULT-VALUE}).",
            defaultValue = "1048576")
    int regionSize;

    @Option(names = "--mtu", paramLabel = "<bytes>",
            description = "Largest message (default ${DEFAULT-VALUE}).", defaultValue = "1048576")
    int mtu;

    @Option(names = "--receives", paramLabel = "<n>",
            description = "Receive descriptors posted per connection (default ${DEFAULT-VALUE}).",
            defaultValue = "16")
    int receives;

    @Option(names = "--read-window", paramLabel = "<n>",
            description = "Inbound RDMA Reads held per connection (default ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int readWindow;

    @Option(names = "--key", paramLabel = "<key>",
            description = "Shared HMAC-SHA256 key (Security Type 1), at least 16 bytes: UTF-8 text, hex after 'hex:' "
                    + "or Base64 after 'base64:'.")
    String key;

    @Spec
    CommandSpec spec;

    private final PrintStream out;

    public EchoCommand() {
        this(System.out);
    }

    EchoCommand(PrintStream out) {
        this.out = out;
    }

    private volatile ViNic nic;
    private volatile MemoryRegion region;

    private int parsePort(String p) {
        try {
            int n = Integer.parseInt(p.trim());
            if (n >= 0 && n <= 65535) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new CommandLine.ParameterException(spec.commandLine(),
                "--rdmatcp-port must be a port (0..65535) or off, got '" + p + "'");
    }

    @Override
    public Integer call() throws Exception {
        start();
        serve();
        return 0;
    }

    /** Opens the NIC and the region, prints where to reach them; returns the listener. */
    ConnectListener start() throws Exception {
        InetAddress host = InetAddress.getByName(bind);
        NicConfig cfg = NicConfig.loopback().withName("echo")
                .withListen(new InetSocketAddress(host, port)).withKey(CommandLines.key(spec, key));
        if (!"off".equals(rdmaTcpPort)) {
            cfg = cfg.withRdmaTcpListen(new InetSocketAddress(host, parsePort(rdmaTcpPort)));
        }
        nic = ViNic.open(cfg);
        ptag = nic.createPtag();
        region = nic.registerMemory(ByteBuffer.allocateDirect(regionSize), new MemoryAttributes(ptag, true, true));
        attributes = new ViAttributes(reliability, mtu, ptag, true,
                reliability != ReliabilityLevel.UNRELIABLE_DELIVERY, flowControl,
                reliability != ReliabilityLevel.UNRELIABLE_DELIVERY ? readWindow : 0);
        listener = nic.listen(Discriminator.ofUtf8(discriminator));
        InetSocketAddress at = nic.localAddress();
        InetSocketAddress framed = nic.rdmaTcpAddress();
        out.printf("vitcp echo listening on %s:%d discriminator \"%s\" reliability %s flow-control %s security %s"
                + " rdmatcp-port %s%n", at.getAddress().getHostAddress(), at.getPort(), discriminator, reliability,
                flowControl ? "on" : "off", key == null ? "none" : "HMAC-SHA256",
                framed == null ? "off" : String.valueOf(framed.getPort()));
        out.printf("region address=0x%016x handle=0x%08x length=%d rdma-read=on rdma-write=on%n", region.address(),
                region.handle(), region.length());
        out.flush();
        return listener;
    }

    private ProtectionTag ptag;
    private ViAttributes attributes;
    private ConnectListener listener;

    ViNic nic() {
        return nic;
    }

    MemoryRegion region() {
        return region;
    }

    void serve() throws InterruptedException {
        for (;;) {
            IncomingConnection in;
            try {
                in = listener.connectWait(Duration.ofDays(365));
            } catch (ViException e) {
                continue;
            }
            Vi vi = nic.createVi(attributes, null, null);
            MemoryRegion buffers = nic.registerMemory(ByteBuffer.allocateDirect(receives * mtu),
                    new MemoryAttributes(ptag, false, false));
            for (int i = 0; i < receives; i++) {
                vi.postRecv(Descriptor.receive().data(buffers, i * mtu, mtu));
            }
            try {
                in.accept(vi);
            } catch (ViException e) {
                out.printf("refused %s: %s%n", in.info().remote(), e.getMessage());
                drainAndDestroy(vi, buffers);
                continue;
            }
            out.printf("connected %s discriminator %s%n", in.info().remote(), in.info().remoteDiscriminator());
            out.flush();
            Thread.ofVirtual().name("echo-" + in.info().remote()).start(() -> echo(vi, buffers));
        }
    }

    private void echo(Vi vi, MemoryRegion buffers) {
        try {
            while (vi.state() == ViState.CONNECTED) {
                Descriptor r;
                try {
                    r = vi.recvWait(Duration.ofSeconds(1));
                } catch (ViException timeout) {
                    continue;
                }
                if (r.isError()) {
                    break;
                }
                if (r.completedOperation() != Status.OP_RECEIVE) {
                    // VIA 10.2: a receive consumed by an incoming RDMA Write with immediate data completes
                    // as "remote RDMA Write"; the echo answers only Sends, so it reposts this receive
                    // (the peer gets its credit back) and sends nothing
                    vi.postRecv(r);
                    continue;
                }
                long offset = findOffset(r, buffers);
                Descriptor s = Descriptor.send().data(buffers, (int) offset, (int) r.transferred());
                if ((r.status() & Status.IMMEDIATE) != 0) {
                    s.immediate(r.immediateData());
                }
                vi.postSend(s);
                Descriptor done = vi.sendWait(Duration.ofDays(1));
                if (done.isError()) {
                    break;
                }
                vi.postRecv(r); // the same buffer, free again now that its echo went out
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            out.printf("disconnected (%s)%n", vi.state());
            out.flush();
            drainAndDestroy(vi, buffers);
        }
    }

    /** Which receive buffer the descriptor used (its first data segment). */
    private static long findOffset(Descriptor r, MemoryRegion buffers) {
        return r.segmentAddress(0) - buffers.address();
    }

    private void drainAndDestroy(Vi vi, MemoryRegion buffers) {
        vi.disconnect();
        while (vi.recvDone() != null || vi.sendDone() != null) {
            // dequeue what completed (flushed)
        }
        try {
            vi.destroy();
            nic.deregisterMemory(buffers);
        } catch (ViException e) {
            // descriptors still queued: leave the VI to the NIC
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine(new EchoCommand()).execute(args));
    }

    /**
     * The command line of {@code command}: option and start-up errors (a port taken, an unknown host) are
     * one line, exit 2 ({@link CommandLines}).
     */
    static CommandLine commandLine(EchoCommand command) {
        return CommandLines.configure(new CommandLine(command), e -> e instanceof IOException ? e.getMessage() : null);
    }

    /** The version of the vitcp jar (its manifest), or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = EchoCommand.class.getPackage().getImplementationVersion();
            return new String[] {"vitcp-echo " + (v == null ? "development" : v)};
        }
    }
}

package io.vibridge.interop.rping;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.Outcome;
import io.vibridge.interop.support.VerbsEvents;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * rping's client role ({@code rping -c}) on the verbs SPI: rping.c rping_run_client, rping_connect_client and
 * rping_test_client. Per ping: fill the source buffer with rping's text, SEND its advertisement, wait for the
 * server's go-ahead (it RDMA READ the source meanwhile), SEND the sink's advertisement, wait for the go-ahead
 * (it RDMA WROTE the sink), compare sink and source ({@code -V}). Then {@code rdma_disconnect}.
 *
 * <p>The CM REQ is what librdmacm's {@code rdma_connect} sends in the TCP port space: Service ID
 * {@code 0x0000000001060000 + port}, private data = the 36-byte CMA header (source = this device's own address
 * and a source port we pick, destination = the server) followed by zeros, responder resources 1, initiator
 * depth 1, retry 7, RNR retry 7 (rping_init_conn_param).
 */
public final class RpingClient extends RpingPeer {
    public static final String NAME = "rping-client";

    /**
     * @param server        the server's address ({@code -a})
     * @param port          its port ({@code -p}; rping's default 7174)
     * @param count         pings ({@code -C}), at least 1
     * @param size          bytes per ping ({@code -S}), 26..65535
     * @param validate      {@code -V}: compare sink and source after each ping
     * @param verbose       {@code -v}: print each ping's data
     * @param debug         {@code -d}: print every completion and CM event
     * @param cmaSourcePort the CMA header's source port; 0 = a random one of Linux's default local port range
     * @param cm            CM and transport parameters
     */
    public record Settings(InetAddress server, int port, int count, int size, boolean validate, boolean verbose,
                           boolean debug, int cmaSourcePort, CmParameters cm) {
        public Settings {
            Objects.requireNonNull(server, "server address (-a) is required");
            Objects.requireNonNull(cm, "cm");
            RpingServer.checkPort(port);
            if (count < 1) {
                throw new IllegalArgumentException("count (-C) must be at least 1, got " + count);
            }
            RpingServer.checkSize(size);
            if (cmaSourcePort < 0 || cmaSourcePort > 0xFFFF) {
                throw new IllegalArgumentException("CMA source port must be 0..65535, got " + cmaSourcePort);
            }
        }
    }

    /** Linux's default {@code net.ipv4.ip_local_port_range}, where rdma_cm picks a bound id's port. */
    static final int EPHEMERAL_FIRST = 32768;
    static final int EPHEMERAL_LAST = 60999;

    private final VerbsDevice device;
    private final Settings s;
    private int validated;

    private RpingClient(VerbsDevice device, Settings s, RpingResources r, Deadline deadline, PrintStream out) {
        super(r, deadline, out, s.debug());
        this.device = device;
        this.s = s;
    }

    /** Runs the whole client: connect, {@code count} pings, disconnect. */
    public static Outcome run(VerbsDevice device, Settings s, Deadline deadline, PrintStream out) {
        try (RpingResources r = RpingResources.create(device, s.size(), true)) {
            return new RpingClient(device, s, r, deadline, out).run();
        } catch (RuntimeException e) {
            return Outcome.fail(NAME, "verbs error: " + e);
        }
    }

    private Outcome run() {
        int ping = 0;
        try {
            connect();
            for (; ping < s.count(); ping++) {
                ping(ping);
            }
        } catch (InteropFailure f) {
            abandon();
            return Outcome.fail(NAME, f.getMessage() + " (after " + ping + " of " + s.count() + " pings)");
        } catch (RuntimeException e) {
            abandon();
            return Outcome.fail(NAME, "verbs error: " + e + " (after " + ping + " of " + s.count() + " pings)");
        } catch (PeerDisconnected d) {
            out.println("client DISCONNECT EVENT...");
            return Outcome.fail(NAME, "the server disconnected during ping " + ping + " (" + ping + " of "
                    + s.count() + " pings done)");
        }
        try {
            disconnect();
        } catch (InteropFailure f) {
            return Outcome.fail(NAME, f.getMessage() + " (all " + s.count() + " pings done)");
        }
        return Outcome.pass(NAME, String.format(Locale.ROOT, "pings=%d size=%d validated=%s server=%s port=%d",
                s.count(), s.size(), s.validate() ? Integer.toString(validated) : "off",
                s.server().getHostAddress(), s.port()));
    }

    /** rping_bind_client + rping_connect_client: one REQ, then REP / REJ / timeout. */
    private void connect() throws InteropFailure, PeerDisconnected {
        long sid = ServiceId.rdmaCm(RdmaPortSpace.TCP, s.port()).value();
        int srcPort = s.cmaSourcePort() != 0 ? s.cmaSourcePort()
                : ThreadLocalRandom.current().nextInt(EPHEMERAL_FIRST, EPHEMERAL_LAST + 1);
        CmParameters cm = s.cm();
        int mtu = cm.pathMtu() == 0 ? device.maxPathMtu() : cm.pathMtu();
        // rdma-core's CM is librdmacm, which writes the CMA header (with a source port of its choosing) itself
        boolean kernelCm = device.connectionManager().writesCmaHeader();
        byte[] privateData = kernelCm ? new byte[0] : requestPrivateData(device.address(), srcPort, s.server());
        ConnectParams p = new ConnectParams(s.server(), sid, privateData, CmParameters.RESPONDER_RESOURCES,
                CmParameters.INITIATOR_DEPTH, cm.retryCount(), cm.rnrRetryCount(), cm.localAckTimeout(),
                cm.cmResponseTimeout(), cm.maxCmRetries(), mtu, cm.minRnrTimer());
        out.printf(Locale.ROOT, "rping client: device %s -> server %s port %d (Service ID 0x%016x), %d pings of %d "
                        + "bytes, validate %s%n", device.address().getHostAddress(), s.server().getHostAddress(),
                s.port(), sid, s.count(), s.size(), s.validate() ? "on" : "off");
        out.printf(Locale.ROOT, "CM REQ: CMA header src %s port %s dst %s; responder resources %d, initiator depth "
                        + "%d, retry %d, rnr retry %d, path MTU %d, QPN 0x%06x%n", device.address().getHostAddress(),
                kernelCm ? "(rdma_cm's)" : Integer.toString(srcPort), s.server().getHostAddress(), p.responderResources(), p.initiatorDepth(), p.retryCount(),
                p.rnrRetryCount(), mtu, r.qp.qpNum());
        r.postRecv();                                      // rping_run_client posts recv_buf before connecting
        id = device.connectionManager().connect(p, r.qp, r.events, null);
        for (;;) {
            VerbsEvents.Event e = r.events.next(deadline, "the server's answer (REP) to our CM REQ");
            if (e instanceof VerbsEvents.Cm cm1 && cm1.event() instanceof CmEvent.Established
                    && cm1.event().id() == id) {
                out.printf(Locale.ROOT, "connected (path MTU %d)%n", r.qp.pathMtu());
                return;
            }
            if (e instanceof VerbsEvents.Completion c) {
                throw new InteropFailure("completion before the connection was up: " + c.wc());
            }
            onCm(((VerbsEvents.Cm) e).event(), "the server's answer (REP) to our CM REQ");
        }
    }

    /**
     * The REQ private data of librdmacm's rdma_connect with no user data: the CMA header (Linux cma.c
     * cma_format_hdr) naming our own address and source port and the server, then zeros to 92 bytes.
     */
    static byte[] requestPrivateData(InetAddress local, int sourcePort, InetAddress server) {
        return new CmaHeader(sourcePort, local, server).toPrivateData(new byte[0]);
    }

    /** One iteration of rping_test_client's loop. */
    private void ping(int ping) throws InteropFailure, PeerDisconnected {
        RpingPattern.fill(r.startBuf.buffer(), 0, ping, s.size());
        r.postSend(RpingResources.SLOT_SOURCE);
        debug("sent source " + r.advertised(RpingResources.SLOT_SOURCE));
        WorkCompletion wc = await(WcOpcode.RECV, "the server's go-ahead after its RDMA READ in ping " + ping);
        checkInfoLength(wc);
        r.postRecv();                                      // rping_cq_event_handler reposts at once
        r.postSend(RpingResources.SLOT_SINK);
        debug("sent sink " + r.advertised(RpingResources.SLOT_SINK));
        wc = await(WcOpcode.RECV, "the server's go-ahead after its RDMA WRITE in ping " + ping);
        checkInfoLength(wc);
        r.postRecv();
        if (s.validate()) {
            int at = RpingPattern.firstMismatch(r.startBuf.buffer(), 0, r.rdmaBuf.buffer(), 0, s.size());
            if (at >= 0) {
                throw new InteropFailure(String.format(Locale.ROOT, "data mismatch! ping %d offset %d: sink 0x%02x,"
                                + " source 0x%02x", ping, at, r.rdmaBuf.buffer().get(at) & 0xFF,
                        r.startBuf.buffer().get(at) & 0xFF));
            }
            validated++;
        }
        if (s.verbose()) {
            out.println("ping data: " + RpingPattern.cString(r.rdmaBuf.buffer(), 0, s.size()));
        }
    }

    /** rping_disconnect: DREQ; the server's DREP (or the CM's DREQ timeout) ends it. */
    private void disconnect() throws InteropFailure {
        out.println("disconnecting");
        id.disconnect();
        String what = "the end of the disconnect (the server's DREP)";
        for (;;) {
            VerbsEvents.Event e = r.events.next(deadline, what);
            if (e instanceof VerbsEvents.Completion c) {
                if (c.wc().status != WcStatus.SUCCESS && c.wc().status != WcStatus.WR_FLUSH_ERROR) {
                    throw new InteropFailure("cq completion failed status " + c.wc().status + " during the disconnect");
                }
                continue;                                  // our receive comes back flushed, as in rping
            }
            CmEvent ev = ((VerbsEvents.Cm) e).event();
            if (ev.id() == id && ev instanceof CmEvent.Disconnected) {
                out.println("disconnected");
                return;
            }
            try {
                onCm(ev, what);
            } catch (PeerDisconnected impossible) {
                return;
            }
        }
    }

    /** After a failure: tell the server (DREQ) rather than leave it waiting. */
    private void abandon() {
        if (id != null && !disconnected) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
    }
}

package io.vibridge.interop.rping;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.Outcome;
import io.vibridge.interop.support.VerbsEvents;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;

/**
 * rping's server role ({@code rping -s}) on the verbs SPI: rping.c rping_run_server, rping_accept and
 * rping_test_server. It listens on Service ID {@code 0x0000000001060000 + port}, accepts ONE connection whose
 * REQ carries a CMA header (checked as Linux's rdma_cm would), then loops until the client disconnects:
 * wait for the source advertisement, RDMA READ it, SEND the go-ahead (16 zero bytes, rping's never-formatted
 * {@code send_buf}), wait for the sink advertisement, RDMA WRITE {@code strlen(rdma_buf) + 1} bytes into it,
 * SEND the go-ahead.
 *
 * <p>rping's server does not count or check; this one also counts complete iterations (with {@code -C}, the
 * client must do exactly that many) and with {@code -V} checks each READ against rping's ping text for that
 * iteration ({@link RpingPattern}), which proves the READ fetched the right bytes from a real rping client.
 */
public final class RpingServer extends RpingPeer implements AutoCloseable {
    public static final String NAME = "rping-server";
    /** rping.c: {@code cb->port = htobe16(7174)}. */
    public static final int DEFAULT_PORT = 7174;
    /** Our cap on the READ depths we grant (librdmacm caps the REQ's values with the device's limits). */
    static final int MAX_RD_ATOMIC = 16;

    /**
     * @param listen      the address rping binds ({@code -a}); null = any, else REQs whose CMA header names
     *                    another destination are refused, as a bound rdma_cm listener does
     * @param port        {@code -p}
     * @param count       iterations the client must complete ({@code -C}); 0 = any number, at least one
     * @param size        {@code -S}: the RDMA buffer (a client advertising more is refused)
     * @param validate    {@code -V}: check each READ against rping's text
     * @param verbose     {@code -v}: print each READ's data as rping does ("server ping data: ...")
     * @param debug       {@code -d}
     * @param minRnrTimer RNR NAK timer code of our QP
     */
    public record Settings(InetAddress listen, int port, int count, int size, boolean validate, boolean verbose,
                           boolean debug, int minRnrTimer) {
        public Settings {
            checkPort(port);
            if (count < 0) {
                throw new IllegalArgumentException("Invalid count " + count);
            }
            checkSize(size);
        }
    }

    static void checkPort(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port (-p) must be 0..65535, got " + port);
        }
    }

    /** rping.c main, {@code -S}: "Invalid size %d (valid range is %zd to %d)". */
    static void checkSize(int size) {
        if (size < RpingPattern.MIN_SIZE || size > RpingPattern.MAX_SIZE) {
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + RpingPattern.MIN_SIZE
                    + " to " + RpingPattern.MAX_SIZE + ")");
        }
    }

    private final Settings s;
    private final ConnectionManager.CmListener listener;
    /** The provider's CM is the kernel's rdma_cm (rdma-core), which writes and checks the CMA header itself. */
    private final boolean kernelCm;
    private int iterations;
    static final Duration LAST_DISCONNECT_WAIT = Duration.ofSeconds(5);
    private int validated;

    private RpingServer(VerbsDevice device, Settings s, RpingResources r, Deadline deadline, PrintStream out) {
        this.kernelCm = device.connectionManager().writesCmaHeader();
        super(r, deadline, out, s.debug());
        this.s = s;
        long sid = serviceId(s.port());
        r.postRecv();                                      // rping_run_server posts recv_buf before accepting
        listener = device.connectionManager().listen(sid, r.events, null);
        out.printf(Locale.ROOT, "rping server: device %s listening on %s port %d (Service ID 0x%016x), size %d, "
                        + "validate %s%n", device.address().getHostAddress(),
                s.listen() == null ? "any address" : s.listen().getHostAddress(), s.port(), sid, s.size(),
                s.validate() ? "on" : "off");
    }

    /** The Service ID rdma_cm listens on for TCP port {@code port} (RDMA_PS_TCP). */
    public static long serviceId(int port) {
        return ServiceId.rdmaCm(RdmaPortSpace.TCP, port).value();
    }

    /** rping_bind_server: sets up the connection's resources and listens. {@link #serve} then runs it. */
    public static RpingServer listen(VerbsDevice device, Settings s, Deadline deadline, PrintStream out) {
        RpingResources r = RpingResources.create(device, s.size(), false);
        try {
            return new RpingServer(device, s, r, deadline, out);
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Accepts one connection and serves it until the client disconnects. */
    public Outcome serve() {
        try {
            accept(awaitRequest());
            awaitEstablished();
            testServer();
        } catch (InteropFailure f) {
            if (id != null && !disconnected) {
                try {
                    id.disconnect();
                } catch (RuntimeException ignored) {
                    // best effort
                }
            }
            return Outcome.fail(NAME, f.getMessage() + " (after " + iterations + " complete iterations)");
        } catch (RuntimeException e) {
            return Outcome.fail(NAME, "verbs error: " + e + " (after " + iterations + " complete iterations)");
        }
        out.println("server DISCONNECT EVENT...");
        out.printf(Locale.ROOT, "client disconnected after %d iterations%n", iterations);
        if (iterations == 0) {
            return Outcome.fail(NAME, "the client disconnected before completing one iteration");
        }
        if (s.count() != 0 && iterations != s.count()) {
            return Outcome.fail(NAME, "the client completed " + iterations + " iterations, expected " + s.count());
        }
        return Outcome.pass(NAME, String.format(Locale.ROOT, "iterations=%d size=%d validated=%s", iterations,
                s.size(), s.validate() ? Integer.toString(validated) : "off"));
    }

    /** rping_cma_event_handler, RDMA_CM_EVENT_CONNECT_REQUEST. */
    private CmEvent.ConnectRequest awaitRequest() throws InteropFailure {
        for (;;) {
            VerbsEvents.Event e = r.events.next(deadline, "a connect request (CM REQ) from an rping client");
            if (e instanceof VerbsEvents.Cm cm && cm.event() instanceof CmEvent.ConnectRequest req) {
                return req;
            }
            if (e instanceof VerbsEvents.Completion c) {
                throw new InteropFailure("completion before any connection: " + c.wc());
            }
        }
    }

    /** The REQ's checks (ours, or the kernel's rdma_cm's), then rping_accept: {@code rdma_accept(id, NULL)}. */
    private void accept(CmEvent.ConnectRequest req) throws InteropFailure {
        if (kernelCm) {
            // librdmacm checked the CMA header and hands over what follows it: rping's REQ carries nothing more
            out.printf(Locale.ROOT, "connect request from %s (CMA header checked by rdma_cm); responder resources "
                    + "%d, initiator depth %d%n", req.source().getHostAddress(), req.responderResources(),
                    req.initiatorDepth());
        } else {
            checkCmaHeader(req);
        }
        if (req.responderResources() == 0) {
            req.id().reject(new byte[0]);
            throw new InteropFailure("the client grants no RDMA READ (responder resources 0): rping's server READs");
        }
        id = req.id();
        // librdmacm rdma_accept(id, NULL): responder resources = the REQ's initiator depth, initiator depth = its
        // responder resources (each capped by the device), retry and RNR retry 7; no private data
        AcceptParams p = new AcceptParams(new byte[0], Math.min(req.initiatorDepth(), MAX_RD_ATOMIC),
                Math.min(req.responderResources(), MAX_RD_ATOMIC), CmParameters.RNR_RETRY_COUNT, s.minRnrTimer());
        id.accept(r.qp, p);
        out.printf(Locale.ROOT, "accepted: QPN 0x%06x, responder resources %d, initiator depth %d, path MTU %d%n",
                r.qp.qpNum(), p.responderResources(), p.initiatorDepth(), r.qp.pathMtu());
    }

    /**
     * Checks the REQ's CMA header as Linux's passive rdma_cm does before it reports it (cma.c
     * cma_ib_req_handler, cma_save_ip_info, validate_net_dev): our soft CM leaves that to us.
     */
    private void checkCmaHeader(CmEvent.ConnectRequest req) throws InteropFailure {
        CmaHeader h;
        try {
            h = CmaHeader.fromBytes(req.privateData());
        } catch (CmFormatException e) {
            req.id().reject(new byte[0]);
            throw new InteropFailure("the REQ from " + req.source().getHostAddress() + " carries no CMA header ("
                    + e.getMessage() + "): rejected");
        }
        out.printf(Locale.ROOT, "connect request from %s: CMA header IPv%d src %s port %d dst %s; responder "
                        + "resources %d, initiator depth %d%n", req.source().getHostAddress(), h.ipVersion(),
                h.sourceAddress().getHostAddress(), h.sourcePort(), h.destinationAddress().getHostAddress(),
                req.responderResources(), req.initiatorDepth());
        if (s.listen() != null && !h.destinationAddress().equals(s.listen())) {
            req.id().reject(new byte[0]);
            throw new InteropFailure("the CMA header's destination " + h.destinationAddress().getHostAddress()
                    + " is not the address we listen on, " + s.listen().getHostAddress() + ": rejected");
        }
        if (!h.sourceAddress().equals(req.source())) {
            // Linux route-validates the header's source through the RoCE netdev the REQ came in on and answers
            // REJ 28 when it does not lead back there (IB-WIRE-REFERENCE §6.2, CM-MAPPING §5)
            req.id().reject(new byte[0]);
            throw new InteropFailure("the CMA header's source " + h.sourceAddress().getHostAddress() + " is not the "
                    + "REQ's sender " + req.source().getHostAddress() + " (Linux rdma_cm rejects such a REQ, REJ 28)");
        }
    }

    /** rping_accept's {@code sem_wait}: ESTABLISHED (RTU), or the client's first SEND, which establishes too. */
    private void awaitEstablished() throws InteropFailure {
        String what = "the client's RTU (connection established)";
        for (;;) {
            VerbsEvents.Event e = r.events.next(deadline, what);
            if (e instanceof VerbsEvents.Cm cm) {
                if (cm.event().id() == id && cm.event() instanceof CmEvent.Established) {
                    out.println("established");
                    return;
                }
                try {
                    onCm(cm.event(), what);
                } catch (PeerDisconnected d) {
                    throw new InteropFailure("the client disconnected before the connection was established");
                }
            } else if (e instanceof VerbsEvents.Completion c && c.wc().status == WcStatus.SUCCESS
                    && c.wc().opcode == WcOpcode.RECV) {
                r.events.unread(e);
                out.println("established (first SEND)");
                return;
            } else {
                throw new InteropFailure("unexpected completion before the connection was up: "
                        + ((VerbsEvents.Completion) e).wc());
            }
        }
    }

    /**
     * rping_test_server's loop; returns when the client disconnects between iterations, or, with {@code -C}, when
     * the client's disconnect does not follow its last iteration within {@link #LAST_DISCONNECT_WAIT}: rping's
     * client destroys its id right after rdma_disconnect, which cancels the DREQ's retransmission (Linux cm.c:
     * cm_destroy_id in DREQ_SENT), so on a lossy link one lost DREQ is never repeated and the server must end
     * the connection itself.
     */
    private void testServer() throws InteropFailure {
        for (;;) {
            WorkCompletion wc;
            if (s.count() != 0 && iterations == s.count()) {
                Deadline wait = Deadline.after(LAST_DISCONNECT_WAIT);
                try {
                    await(WcOpcode.RECV, "the client's disconnect after its last iteration", wait);
                    throw new InteropFailure("the client started iteration " + (iterations + 1) + ", expected "
                            + s.count());
                } catch (PeerDisconnected d) {
                    return;
                } catch (InteropFailure f) {
                    if (wait.remainingNanos() > 0) {
                        throw f;
                    }
                    out.printf(Locale.ROOT, "no disconnect from the client %d s after its last iteration (its DREQ "
                            + "lost?): disconnecting%n", LAST_DISCONNECT_WAIT.toSeconds());
                    id.disconnect();
                    return;
                }
            }
            try {
                wc = await(WcOpcode.RECV, "the client's source advertisement (iteration " + iterations
                        + "), or its disconnect");
            } catch (PeerDisconnected d) {
                return;                                    // rping_test_server: state DISCONNECTED -> 0
            }
            try {
                iteration(wc);
            } catch (PeerDisconnected d) {
                throw new InteropFailure("the client disconnected in the middle of iteration " + iterations);
            }
            iterations++;
        }
    }

    private void iteration(WorkCompletion sourceAdv) throws InteropFailure, PeerDisconnected {
        checkInfoLength(sourceAdv);
        RpingInfo source = r.received();
        r.postRecv();
        debug("Received rkey " + Integer.toHexString(source.rkey()) + " addr " + Long.toHexString(source.buf())
                + " len " + source.unsignedSize() + " from peer");
        if (source.unsignedSize() > s.size()) {
            throw new InteropFailure("the client advertises a " + source.unsignedSize() + "-byte source, larger than "
                    + "our " + s.size() + "-byte buffer: give both sides the same -S");
        }
        int len = source.size();
        r.postRead(source, len);
        await(WcOpcode.RDMA_READ, "the RDMA READ of the client's source (iteration " + iterations + ")");
        if (s.verbose()) {
            out.println("server ping data: " + RpingPattern.cString(r.rdmaBuf.buffer(), 0, s.size()));
        }
        if (s.validate()) {
            checkPingData(len);
        }
        r.postSend(RpingResources.SLOT_SOURCE);             // "Tell client to continue"
        WorkCompletion sinkAdv = await(WcOpcode.RECV, "the client's sink advertisement (iteration "
                + iterations + ")");
        checkInfoLength(sinkAdv);
        RpingInfo sink = r.received();
        r.postRecv();
        // rping.c: cb->rdma_sq_wr.sg_list->length = strlen(cb->rdma_buf) + 1
        int writeLen = Math.min(RpingPattern.strlen(r.rdmaBuf.buffer(), 0, s.size()) + 1, s.size());
        if (writeLen > sink.unsignedSize()) {
            throw new InteropFailure("the client's sink (" + sink.unsignedSize() + " bytes) is smaller than the "
                    + writeLen + " bytes to write back");
        }
        r.postWrite(sink, writeLen);
        await(WcOpcode.RDMA_WRITE, "the RDMA WRITE into the client's sink (iteration " + iterations + ")");
        r.postSend(RpingResources.SLOT_SOURCE);             // "Tell client to begin again"
    }

    /** Our {@code -V}: the READ must have fetched rping's text for this iteration. */
    private void checkPingData(int len) throws InteropFailure {
        byte[] want = RpingPattern.of(iterations, len);
        int at = RpingPattern.firstMismatch(r.rdmaBuf.buffer(), 0, ByteBuffer.wrap(want), 0, len);
        if (at >= 0) {
            throw new InteropFailure(String.format(Locale.ROOT, "ping data mismatch in iteration %d at offset %d: "
                    + "read 0x%02x, rping's text has 0x%02x", iterations, at, r.rdmaBuf.buffer().get(at) & 0xFF,
                    want[at] & 0xFF));
        }
        validated++;
    }

    @Override
    public void close() {
        listener.close();
        r.close();
    }
}

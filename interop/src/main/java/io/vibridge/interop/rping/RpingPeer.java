package io.vibridge.interop.rping;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.VerbsEvents;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.io.PrintStream;

/**
 * What rping's client and server share: waiting for the next completion of a kind while checking every other
 * one, the way rping.c's {@code rping_cq_event_handler} and {@code rping_cma_event_handler} feed its main thread.
 * One thread drives a peer.
 */
abstract class RpingPeer {
    /** The connection went down from the other side (CM DREQ), which ends rping's server loop normally. */
    static final class PeerDisconnected extends Exception {
        PeerDisconnected() {
            super("disconnected", null, false, false);
        }
    }

    final RpingResources r;
    final Deadline deadline;
    final PrintStream out;
    final boolean debug;
    /** Our connection's id (null before it exists). */
    CmId id;
    /** SEND completions seen. */
    long sendsCompleted;
    /** A completion came back flushed: the QP is in ERROR, a CM disconnect is under way. */
    boolean flushed;
    boolean disconnected;

    RpingPeer(RpingResources r, Deadline deadline, PrintStream out, boolean debug) {
        this.r = r;
        this.deadline = deadline;
        this.out = out;
        this.debug = debug;
    }

    /**
     * Waits for the next successful completion of {@code want}. SEND completions met on the way are counted;
     * any failed completion fails the run (rping.c: "cq completion failed status %d"), except flushed ones, which
     * rping skips because the CM's DISCONNECTED follows.
     *
     * @throws PeerDisconnected when our connection's CM reports the disconnect first
     */
    WorkCompletion await(WcOpcode want, String what) throws InteropFailure, PeerDisconnected {
        return await(want, what, deadline);
    }

    /** As {@link #await(WcOpcode, String)} within {@code until} (a shorter wait than the run's budget). */
    WorkCompletion await(WcOpcode want, String what, Deadline until) throws InteropFailure, PeerDisconnected {
        for (;;) {
            VerbsEvents.Event e = r.events.next(until, flushed ? what + " (our QP was flushed: waiting for the "
                    + "CM disconnect)" : what);
            switch (e) {
                case VerbsEvents.Completion c -> {
                    WorkCompletion wc = c.wc();
                    debug("completion " + wc);
                    if (wc.status == WcStatus.WR_FLUSH_ERROR) {
                        flushed = true;
                        continue;
                    }
                    if (wc.status != WcStatus.SUCCESS) {
                        throw new InteropFailure("cq completion failed status " + wc.status + " (" + wc
                                + ") while waiting for " + what);
                    }
                    if (wc.opcode == want) {
                        return wc;
                    }
                    if (wc.opcode == WcOpcode.SEND) {
                        sendsCompleted++;
                        continue;
                    }
                    throw new InteropFailure("unexpected " + wc.opcode + " completion while waiting for " + what);
                }
                case VerbsEvents.Cm cm -> onCm(cm.event(), what);
            }
        }
    }

    /** A receive completion must carry exactly one {@link RpingInfo} (rping.c server_recv / client_recv). */
    static void checkInfoLength(WorkCompletion wc) throws InteropFailure {
        if (wc.byteLength != RpingInfo.LENGTH) {
            throw new InteropFailure("Received bogus data, size " + wc.byteLength + " (rping SENDs are "
                    + RpingInfo.LENGTH + " bytes)");
        }
    }

    /** CM events while waiting: our DISCONNECTED ends the wait; another id's request is refused. */
    void onCm(CmEvent ev, String what) throws InteropFailure, PeerDisconnected {
        debug("cma event " + ev.getClass().getSimpleName() + " (comm id " + ev.id().localCommId() + ")");
        if (ev instanceof CmEvent.ConnectRequest req && (id == null || req.id() != id)) {
            // rping.c serves one connection (without -P): further requests are refused
            out.println("rejecting a connect request from " + req.source().getHostAddress()
                    + ": rping serves one connection");
            req.id().reject(new byte[0]);
            return;
        }
        if (id != null && ev.id() != id) {
            return;
        }
        switch (ev) {
            case CmEvent.Disconnected d -> {
                disconnected = true;
                throw new PeerDisconnected();
            }
            case CmEvent.Rejected rj -> throw new InteropFailure("cma event REJECTED, reason " + rj.reason()
                    + describeReject(rj.reason()) + " while waiting for " + what);
            case CmEvent.ConnectTimeout t -> throw new InteropFailure("cma event UNREACHABLE: no answer to the CM "
                    + "REQ after every retry while waiting for " + what);
            default -> {
                // Established, TimewaitExit, our own request: nothing to do here
            }
        }
    }

    static String describeReject(int reason) {
        return switch (reason) {
            case CmEvent.REJ_INVALID_SERVICE_ID -> " (invalid Service ID: no listener on that port)";
            case CmEvent.REJ_CONSUMER -> " (consumer reject: the server refused the request)";
            case CmEvent.REJ_STALE_CONNECTION -> " (stale connection)";
            case CmEvent.REJ_TIMEOUT -> " (timeout)";
            case 26 -> " (invalid path MTU)";
            default -> "";
        };
    }

    void debug(String line) {
        if (debug) {
            out.println("debug: " + line);
        }
    }
}

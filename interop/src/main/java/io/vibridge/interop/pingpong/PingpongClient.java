package io.vibridge.interop.pingpong;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.io.PrintStream;
import java.net.InetSocketAddress;

/**
 * ibv_rc_pingpong {@code HOST}: exchanges addresses with the server over TCP (pp_client_exch_dest), connects
 * its QP, sends first, then one SEND per SEND received.
 */
public final class PingpongClient extends PingpongPeer {
    public static final String NAME = "pingpong-client";

    private PingpongClient(VerbsDevice device, PingpongSettings s, PrintStream out) {
        super(device, s, out);
    }

    public static Outcome run(VerbsDevice device, PingpongSettings s, InetSocketAddress server, Deadline deadline,
                              PrintStream out) {
        try (PingpongClient c = new PingpongClient(device, s, out)) {
            PingpongDest remote = DestExchange.client(server, c.mine, deadline, out);
            out.println("  remote address: " + remote.describe());
            c.connectQp(remote);
            PingpongLoop.Stats st = c.loop(deadline);
            return Outcome.pass(NAME, c.details(st, remote));
        } catch (InteropFailure | IllegalStateException f) {
            return Outcome.fail(NAME, f.getMessage());
        } catch (RuntimeException e) {
            return Outcome.fail(NAME, "verbs error: " + e);
        }
    }
}

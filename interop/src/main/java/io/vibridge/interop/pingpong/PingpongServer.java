package io.vibridge.interop.pingpong;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;

/**
 * ibv_rc_pingpong without a host argument: prints its address, waits for one client on the TCP port, connects
 * its QP to the client's before answering (pp_server_exch_dest), then answers each SEND with one.
 */
public final class PingpongServer extends PingpongPeer {
    public static final String NAME = "pingpong-server";

    private final DestExchange.Server exchange;

    private PingpongServer(VerbsDevice device, PingpongSettings s, InetSocketAddress bind, PrintStream out)
            throws IOException {
        super(device, s, out);
        try {
            exchange = DestExchange.Server.bind(bind);
        } catch (IOException | RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    /** Sets up the context, posts the receives, prints the local address and listens on {@code bind}. */
    public static PingpongServer open(VerbsDevice device, PingpongSettings s, InetSocketAddress bind,
                                      PrintStream out) throws IOException {
        return new PingpongServer(device, s, bind, out);
    }

    /** The TCP port it listens on (useful with port 0). */
    public int port() {
        return exchange.port();
    }

    public Outcome run(Deadline deadline) {
        PingpongDest remote = null;
        try {
            remote = exchange.accept(deadline);
            out.println("  remote address: " + remote.describe());
            connectQp(remote);
            exchange.answer(mine, deadline);
            exchange.close();
            PingpongLoop.Stats st = loop(deadline);
            return Outcome.pass(NAME, details(st, remote));
        } catch (InteropFailure f) {
            return Outcome.fail(NAME, f.getMessage());
        } catch (RuntimeException e) {
            return Outcome.fail(NAME, "verbs error: " + e);
        }
    }

    @Override
    public void close() {
        exchange.close();
        super.close();
    }
}

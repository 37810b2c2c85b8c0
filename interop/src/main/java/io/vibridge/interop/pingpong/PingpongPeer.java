package io.vibridge.interop.pingpong;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.VerbsDevice;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** What rc_pingpong's client and server share: the context, our address, the QP connection, the loop. */
abstract class PingpongPeer implements AutoCloseable {
    final VerbsDevice device;
    final PingpongSettings s;
    final PrintStream out;
    final PingpongContext ctx;
    final PingpongDest mine;
    final int routs;

    PingpongPeer(VerbsDevice device, PingpongSettings s, PrintStream out) {
        this.device = device;
        this.s = s;
        this.out = out;
        if (!device.capabilities().contains(Capability.OUT_OF_BAND_CONNECT)) {
            throw new IllegalStateException("verbs provider " + device.providerName() + " cannot connect a QP out "
                    + "of band (QueuePair.connect): rc_pingpong has no CM");
        }
        if (s.mtu() > device.maxPathMtu()) {
            throw new IllegalStateException("path MTU " + s.mtu() + " (-m) is above this port's " + device.maxPathMtu()
                    + " (the interface's MTU): the peers would disagree on packet sizes");
        }
        ctx = new PingpongContext(device, s);
        try {
            routs = ctx.postRecv(s.rxDepth());            // main: routs = pp_post_recv(ctx, ctx->rx_depth)
            // main: my_dest.lid = portinfo.lid (0 on Ethernet); psn = lrand48() & 0xffffff; the GID of -g's
            // index: a soft port has one GID, its IPv4-mapped address, and RoCE peers need it (-g 1 on rxe)
            mine = new PingpongDest(0, ctx.qp.qpNum(), ThreadLocalRandom.current().nextInt() & 0xFFFFFF,
                    device.gid());
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
        out.println("  local address:  " + mine.describe());
    }

    /**
     * pp_connect_ctx: RTR with the peer's QPN, its PSN as our {@code rq_psn}, the path MTU and its GID; RTS with
     * our PSN as {@code sq_psn}, timeout 14, retry 7, RNR retry 7, one READ each way, min RNR timer 12.
     */
    void connectQp(PingpongDest remote) throws InteropFailure {
        InetAddress peer = peerAddress(remote);
        QpConnection c = QpConnection.of(peer, remote.qpn(), mine.psn(), remote.psn(), s.mtu())
                .withRetries(7, 7, s.ackTimeout());
        try {
            ctx.qp.connect(c);
        } catch (RuntimeException e) {
            throw new InteropFailure("Failed to modify QP to RTR/RTS: " + e.getMessage(), e);
        }
    }

    /** The peer's RoCE address: its GID, which must be an IPv4-mapped one (soft devices are IPv4). */
    static InetAddress peerAddress(PingpongDest remote) throws InteropFailure {
        byte[] gid = remote.gid();
        if (Arrays.equals(gid, new byte[16])) {
            throw new InteropFailure("the peer sent GID :: (no -g): RoCE needs the GID, run ibv_rc_pingpong with -g "
                    + "and the index of its IPv4 RoCEv2 GID (1 on rxe)");
        }
        InetAddress a;
        try {
            a = InetAddress.getByAddress(gid);             // ::ffff:a.b.c.d becomes a.b.c.d
        } catch (UnknownHostException e) {
            throw new InteropFailure("bad GID " + WireGid.ntop(gid), e);
        }
        if (!(a instanceof Inet4Address)) {
            throw new InteropFailure("the peer's GID " + WireGid.ntop(gid) + " is not an IPv4-mapped (RoCEv2 IPv4) "
                    + "GID: the soft device speaks IPv4 only (use the peer's IPv4 GID index with -g)");
        }
        return a;
    }

    PingpongLoop.Stats loop(Deadline deadline) throws InteropFailure {
        PingpongLoop.Stats st = new PingpongLoop(ctx, s, this instanceof PingpongClient, routs).run(deadline);
        out.println(st.report(s.size(), s.iters()));
        return st;
    }

    String details(PingpongLoop.Stats st, PingpongDest remote) {
        return String.format(Locale.ROOT, "iters=%d size=%d mtu=%d received=%d sent=%d usec/iter=%.2f "
                        + "peer=%s qpn=0x%06x", s.iters(), s.size(), ctx.qp.pathMtu(), st.received(), st.sent(),
                st.nanos() / 1000.0 / s.iters(), WireGid.ntop(remote.gid()), remote.qpn());
    }

    @Override
    public void close() {
        ctx.close();
    }
}

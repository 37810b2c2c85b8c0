package io.vibridge.interop.pingpong;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.VerbsEvents;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.util.Locale;

/**
 * rc_pingpong.c's main loop and parse_single_wc: the client posts the first SEND; each side posts its next
 * SEND once both its previous SEND and a receive have completed ({@code ctx->pending}), until both counters
 * reach {@code iters}; receives are topped up to {@code rx_depth} when one or none is left. Each received
 * message is also checked here (length {@code size}, rc_pingpong's bytes), which rc_pingpong does not do.
 */
final class PingpongLoop {
    /** What one run did. */
    record Stats(int received, int sent, long nanos) {
        /** rc_pingpong.c's two result lines. */
        String report(int size, int iters) {
            double usec = nanos / 1000.0;
            long bytes = (long) size * iters * 2;
            return String.format(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n%d iters in %.2f seconds"
                    + " = %.2f usec/iter", bytes, usec / 1e6, bytes * 8.0 / usec, iters, usec / 1e6, usec / iters);
        }
    }

    private final PingpongContext ctx;
    private final PingpongSettings s;
    private final boolean client;
    private int routs;

    /** @param routs receives already posted (rc_pingpong posts {@code rx_depth} before the exchange) */
    PingpongLoop(PingpongContext ctx, PingpongSettings s, boolean client, int routs) {
        this.ctx = ctx;
        this.s = s;
        this.client = client;
        this.routs = routs;
    }

    Stats run(Deadline deadline) throws InteropFailure {
        int pending = PingpongContext.RECV_WRID;
        if (client) {
            if (s.chk()) {
                PingpongPattern.markPages(ctx.buffer(), s.size());
            }
            ctx.postSend();
            pending |= PingpongContext.SEND_WRID;
        }
        long start = System.nanoTime();
        int rcnt = 0;
        int scnt = 0;
        while (rcnt < s.iters() || scnt < s.iters()) {
            VerbsEvents.Event e = ctx.events.next(deadline, String.format(Locale.ROOT,
                    "the next completion (received %d, sent %d of %d)", rcnt, scnt, s.iters()));
            if (!(e instanceof VerbsEvents.Completion c)) {
                continue;                                  // no CM on this QP
            }
            WorkCompletion wc = c.wc();
            if (wc.status != WcStatus.SUCCESS) {
                throw new InteropFailure("Failed status " + wc.status + " for wr_id " + wc.wrId + " (received " + rcnt
                        + ", sent " + scnt + ")");
            }
            switch ((int) wc.wrId) {
                case PingpongContext.SEND_WRID -> scnt++;
                case PingpongContext.RECV_WRID -> {
                    if (--routs <= 1) {
                        routs += ctx.postRecv(ctx.rxDepth - routs);
                    }
                    check(wc, rcnt);
                    rcnt++;
                }
                default -> throw new InteropFailure("Completion for unknown wr_id " + wc.wrId);
            }
            pending &= ~(int) wc.wrId;
            if (scnt < s.iters() && pending == 0) {
                ctx.postSend();
                pending = PingpongContext.RECV_WRID | PingpongContext.SEND_WRID;
            }
        }
        return new Stats(rcnt, scnt, System.nanoTime() - start);
    }

    private void check(WorkCompletion wc, int n) throws InteropFailure {
        if (wc.byteLength != s.size()) {
            throw new InteropFailure("message " + n + " has " + wc.byteLength + " bytes, expected " + s.size()
                    + " (give both sides the same -s)");
        }
        int bad = PingpongPattern.firstBad(ctx.buffer(), s.size(), s.chk(), !client);
        if (bad >= 0) {
            throw new InteropFailure(String.format(Locale.ROOT, "message %d: byte %d is 0x%02x, not rc_pingpong's"
                    + " 0x%02x%s", n, bad, ctx.buffer().get(bad) & 0xFF, PingpongPattern.FILL,
                    bad % PingpongPattern.PAGE_SIZE == 0 ? " (a page start: -c must match the peer's)" : ""));
        }
    }
}

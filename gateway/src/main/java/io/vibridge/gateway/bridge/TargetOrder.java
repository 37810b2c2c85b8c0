package io.vibridge.gateway.bridge;

import java.util.ArrayDeque;

/**
 * The order in which what the target issued reaches the client (IBA 9.5: an RC responder executes
 * requests in order, so the client must see them in order). Target SENDs arrive as receive
 * completions; target RDMA arrives through {@link CutThrough}, each operation stamped with the
 * number of target messages the provider had queued before it ({@link TargetOp.Rdma#receivesBefore}).
 * An operation goes to the front end once every message before it went, and before any message
 * after it; a front end writes what it is given in order, so that is all the ordering takes.
 * This is the one place that rule lives.
 *
 * <p>The target may issue as soon as it has our RTU, and its completions and our CM Established event
 * reach the connection in either order: what comes before the client's connection is {@link #accept}ed
 * waits here, in order.
 */
final class TargetOrder {
    /** Where forwarded operations go: the front end of the client connection. */
    interface Client {
        /** Whether the client connection is up (operations are handed on) or gone (they fail). */
        boolean up();

        /** Hands a target operation to the front end (which ends an RDMA one: {@link TargetOp.Rdma#finish}). */
        void forward(TargetOp op);
    }

    private final CutThrough cut;
    private final Client client;
    /** What the target issued before the client's connection was accepted, or null once it was. */
    private ArrayDeque<TargetOp> early = new ArrayDeque<>(2);
    /** Target messages handed on (or dropped) so far, matched against {@code receivesBefore}. */
    private int receivesPosted;

    /** {@code cut} may be null: a provider without remote-access interception forwards no target RDMA. */
    TargetOrder(CutThrough cut, Client client) {
        this.cut = cut;
        this.client = client;
    }

    /** A target message was polled: RDMA issued before it goes first, then it counts as posted. */
    void beforeTargetMessage() {
        forward();
        receivesPosted++;
    }

    /** A target SEND, polled after {@link #beforeTargetMessage}. */
    void targetMessage(TargetOp.Send send) {
        hand(send);
    }

    /** The client's connection is accepted: what the target issued so far goes, in order. */
    void accept() {
        ArrayDeque<TargetOp> ops = early;
        early = null;
        if (ops != null) {
            for (TargetOp op : ops) {
                client.forward(op);
            }
        }
    }

    private void hand(TargetOp op) {
        if (early != null) {
            early.addLast(op);
        } else {
            client.forward(op);
        }
    }

    /**
     * Hands queued cut-through operations to the front end, in the order the target issued them, up to
     * the first one that came after a target message not polled yet. Once the client connection is no
     * longer up, queued operations fail (the target's READs are NAKed, its WRITE copies released).
     */
    void forward() {
        if (cut == null) {
            return;
        }
        TargetOp.Rdma o;
        while ((o = cut.queue.peek()) != null) {
            boolean up = client.up();
            if (up && o.receivesBefore - receivesPosted > 0) {
                break; // issued after a target message still in the CQ: posted after it
            }
            cut.queue.poll();
            if (up) {
                hand(o);
            } else {
                o.finish(false);
            }
        }
    }

    /** Target READs longer than {@code mtu} are split into several Read Requests to the client. */
    void maxRead(long mtu) {
        if (cut != null) {
            cut.maxRead = mtu;
        }
    }

    /** Closes the handler and fails whatever is still queued. */
    void close() {
        if (early != null) {
            for (TargetOp op : early) {
                if (op instanceof TargetOp.Rdma r) {
                    r.finish(false);
                }
            }
            early = null;
        }
        if (cut == null) {
            return;
        }
        cut.open = false;
        TargetOp.Rdma o;
        while ((o = cut.queue.poll()) != null) {
            o.finish(false);
        }
    }

    int queued() {
        return cut == null ? 0 : cut.queue.size();
    }

    long held() {
        return cut == null ? 0 : cut.held();
    }
}

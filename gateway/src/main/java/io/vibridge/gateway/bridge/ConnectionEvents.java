package io.vibridge.gateway.bridge;

import io.vibridge.gateway.bridge.FrontEnd.Refusal;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.WcStatus;

/**
 * What a connection's {@link TargetSide} and {@link TargetOrder} report, routed to the connection's
 * lifecycle or to its front end: the CM's events (one switch for every front end), completions, and the
 * target's operations in order. Confined to the connection's context.
 */
final class ConnectionEvents implements TargetSide.Events, TargetOrder.Client {
    private final BridgedConnection connection;
    private final FrontEnd front;
    private TargetSide target;
    private TargetOrder order;

    ConnectionEvents(BridgedConnection connection, FrontEnd front) {
        this.connection = connection;
        this.front = front;
    }

    /** The InfiniBand leg this routes for, once the connection opened it. */
    void attach(TargetSide target, TargetOrder order) {
        this.target = target;
        this.order = order;
    }

    @Override
    public void cmEvent(CmEvent event) {
        boolean connecting = connection.phase() == Phase.CONNECTING_TARGET;
        switch (event) {
            case CmEvent.Established rep -> connection.targetEstablished(rep);
            case CmEvent.Rejected rej -> {
                if (connecting) {
                    connection.targetRejected(rej);
                }
            }
            case CmEvent.ConnectTimeout timeout -> {
                // the CM REQ got no answer at all after max-cm-retries: the target is unreachable. The SPI reports
                // an MRA-then-silence the same way, so a VI client's IS 15 is left to the gateway's own timeouts.
                if (connecting) {
                    connection.targetFailed(Refusal.TARGET_UNREACHABLE, "CM timeout: target unreachable", null);
                }
            }
            case CmEvent.Disconnected dreq -> connection.targetDisconnected();
            case CmEvent.TimewaitExit exit -> target.markDown();
            default -> {
            }
        }
        connection.maybeRelease();
        connection.pump();
    }

    @Override
    public void clientMessageDone(int slot) {
        front.clientOpDone(slot);
    }

    @Override
    public void clientMessageFailed(int slot, WcStatus status) {
        connection.clientOpFailed(slot, status);
    }

    @Override
    public void clientMessageEnded(int slot) {
        front.clientOpEnded(slot);
        connection.maybeRelease();
    }

    @Override
    public void readDone(int slot) {
        front.readDone(slot);
    }

    @Override
    public void targetReceivePolled() {
        order.beforeTargetMessage();
    }

    @Override
    public void targetMessage(TargetOp.Send send) {
        order.targetMessage(send);
    }

    @Override
    public void completionsPolled() {
        order.forward(); // what the target issued after the last message polled
        target.postStaged();
        connection.maybeRelease();
        connection.pump();
    }

    @Override
    public void failed(WcStatus status) {
        connection.failed("InfiniBand " + status, status == WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Override
    public void failed(String why) {
        connection.failed(why, false);
    }

    @Override
    public boolean up() {
        Phase phase = connection.phase();
        return phase == Phase.CONNECTING_TARGET || phase != Phase.CLOSED && front.up();
    }

    @Override
    public void forward(TargetOp op) {
        front.deliver(op);
    }
}

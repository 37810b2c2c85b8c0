package io.vibridge.gateway.bridge;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import java.util.concurrent.Executor;

/**
 * The InfiniBand leg of one bridged connection, from the moment its route is known: the staging slots the
 * client's messages take, the {@link TargetSide} (CQ, QP, CM id) and the {@link TargetOrder} with its
 * {@link CutThrough}. Opened together, released together. Confined to the connection's context.
 */
final class TargetLeg {
    final Route route;
    final StagingSlots slots;
    final TargetSide side;
    final TargetOrder order;
    private final GatewayMetrics metrics;
    /** A client message waits for a free slot (its credit stall is counted once). */
    private boolean admissionStalled;

    private TargetLeg(Route route, StagingSlots slots, TargetSide side, TargetOrder order, GatewayMetrics metrics) {
        this.route = route;
        this.slots = slots;
        this.side = side;
        this.order = order;
        this.metrics = metrics;
    }

    /** Whether the route's target takes FlowC 0 credits (CM-MAPPING §4). */
    static boolean flowC0(Route route) {
        return route.target().parameters().flowControl() == FlowControl.TRANSPORT;
    }

    /**
     * Opens the InfiniBand side for {@code route} over {@code slots} (reserved for it); on a failure the slots
     * go back to the pool. {@code cutThroughReady} runs when the provider queued target RDMA (any thread).
     */
    static TargetLeg open(BridgeContext shared, long connId, Route route, StagingSlots slots, ConnectionEvents events,
            Executor onContext, Runnable cutThroughReady) {
        try {
            CutThrough cut = new CutThrough(cutThroughReady);
            TargetSide side = new TargetSide(connId, shared, slots, route.target().parameters().receiveSize(),
                    flowC0(route), events, onContext, cut);
            TargetOrder order = new TargetOrder(side.cutThrough() ? cut : null, events);
            events.attach(side, order);
            return new TargetLeg(route, slots, side, order, shared.metrics);
        } catch (RuntimeException e) {
            slots.release();
            throw e;
        }
    }

    /**
     * Sends the CM REQ: the route's private data for {@code client} with the client application's behind it,
     * read depths no deeper than the client's.
     */
    void connect(BridgeContext shared, InetAddress client, int clientPort, FrontEnd.ClientRequest request,
            Executor onContext) {
        RouteTarget t = route.target();
        VerbsDevice device = shared.device;
        byte[] pd = t.requestPrivateData(client, clientPort, device.address(), shared.nextCmaPort(),
                device.connectionManager().writesCmaHeader(), request.privateData());
        side.connect(device, CmTerms.request(t, shared.config.infiniband(), pd, request.ird(), request.ord()),
                onContext);
    }

    /** A free slot for the client's next message, or false (the stall is counted once per waiting message). */
    boolean admit() {
        if (slots.admit()) {
            admissionStalled = false;
            return true;
        }
        if (!admissionStalled) {
            admissionStalled = true;
            metrics.creditStall(Direction.CLIENT_TO_TARGET);
        }
        return false;
    }

    /** The client message in {@code slot} goes to the target in its turn. */
    void stage(int slot) {
        slots.enqueue(slot);
        side.postStaged();
    }

    /** Sends the CM DREQ once; without a CM connection there is nothing to wait for. */
    void disconnect() {
        if (!side.disconnect()) {
            side.markDown();
        }
    }

    /**
     * Whether the leg may be closed: its CM connection ended, or never started, or the connection gave it up
     * ({@code abandoned}), and the QP flushed everything.
     */
    boolean closable(boolean abandoned) {
        if (side.connectStarted() && !side.disconnectSent() && !side.down() && !abandoned) {
            return false;
        }
        return side.flushed();
    }

    /** Fails what the target still has queued, destroys the QP and CQ, returns the slots. */
    void close() {
        order.close();
        side.close();
        slots.release();
    }

    /** "address:port/0xServiceID" of the route's target. */
    static String targetName(Route route) {
        RouteTarget t = route.target();
        return t.address().getHostAddress() + ":" + t.port() + "/0x" + Long.toHexString(t.serviceId().value());
    }

    @Override
    public String toString() {
        return slots + " " + side;
    }
}

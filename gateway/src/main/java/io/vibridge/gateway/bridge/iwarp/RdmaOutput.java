package io.vibridge.gateway.bridge.iwarp;

import io.vibridge.gateway.bridge.FrontEnd.Host;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.bridge.TargetOp;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.IntConsumer;

/**
 * The RDMA messages an {@link IwarpFrontEnd}'s stream carries to its client, laid out through the engine
 * while TCP takes them (IWARP-MAPPING): the Read Responses to the client's Read Requests whose InfiniBand
 * READ completed, in request order; and the target's operations in the order it issued them (IBA 9.5),
 * each message laid out whole so nothing interleaves: a SEND as a Send, an RDMA WRITE packet as an RDMA
 * Write, an RDMA READ as a Read Request into a sink STag of the engine's, which the client's Read Response
 * fills ({@link #readResponse}). Confined to the connection's event loop.
 */
final class RdmaOutput {
    private final Host host;
    private final GatewayMetrics metrics;
    private final IwarpConnection engine;
    private final IntConsumer freeSlot;
    /** What goes to the client, in the order the target issued it. */
    private final ArrayDeque<TargetOp> toClient = new ArrayDeque<>();

    /** {@code freeSlot}: gives a client slot back once its Read Response part went out. */
    RdmaOutput(Host host, IwarpConnection engine, IntConsumer freeSlot) {
        this.host = host;
        this.metrics = host.metrics();
        this.engine = engine;
        this.freeSlot = freeSlot;
    }

    /** An operation of the target, queued for the client. */
    void deliver(TargetOp op) {
        if (op instanceof TargetOp.Send s && s.hasImmediate()) {
            // iWARP has no immediate data (RFC 5040): the target's message cannot be delivered as it was meant
            host.fail("target SEND with immediate data, which iWARP cannot carry");
            return;
        }
        toClient.add(op);
        host.pump();
    }

    /** Read Responses, then what the target sent, while TCP takes them. */
    void write(ClientSocket socket) {
        drainReadResponses(socket);
        drainToClient(socket);
    }

    /** Lays out what may go to the client now, oldest first, while TCP takes it. */
    private void drainToClient(ClientSocket socket) {
        StagingSlots slots = host.slots();
        TargetOp o;
        while ((o = toClient.peek()) != null && engine.canTransmit() && !engine.readResponseUnfinished()
                && !socket.writeQueueFull()) {
            switch (o) {
                case TargetOp.Send m -> {
                    // IWARP-MAPPING §3: SEND (with Solicited Event, with Invalidate) -> Send of the same kind;
                    // the R_Key to invalidate is the client's STag, passed through
                    ByteBuffer dst = socket.reserve(engine.length(RdmapOpcode.SEND, m.length()));
                    engine.send(dst, slots.buffer(m.slot()), slots.slotOffset(m.slot()) + m.offset(),
                            m.length(), m.solicited(), m.invalidates() ? m.invalidateKey() : 0);
                    socket.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.SEND, m.length());
                    if (m.invalidates()) {
                        metrics.sendInvalidate(ClientProtocol.IWARP, Direction.TARGET_TO_CLIENT);
                    }
                    host.delivered(m.slot());
                }
                case TargetOp.Read r -> {
                    if (!engine.canReadRequest()) {
                        return; // the client's IRD is in use: this READ and all behind it wait (IBA 9.5 order)
                    }
                    ByteBuffer dst = socket.reserve(engine.readRequestLength());
                    engine.readRequest(dst, r.length(), r.remoteKey(), r.remoteAddress(), r);
                    socket.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.RDMA_READ, r.length());
                }
                case TargetOp.Write w -> {
                    if (w.hasImmediate()) {
                        toClient.poll();
                        w.finish(false);
                        host.fail("target RDMA WRITE with immediate data, which iWARP cannot carry");
                        return;
                    }
                    ByteBuffer dst = socket.reserve(engine.length(RdmapOpcode.RDMA_WRITE, w.length()));
                    ByteBuffer src = w.data();
                    engine.write(dst, w.remoteKey(), w.remoteAddress(), src, src.position(), w.length());
                    socket.commit(dst);
                    metrics.message(Direction.TARGET_TO_CLIENT, Operation.RDMA_WRITE, w.length());
                    w.finish(true);
                }
            }
            toClient.poll();
        }
    }

    /**
     * Read Responses to the client's Read Requests whose READ completed, in request order; a Read split into
     * several READs answers with one Read Response laid out part by part, each as its READ completed.
     */
    private void drainReadResponses(ClientSocket socket) {
        StagingSlots slots = host.slots();
        while (slots.reads() > 0 && engine.canTransmit() && !socket.writeQueueFull()) {
            int l = slots.oldestRead();
            if (!slots.readReady(l)) {
                return;
            }
            slots.popRead();
            ByteBuffer dst = socket.reserve(engine.length(RdmapOpcode.READ_RESPONSE, slots.length(l)));
            engine.readResponse(dst, slots.buffer(l), slots.payloadOffset(l), slots.length(l));
            socket.commit(dst);
            freeSlot.accept(l); // the READ's work is over: the slot goes back, input may resume
        }
    }

    /** A segment of the client's Read Response to the target's READ {@code token}, at {@code offset} of it. */
    boolean readResponse(Object token, long offset, DdpSegment s) {
        TargetOp.Read op = (TargetOp.Read) token;
        op.place(offset, s.buffer(), s.payloadOffset(), s.payloadLength());
        if (s.last()) {
            op.finish(true);
            host.pump(); // the IRD has room again
        }
        return true;
    }

    /** Nothing of the target's waits to go to the client. */
    boolean empty() {
        return toClient.isEmpty();
    }

    /** Ends what is still queued: the target's RDMA fails. */
    void released() {
        for (TargetOp o : toClient) {
            if (o instanceof TargetOp.Rdma op) {
                op.finish(false);
            }
        }
        toClient.clear();
    }

    @Override
    public String toString() {
        return "toClient=" + toClient.size();
    }
}

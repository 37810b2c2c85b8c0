package io.vibridge.gateway.bridge;

import io.vibridge.cm.route.Route;
import io.vibridge.gateway.metrics.ClientProtocol;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A front end of the tests' own, for the generic {@link BridgedConnection} with neither VI/TCP nor iWARP in
 * the way. Its client protocol is one byte per command: {@code C} asks for the route, {@code S} sends the
 * next 8 bytes to the target; it writes each target SEND back as it came. Its events are recorded.
 */
final class FakeFrontEnd implements FrontEnd {
    final List<String> events = new CopyOnWriteArrayList<>();
    private final Route route;
    private final ByteBuffer out = ByteBuffer.allocate(1 << 16);
    /** How long the client may take to send {@code C}. */
    Duration requestTimeout = Duration.ofSeconds(10);
    private Host host;
    private boolean requested;
    private boolean closing;

    FakeFrontEnd(Route route) {
        this.route = route;
    }

    @Override
    public void start(Host h) {
        host = h;
    }

    @Override
    public ClientProtocol protocol() {
        return ClientProtocol.VITCP;
    }

    @Override
    public void receive(ByteBuffer in) {
        while (in.hasRemaining()) {
            byte c = in.get(in.position());
            if (c == 'C' && !requested) {
                in.get();
                requested = true;
                host.connect(route, ClientRequest.CONFIGURED);
            } else if (c == 'S' && in.remaining() >= 9) {
                StagingSlots slots = host.slots();
                if (host.phase() != Phase.CONNECTED || !slots.admit()) {
                    return; // waits for a slot (the socket pauses)
                }
                in.get();
                int l = slots.takeAdmitted();
                slots.beginSend(l, 0);
                slots.place(l, 0, in, in.position(), 8);
                in.position(in.position() + 8);
                slots.ended(l, 8, false, 0);
                host.stage(l);
            } else {
                return;
            }
        }
    }

    @Override
    public boolean takesMore() {
        return !closing;
    }

    @Override
    public void writeOutput() {
        out.flip();
        if (out.hasRemaining()) {
            ByteBuffer dst = host.socket().reserve(out.remaining());
            dst.put(out);
            host.socket().commit(dst);
        }
        out.clear();
    }

    @Override
    public void outputWritten() {
        if (closing) {
            host.socket().end();
        }
    }

    @Override
    public void socketClosed() {
        events.add("socket closed");
    }

    @Override
    public String requestName() {
        return "C";
    }

    @Override
    public Duration requestTimeout() {
        return requestTimeout;
    }

    @Override
    public boolean awaitingRequest() {
        return !requested;
    }

    @Override
    public void requestTimedOut() {
        host.socket().close();
    }

    @Override
    public boolean targetAccepted(TargetTerms terms) {
        events.add("accepted bufs=" + terms.targetBufs() + " receive=" + terms.targetReceiveSize());
        return true;
    }

    @Override
    public String targetRefused(Refusal refusal, String why, byte[] privateData) {
        events.add("refused " + refusal);
        closing = true;
        return "refused";
    }

    @Override
    public boolean up() {
        return host.phase() == Phase.CONNECTED;
    }

    @Override
    public void deliver(TargetOp op) {
        if (op instanceof TargetOp.Send s) {
            StagingSlots slots = host.slots();
            ByteBuffer b = slots.buffer(s.slot());
            out.put(b.slice(slots.slotOffset(s.slot()) + s.offset(), s.length()));
            host.delivered(s.slot());
            host.pump();
        } else if (op instanceof TargetOp.Rdma r) {
            r.finish(false);
        }
    }

    @Override
    public void clientOpDone(int slot) {
        host.slots().free(slot);
        host.slotFreed();
    }

    @Override
    public boolean clientOpFailed(int slot, boolean accessError) {
        events.add("client op failed");
        return false;
    }

    @Override
    public void clientOpEnded(int slot) {
        host.slots().free(slot);
        host.slotFreed();
    }

    @Override
    public void readDone(int slot) {
    }

    @Override
    public boolean idle() {
        return out.position() == 0;
    }

    @Override
    public void close() {
        events.add("close");
        closing = true;
    }

    @Override
    public void fail(String why, boolean accessError) {
        events.add("fail " + why);
    }

    @Override
    public void forceClose() {
        events.add("force close");
    }

    @Override
    public void released() {
        events.add("released");
    }

    @Override
    public String debugState() {
        return "fake";
    }
}

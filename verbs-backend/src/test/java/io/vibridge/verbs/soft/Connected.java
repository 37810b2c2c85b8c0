package io.vibridge.verbs.soft;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Test helper: two soft devices in this JVM with one connected RC QP pair. */
final class Connected implements AutoCloseable {
    static final long SID = 0x0000000001064E20L;
    final VerbsDevice devA;
    final VerbsDevice devB;
    final Endpoint a;
    final Endpoint b;
    final CmId activeId;
    final CmId passiveId;
    final BlockingQueue<CmEvent> eventsA = new LinkedBlockingQueue<>();
    final BlockingQueue<CmEvent> eventsB = new LinkedBlockingQueue<>();
    private final ConnectionManager.CmListener listener;

    Connected(int bufferSize, int maxWr, Function<VerbsDevice, ConnectParams> tweak, AcceptParams accept)
            throws InterruptedException {
        this(bufferSize, maxWr, tweak, accept, c -> c.withProvider("soft"));
    }

    /** Both devices opened with {@code device} applied to their configuration. */
    Connected(int bufferSize, int maxWr, Function<VerbsDevice, ConnectParams> tweak, AcceptParams accept,
              UnaryOperator<DeviceConfig> device) throws InterruptedException {
        this(TestDevices.open(device), TestDevices.open(device), bufferSize, maxWr, tweak, accept);
    }

    /** Connects a QP of {@code devA} to one of {@code devB}; closes both devices when closed. */
    Connected(VerbsDevice devA, VerbsDevice devB, int bufferSize, int maxWr,
              Function<VerbsDevice, ConnectParams> tweak, AcceptParams accept) throws InterruptedException {
        this.devA = devA;
        this.devB = devB;
        a = new Endpoint(devA, bufferSize, maxWr);
        b = new Endpoint(devB, bufferSize, maxWr);
        listener = devB.connectionManager().listen(SID, eventsB::add, null);
        ConnectParams p = tweak != null ? tweak.apply(devB) : params(devB, new byte[] {1, 2, 3});
        activeId = devA.connectionManager().connect(p, a.qp, eventsA::add, null);
        CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) take(eventsB);
        passiveId = req.id();
        passiveId.accept(b.qp, accept != null ? accept : AcceptParams.defaults(new byte[] {9, 8, 7}).withRnr(7, 1));
        CmEvent est = take(eventsA);
        if (!(est instanceof CmEvent.Established)) {
            throw new AssertionError("expected Established, got " + est);
        }
        CmEvent estB = take(eventsB);
        if (!(estB instanceof CmEvent.Established)) {
            throw new AssertionError("expected Established on B, got " + estB);
        }
    }

    static ConnectParams params(VerbsDevice to, byte[] pd) {
        // short ACK timeout (2^14 * 4.096 us = 67 ms) and CM timeout for tests
        return ConnectParams.defaults(to.address(), SID, pd).withTimeouts(14, 14, 5).withMinRnrTimer(1);
    }

    static CmEvent take(BlockingQueue<CmEvent> q) throws InterruptedException {
        CmEvent e = q.poll(30, TimeUnit.SECONDS);
        if (e == null) {
            throw new AssertionError("no CM event within 30 s");
        }
        return e;
    }

    @Override
    public void close() {
        listener.close();
        a.close();
        b.close();
        devA.close();
        devB.close();
    }
}

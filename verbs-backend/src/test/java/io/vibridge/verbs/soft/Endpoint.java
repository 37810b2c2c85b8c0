package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/** Test helper: a device's PD, CQ, one QP and one registered buffer. */
final class Endpoint implements AutoCloseable {
    final VerbsDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion mr;
    private final WorkCompletion[] wcs = {new WorkCompletion()};

    Endpoint(VerbsDevice device, int bufferSize, int maxWr) {
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.cq = device.createCompletionQueue(maxWr * 4);
        this.qp = pd.createQueuePair(QpInitAttributes.of(cq, maxWr));
        this.mr = pd.registerMemory(ByteBuffer.allocateDirect(bufferSize),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
    }

    void postRecv(long id, int off, int len) {
        qp.postRecv(new ReceiveWorkRequest().set(id, mr, off, len));
    }

    void post(SendWorkRequest wr) {
        qp.postSend(wr);
    }

    /** Waits (event-driven via polling with a generous deadline) for the next completion. */
    WorkCompletion next(long timeoutSeconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < end) {
            if (cq.poll(wcs) == 1) {
                WorkCompletion copy = new WorkCompletion();
                copy.copyFrom(wcs[0]);
                return copy;
            }
            Thread.sleep(0, 200_000);
        }
        throw new AssertionError("no completion within " + timeoutSeconds + " s on " + device.name());
    }

    WorkCompletion next() throws InterruptedException {
        return next(30);
    }

    @Override
    public void close() {
        qp.close();
        mr.close();
    }
}

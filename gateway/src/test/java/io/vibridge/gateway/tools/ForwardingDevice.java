package io.vibridge.gateway.tools;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A device passed through to the gateway with what tests need of a hardware provider's behaviour: {@link #fail}
 * raises DeviceFatal as rdma-core does on a removal, {@code silentQueuePairs} drops the queue pairs' async events
 * as Linux 6.1's rxe does for a responder's access error, and {@link #closed} tells when the gateway let go.
 */
final class ForwardingDevice implements VerbsDevice {
    private final VerbsDevice d;
    private final boolean silentQueuePairs;
    private volatile Consumer<AsyncEvent> handler;
    private volatile Executor executor;
    final CountDownLatch closed = new CountDownLatch(1);

    ForwardingDevice(VerbsDevice d, boolean silentQueuePairs) {
        this.d = d;
        this.silentQueuePairs = silentQueuePairs;
    }

    void fail(String reason) {
        Consumer<AsyncEvent> h = handler;
        executor.execute(() -> h.accept(new AsyncEvent.DeviceFatal(reason)));
    }

    @Override
    public void onAsyncEvent(Consumer<AsyncEvent> handler, Executor executor) {
        this.handler = handler;
        this.executor = executor;
        d.onAsyncEvent(e -> {
            if (!(silentQueuePairs && e instanceof AsyncEvent.QueuePairError)) {
                handler.accept(e);
            }
        }, executor);
    }

    @Override
    public void close() {
        d.close();
        closed.countDown();
    }

    @Override
    public String providerName() {
        return d.providerName();
    }

    @Override
    public String name() {
        return d.name();
    }

    @Override
    public InetAddress address() {
        return d.address();
    }

    @Override
    public byte[] gid() {
        return d.gid();
    }

    @Override
    public Set<Capability> capabilities() {
        return d.capabilities();
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        return d.allocateProtectionDomain();
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        return d.createCompletionQueue(capacity);
    }

    @Override
    public ConnectionManager connectionManager() {
        return d.connectionManager();
    }

    @Override
    public DeviceCounters counters() {
        return d.counters();
    }

    @Override
    public int maxPathMtu() {
        return d.maxPathMtu();
    }
}

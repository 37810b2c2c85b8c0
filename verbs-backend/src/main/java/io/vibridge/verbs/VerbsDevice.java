package io.vibridge.verbs;

import java.net.InetAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/** An opened RDMA device (one port). */
public interface VerbsDevice extends AutoCloseable {
    String providerName();

    /** Device name (soft: "soft-&lt;ip&gt;"). */
    String name();

    /** The port's IP address; the GID is its IPv4-mapped IPv6 form. */
    InetAddress address();

    /** The 16-byte GID. */
    byte[] gid();

    Set<Capability> capabilities();

    ProtectionDomain allocateProtectionDomain();

    /** A completion queue holding up to {@code capacity} completions. */
    CompletionQueue createCompletionQueue(int capacity);

    ConnectionManager connectionManager();

    DeviceCounters counters();

    /**
     * The port's largest path MTU in bytes (256..4096): connections opened or accepted on this device use
     * at most this, whatever {@link ConnectParams#pathMtu()} asks. soft: derived from the network
     * interface's MTU at open as rdma_cm/rxe do (1500 -> 1024, loopback -> 4096), option {@code max-mtu}.
     */
    default int maxPathMtu() {
        return 4096;
    }

    /**
     * Provider-specific settings of the opened device for listings ({@code vibridge devices}), name to value in
     * a stable order, e.g. soft's UDP port, interface MTU, UDP offload and idle mode. Empty by default.
     */
    default Map<String, String> properties() {
        return Map.of();
    }

    /**
     * Sets the handler of this device's {@linkplain AsyncEvent asynchronous events}; it runs on {@code executor}, which
     * must hand the task to another thread (the provider may hold internal locks when it raises one). One handler per
     * device; a provider that raises no events (DiSNI binds none) ignores it.
     */
    default void onAsyncEvent(Consumer<AsyncEvent> handler, Executor executor) {
    }

    @Override
    void close();
}

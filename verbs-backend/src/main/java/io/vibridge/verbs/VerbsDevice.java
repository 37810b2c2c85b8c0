package io.vibridge.verbs;

import java.net.InetAddress;
import java.util.Set;

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

    @Override
    void close();
}

package io.vibridge.verbs;

/** Optional features a device may support. */
public enum Capability {
    /**
     * The user may answer inbound RDMA WRITE/READ on a registered address range itself
     * ({@link ProtectionDomain#registerRemoteAccessHandler}); the gateway's cut-through needs it.
     */
    REMOTE_ACCESS_HANDLER
}

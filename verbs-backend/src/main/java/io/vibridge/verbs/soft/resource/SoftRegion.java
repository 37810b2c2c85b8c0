package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.ProtectionDomain;
import java.util.Set;

/**
 * What an R_Key names on a soft device: registered memory or a handler-answered range. Holds the key,
 * the protection domain, the remote access rights and the address range the responder checks
 * (IB-WIRE-REFERENCE §4.3 step 5). The key is registered last, once the subclass is complete, so the
 * receive thread never finds a half-built region.
 */
public abstract sealed class SoftRegion permits SoftMemoryRegion, SoftRemoteAccessRegion {
    private final ProtectionDomain pd;
    private final KeyTable keys;
    private final long address;
    private final long extent;
    private final boolean remoteWrite;
    private final boolean remoteRead;
    private final int key;
    private volatile boolean closed;

    SoftRegion(ProtectionDomain pd, KeyTable keys, long address, long extent, Set<Access> access) {
        this.pd = pd;
        this.keys = keys;
        this.address = address;
        this.extent = extent;
        this.remoteWrite = access.contains(Access.REMOTE_WRITE);
        this.remoteRead = access.contains(Access.REMOTE_READ);
        this.key = keys.register(this);
    }

    public long address() {
        return address;
    }

    public int rkey() {
        return key;
    }

    /** Length of the range in bytes. */
    final long extent() {
        return extent;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public boolean remoteWrite() {
        return remoteWrite && !closed;
    }

    public boolean remoteRead() {
        return remoteRead && !closed;
    }

    /** True if [va, va+len) lies inside the region. */
    public boolean contains(long va, long len) {
        return len >= 0 && va >= address && va - address <= extent - len;
    }

    public void close() {
        if (!closed) {
            closed = true;
            keys.remove(key);
        }
    }
}

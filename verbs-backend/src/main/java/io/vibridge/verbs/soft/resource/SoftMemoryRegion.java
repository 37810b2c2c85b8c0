package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A registered direct buffer: what an L_Key or R_Key names on a soft device. Holds the key, the protection
 * domain, the access rights and the address range the responder checks (IB-WIRE-REFERENCE §4.3 step 5).
 * The key is registered last, once the region is complete, so the receive thread never finds a half-built
 * one.
 */
public final class SoftMemoryRegion implements MemoryRegion {
    private final ProtectionDomain pd;
    private final KeyTable keys;
    private final ByteBuffer buffer;
    private final long address;
    private final Set<Access> access;
    private final boolean localWrite;
    private final boolean remoteWrite;
    private final boolean remoteRead;
    private final int key;
    private volatile boolean closed;

    public SoftMemoryRegion(ProtectionDomain pd, KeyTable keys, ByteBuffer buffer, Set<Access> access) {
        this.pd = pd;
        this.keys = keys;
        this.buffer = buffer.duplicate().clear();
        this.address = MemorySegment.ofBuffer(buffer).address();
        this.access = Set.copyOf(access);
        this.localWrite = access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE);
        this.remoteWrite = access.contains(Access.REMOTE_WRITE);
        this.remoteRead = access.contains(Access.REMOTE_READ);
        this.key = keys.register(this);
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return buffer.capacity();
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public boolean localWrite() {
        return localWrite;
    }

    public boolean remoteWrite() {
        return remoteWrite && !closed;
    }

    public boolean remoteRead() {
        return remoteRead && !closed;
    }

    /** True if [va, va+len) lies inside the region. */
    public boolean contains(long va, long len) {
        return len >= 0 && va >= address && va - address <= buffer.capacity() - len;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            keys.remove(key);
        }
    }
}

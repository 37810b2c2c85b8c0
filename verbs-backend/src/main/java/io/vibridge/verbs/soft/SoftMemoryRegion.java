package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/** A registered direct buffer. */
public final class SoftMemoryRegion implements MemoryRegion {
    private final SoftProtectionDomain pd;
    private final ByteBuffer buffer;
    private final long address;
    private final Set<Access> access;
    private final boolean remoteWrite;
    private final boolean remoteRead;
    private final boolean localWrite;
    private final int key;
    private volatile boolean closed;

    SoftMemoryRegion(SoftProtectionDomain pd, ByteBuffer buffer, Set<Access> access) {
        this.pd = pd;
        this.buffer = buffer.duplicate().clear();
        this.address = MemorySegment.ofBuffer(buffer).address();
        this.access = Set.copyOf(access);
        this.remoteWrite = access.contains(Access.REMOTE_WRITE);
        this.remoteRead = access.contains(Access.REMOTE_READ);
        this.localWrite = access.contains(Access.LOCAL_WRITE) || remoteWrite;
        this.key = pd.device().keys().register(this);
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

    public SoftProtectionDomain pd() {
        return pd;
    }

    public boolean remoteWrite() {
        return remoteWrite && !closed;
    }

    public boolean remoteRead() {
        return remoteRead && !closed;
    }

    public boolean localWrite() {
        return localWrite;
    }

    /** True if [va, va+len) lies inside the region. */
    public boolean contains(long va, long len) {
        return len >= 0 && va >= address && va - address <= buffer.capacity() - len;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            pd.device().keys().remove(key);
        }
    }
}

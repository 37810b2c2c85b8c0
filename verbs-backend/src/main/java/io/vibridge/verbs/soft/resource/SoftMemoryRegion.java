package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/** A registered direct buffer. */
public final class SoftMemoryRegion extends SoftRegion implements MemoryRegion {
    private final ByteBuffer buffer;
    private final Set<Access> access;
    private final boolean localWrite;

    public SoftMemoryRegion(ProtectionDomain pd, KeyTable keys, ByteBuffer buffer, Set<Access> access) {
        this.buffer = buffer.duplicate().clear();
        this.access = Set.copyOf(access);
        this.localWrite = access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE);
        super(pd, keys, MemorySegment.ofBuffer(buffer).address(), buffer.capacity(), access);
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public int length() {
        return buffer.capacity();
    }

    @Override
    public int lkey() {
        return rkey();
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    public boolean localWrite() {
        return localWrite;
    }
}

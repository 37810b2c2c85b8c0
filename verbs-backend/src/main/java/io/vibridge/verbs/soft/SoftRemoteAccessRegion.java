package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.RemoteAccessHandler;
import io.vibridge.verbs.RemoteAccessRegion;
import java.util.Set;

/** A handler-answered region (cut-through): an rkey and an address range, no local memory. */
public final class SoftRemoteAccessRegion implements RemoteAccessRegion {
    private final SoftProtectionDomain pd;
    private final long address;
    private final long length;
    private final boolean remoteWrite;
    private final boolean remoteRead;
    private final RemoteAccessHandler handler;
    private final int key;
    private volatile boolean closed;

    SoftRemoteAccessRegion(SoftProtectionDomain pd, long address, long length, Set<Access> access,
                           RemoteAccessHandler handler) {
        if (length < 0 || address + length < address) {
            throw new IllegalArgumentException("bad address range");
        }
        this.pd = pd;
        this.address = address;
        this.length = length;
        this.remoteWrite = access.contains(Access.REMOTE_WRITE);
        this.remoteRead = access.contains(Access.REMOTE_READ);
        this.handler = handler;
        this.key = pd.device().keys().register(this);
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int rkey() {
        return key;
    }

    public SoftProtectionDomain pd() {
        return pd;
    }

    public RemoteAccessHandler handler() {
        return handler;
    }

    public boolean remoteWrite() {
        return remoteWrite && !closed;
    }

    public boolean remoteRead() {
        return remoteRead && !closed;
    }

    public boolean contains(long va, long len) {
        return len >= 0 && va >= address && va - address <= length - len;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            pd.device().keys().remove(key);
        }
    }
}

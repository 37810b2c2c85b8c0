package io.vibridge.verbs.soft.resource;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.RemoteAccessHandler;
import io.vibridge.verbs.RemoteAccessRegion;
import java.util.Set;

/** A handler-answered region (cut-through): an rkey and an address range, no local memory. */
public final class SoftRemoteAccessRegion extends SoftRegion implements RemoteAccessRegion {
    private final RemoteAccessHandler handler;

    public SoftRemoteAccessRegion(ProtectionDomain pd, KeyTable keys, long address, long length, Set<Access> access,
                           RemoteAccessHandler handler) {
        if (length < 0 || address + length < address) {
            throw new IllegalArgumentException("bad address range");
        }
        this.handler = handler;
        super(pd, keys, address, length, access);
    }

    @Override
    public long length() {
        return extent();
    }

    public RemoteAccessHandler handler() {
        return handler;
    }
}

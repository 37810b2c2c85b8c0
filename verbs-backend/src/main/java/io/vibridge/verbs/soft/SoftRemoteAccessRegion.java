package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.RemoteAccessHandler;
import io.vibridge.verbs.RemoteAccessRegion;
import java.util.Set;

/** A handler-answered region (cut-through): an rkey and an address range, no local memory. */
public final class SoftRemoteAccessRegion extends SoftRegion implements RemoteAccessRegion {
    private final RemoteAccessHandler handler;

    SoftRemoteAccessRegion(SoftProtectionDomain pd, long address, long length, Set<Access> access,
                           RemoteAccessHandler handler) {
        if (length < 0 || address + length < address) {
            throw new IllegalArgumentException("bad address range");
        }
        this.handler = handler;
        super(pd, address, length, access);
    }

    @Override
    public long length() {
        return extent();
    }

    public RemoteAccessHandler handler() {
        return handler;
    }
}

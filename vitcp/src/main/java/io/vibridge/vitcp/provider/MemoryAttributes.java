package io.vibridge.vitcp.provider;

import java.util.Objects;

/** VIP_MEM_ATTRIBUTES (VIA 9.10.6): protection tag and the RDMA enables of a registered region. */
public record MemoryAttributes(ProtectionTag ptag, boolean enableRdmaWrite, boolean enableRdmaRead) {
    public MemoryAttributes {
        Objects.requireNonNull(ptag, "ptag");
    }
}

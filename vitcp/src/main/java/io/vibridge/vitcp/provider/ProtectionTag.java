package io.vibridge.vitcp.provider;

/**
 * A memory protection tag (VIA 3.2.2.1, VipCreatePtag): unique within its NIC; a memory access is
 * allowed only if the VI's tag and the region's tag are the same object.
 */
public final class ProtectionTag {
    private final ViNic nic;
    private final int id;
    volatile boolean destroyed;

    ProtectionTag(ViNic nic, int id) {
        this.nic = nic;
        this.id = id;
    }

    public ViNic nic() {
        return nic;
    }

    public int id() {
        return id;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public String toString() {
        return "Ptag#" + id;
    }
}

package io.vibridge.vitcp.provider;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered memory region (VipRegisterMem): a direct buffer with a 64-bit virtual address (its
 * native address, the RDMA Address on the wire) and a 32-bit memory handle.
 */
public final class MemoryRegion {
    private final ViNic nic;
    private final int handle;
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private volatile MemoryAttributes attributes;
    volatile boolean registered = true;

    MemoryRegion(ViNic nic, int handle, ByteBuffer buffer, MemoryAttributes attributes) {
        this.nic = nic;
        this.handle = handle;
        this.buffer = buffer.duplicate().clear();
        this.address = MemorySegment.ofBuffer(buffer).address();
        this.length = buffer.capacity();
        this.attributes = attributes;
    }

    public ViNic nic() {
        return nic;
    }

    /** The 32-bit memory handle (VIP_MEM_HANDLE). */
    public int handle() {
        return handle;
    }

    /** Virtual address of the first byte. */
    public long address() {
        return address;
    }

    /** Virtual address of byte {@code offset}. */
    public long address(int offset) {
        return address + offset;
    }

    public int length() {
        return length;
    }

    /** VipQueryMem. */
    public MemoryAttributes attributes() {
        return attributes;
    }

    /** VipSetMemAttributes. */
    public void setAttributes(MemoryAttributes a) {
        if (a.ptag().nic() != nic) {
            throw new ViException(ViException.Code.INVALID_PTAG, "protection tag of another NIC");
        }
        this.attributes = a;
    }

    public boolean isRegistered() {
        return registered;
    }

    /** A fresh view of the whole region (position 0, limit = length). */
    public ByteBuffer buffer() {
        return buffer.duplicate().clear();
    }

    boolean contains(long addr, long len) {
        return addr >= address && len >= 0 && addr - address <= length - len;
    }

    ByteBuffer raw() {
        return buffer;
    }

    @Override
    public String toString() {
        return "MemoryRegion[handle=0x" + Integer.toHexString(handle) + ", address=0x" + Long.toHexString(address)
                + ", length=" + length + "]";
    }
}

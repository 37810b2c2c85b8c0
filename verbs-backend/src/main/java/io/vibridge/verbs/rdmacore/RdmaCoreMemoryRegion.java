package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/** An ibv_mr. The keys are read once; {@link #byteSize()} is the registered length (64-bit). */
public final class RdmaCoreMemoryRegion implements MemoryRegion {
    private final RdmaCoreDevice device;
    private final MemorySegment mr;
    private final ByteBuffer buffer;
    private final long address;
    private final long byteSize;
    private final int lkey;
    private final int rkey;
    private final Set<Access> access;
    private boolean closed;

    RdmaCoreMemoryRegion(RdmaCoreDevice device, MemorySegment mr, ByteBuffer buffer, long address, long byteSize,
                         Set<Access> access) {
        this.device = device;
        this.mr = mr;
        this.buffer = buffer;
        this.address = address;
        this.byteSize = byteSize;
        this.lkey = mr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.MR, "lkey"));
        this.rkey = mr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.MR, "rkey"));
        this.access = Set.copyOf(access);
        device.own(this);
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public long address() {
        return address;
    }

    /** The registered length, capped at Integer.MAX_VALUE (see {@link #byteSize()}). */
    @Override
    public int length() {
        return (int) Math.min(byteSize, Integer.MAX_VALUE);
    }

    public long byteSize() {
        return byteSize;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.disown(this);
        try {
            int rc = (int) Ibv.DEREG_MR.invokeExact(mr);
            if (rc != 0) {
                throw new VerbsException("ibv_dereg_mr on " + device.name() + ": " + Ibv.strerror(Math.abs(rc)));
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    @Override
    public String toString() {
        return "rdma-core MR lkey 0x" + Integer.toHexString(lkey) + " of " + device.name();
    }
}

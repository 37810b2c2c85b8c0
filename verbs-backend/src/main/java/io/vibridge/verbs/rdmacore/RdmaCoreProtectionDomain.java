package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/** An ibv_pd; registers direct buffers (ibv_reg_mr, size_t length) and creates RC queue pairs. */
final class RdmaCoreProtectionDomain implements ProtectionDomain {
    private final RdmaCoreDevice device;
    final MemorySegment pd;
    private volatile boolean closed;

    RdmaCoreProtectionDomain(RdmaCoreDevice device) {
        this.device = device;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment p = (MemorySegment) Ibv.ALLOC_PD.invokeExact(errno, device.context);
            if (p.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_alloc_pd(" + device.name() + "): " + Ibv.strerror(Ibv.errno(errno)));
            }
            pd = p.reinterpret(IbvLayouts.PD.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        device.own(this);
        RdmaCoreCheck.pointsTo("ibv_pd.context", pd, 0, device.context);
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer directBuffer, Set<Access> access) {
        if (directBuffer == null || !directBuffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered");
        }
        device.checkOpen();
        MemorySegment whole = MemorySegment.ofBuffer(directBuffer.duplicate().clear());
        return register(whole, directBuffer, access);
    }

    /**
     * Registers native memory of any size (64-bit length) as one region; {@link MemoryRegion#buffer()} is then a
     * view of its first 2 GiB at most, {@link RdmaCoreMemoryRegion#byteSize()} the whole length.
     */
    public MemoryRegion registerMemory(MemorySegment memory, Set<Access> access) {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered");
        }
        device.checkOpen();
        return register(memory, memory.asSlice(0, Math.min(memory.byteSize(), Integer.MAX_VALUE - 8)).asByteBuffer(),
                access);
    }

    private MemoryRegion register(MemorySegment memory, ByteBuffer buffer, Set<Access> access) {
        // verbs: REMOTE_WRITE (and atomics) require LOCAL_WRITE (ibv_reg_mr(3)); READ responses land in our memory
        int flags = 0;
        if (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE)) {
            flags |= 1;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            flags |= 2;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= 4;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment mr = (MemorySegment) Ibv.REG_MR.invokeExact(errno, pd, memory, memory.byteSize(), flags);
            if (mr.equals(MemorySegment.NULL)) {
                int err = Ibv.errno(errno);
                throw new VerbsException("ibv_reg_mr(" + memory.byteSize() + " bytes) on " + device.name() + ": "
                        + Ibv.strerror(err) + (err == 12 || err == 1 ? "; " + Limits.memlockLine() : ""));
            }
            mr = mr.reinterpret(IbvLayouts.MR.byteSize());
            RdmaCoreMemoryRegion region = new RdmaCoreMemoryRegion(device, mr, buffer, memory.address(),
                    memory.byteSize(), access);
            try {
                RdmaCoreCheck.pointsTo("ibv_mr.pd", mr, IbvLayouts.off(IbvLayouts.MR, "pd"), pd);
                RdmaCoreCheck.pointsTo("ibv_mr.addr", mr, IbvLayouts.off(IbvLayouts.MR, "addr"), memory);
                long len = mr.get(JAVA_LONG, IbvLayouts.off(IbvLayouts.MR, "length"));
                if (len != memory.byteSize()) {
                    throw RdmaCoreCheck.mismatch("ibv_mr.length reads " + len + " for " + memory.byteSize());
                }
            } catch (VerbsException e) {
                region.close();
                throw e;
            }
            return region;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    @Override
    public QueuePair createQueuePair(QpInitAttributes attributes) {
        device.checkOpen();
        return new RdmaCoreQueuePair(device, this, attributes);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.disown(this);
        try {
            int rc = (int) Ibv.DEALLOC_PD.invokeExact(pd);
            if (rc != 0) {
                throw new VerbsException("ibv_dealloc_pd on " + device.name() + ": " + Ibv.strerror(Math.abs(rc))
                        + " (memory regions or queue pairs still use it?)");
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    static int lkey(MemorySegment mr) {
        return mr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.MR, "lkey"));
    }
}

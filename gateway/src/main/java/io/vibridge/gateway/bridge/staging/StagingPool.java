package io.vibridge.gateway.bridge.staging;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * The gateway's staging memory: ONE direct buffer registered once with the verbs device (local
 * access only: never remotely reachable), sliced into fixed-size slots, plus a small control area of
 * 256-byte blocks for header-only FlowC 0 credit updates. Connections reserve their slots as a batch
 * when they are set up and give them back when their queue pair has flushed; the free list is an int
 * stack (no allocation). The only lock in the data path is this pool's monitor, taken at connection
 * setup and teardown, never per message.
 */
public final class StagingPool implements AutoCloseable {
    /** Bytes of one control block. */
    public static final int CONTROL_BLOCK = 256;

    private final int slotSize;
    private final int slots;
    private final int controlBlocks;
    private final ByteBuffer buffer;
    private final MemoryRegion region;
    private final int[] free;
    private int freeTop;
    private final int[] freeControl;
    private int freeControlTop;

    public StagingPool(ProtectionDomain pd, int slotSize, int slots, int controlBlocks) {
        this.slotSize = slotSize;
        this.slots = slots;
        this.controlBlocks = controlBlocks;
        long total = (long) slotSize * slots + (long) controlBlocks * CONTROL_BLOCK;
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("staging area too large: " + total);
        }
        buffer = ByteBuffer.allocateDirect((int) total);
        region = pd.registerMemory(buffer, EnumSet.of(Access.LOCAL_WRITE));
        free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        freeTop = slots;
        freeControl = new int[controlBlocks];
        for (int i = 0; i < controlBlocks; i++) {
            freeControl[i] = controlBlocks - 1 - i;
        }
        freeControlTop = controlBlocks;
    }

    public MemoryRegion region() {
        return region;
    }

    /** The registered buffer (absolute access only: its position is never moved). */
    public ByteBuffer buffer() {
        return buffer;
    }

    public int slotSize() {
        return slotSize;
    }

    public int capacity() {
        return slots;
    }

    /** Byte offset of slot {@code slot} in {@link #buffer()} / {@link #region()}. */
    public int offset(int slot) {
        return slot * slotSize;
    }

    /** Byte offset of control block {@code block}. */
    public int controlOffset(int block) {
        return slots * slotSize + block * CONTROL_BLOCK;
    }

    /** Reserves {@code n} slots into {@code out[0..n)}; false (nothing taken) when fewer are free. */
    public synchronized boolean reserve(int n, int[] out) {
        if (freeTop < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            out[i] = free[--freeTop];
        }
        return true;
    }

    /** Gives back {@code n} slots of {@code slots}. */
    public synchronized void release(int[] slotsToFree, int n) {
        for (int i = 0; i < n; i++) {
            free[freeTop++] = slotsToFree[i];
        }
    }

    /** A control block, or -1 when none is free. */
    public synchronized int reserveControl() {
        return freeControlTop == 0 ? -1 : freeControl[--freeControlTop];
    }

    public synchronized void releaseControl(int block) {
        if (block >= 0) {
            freeControl[freeControlTop++] = block;
        }
    }

    /** Slots currently reserved by connections. */
    public synchronized int inUse() {
        return slots - freeTop;
    }

    @Override
    public void close() {
        region.close();
    }
}

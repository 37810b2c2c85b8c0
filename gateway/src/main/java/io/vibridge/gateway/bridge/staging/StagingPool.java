package io.vibridge.gateway.bridge.staging;

import io.vibridge.gateway.config.MemoryLimits;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's staging memory: fixed-size slots carved from chunks, each chunk ONE direct buffer
 * registered once with the verbs device when it is created (local access only: never remotely
 * reachable). The pool starts empty and grows on demand, one chunk of {@code chunkSlots} slots at a
 * time, up to {@code maxSlots}; slots are handed out from all chunks. Chunks are kept until the
 * gateway stops (no re-registration churn when load comes and goes; the high-water mark is what the
 * {@code vibridge_staging_slots_allocated} gauge shows). Beside the slots, a small control area of
 * 256-byte blocks for header-only FlowC 0 credit updates, one block per connection, allocated at start.
 *
 * <p>Connections reserve their slots as a batch when they are set up and give them back when their
 * queue pair has flushed; the free list is an int stack (no allocation). The only lock in the data
 * path is this pool's monitor, taken at connection setup and teardown, never per message.
 *
 * <p>A slot id names its chunk ({@code id / chunkSlots}); {@link #buffer(int)}, {@link #region(int)}
 * and {@link #offset(int)} locate it.
 *
 * <p>Chunks are direct memory ({@link DirectMemory}). A chunk the JVM refuses (its direct memory limit reached)
 * is a refusal of the connection asking, counted in {@link #allocationFailures()}, never an error thrown at it.
 */
public final class StagingPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StagingPool.class);
    /** Bytes of one control block. */
    public static final int CONTROL_BLOCK = 256;

    private final ProtectionDomain pd;
    private final DirectMemory memory;
    private final int slotSize;
    private final int maxSlots;
    private final int chunkSlots;
    private final ByteBuffer[] buffers;
    private final MemoryRegion[] regions;
    private int chunks;
    private int allocated;
    private final int[] free;
    private int freeTop;
    private final ByteBuffer controlBuffer;
    private final MemoryRegion controlRegion;
    private final int[] freeControl;
    private int freeControlTop;
    private long allocationFailures;
    /** The last chunk asked for was refused (one warning per run of refusals). */
    private boolean refusing;

    /** A pool whose chunks may take the JVM's direct memory up to its limit. */
    public StagingPool(ProtectionDomain pd, int slotSize, int maxSlots, int chunkSlots, int controlBlocks) {
        this(pd, slotSize, maxSlots, chunkSlots, controlBlocks,
                new DirectMemory(MemoryLimits.ofThisJvm().maxDirect()));
    }

    /**
     * @param slotSize bytes per slot
     * @param maxSlots most slots the pool ever holds
     * @param chunkSlots slots per chunk (one registered buffer each; at most 2 GiB)
     * @param controlBlocks credit-update control blocks (one per connection at most)
     * @param memory where the chunks come from
     */
    public StagingPool(ProtectionDomain pd, int slotSize, int maxSlots, int chunkSlots, int controlBlocks,
            DirectMemory memory) {
        if (slotSize <= 0 || maxSlots <= 0 || chunkSlots <= 0 || controlBlocks < 0) {
            throw new IllegalArgumentException("staging sizes must be positive");
        }
        if ((long) slotSize * chunkSlots > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("staging chunk too large: " + (long) slotSize * chunkSlots);
        }
        this.pd = pd;
        this.memory = memory;
        this.slotSize = slotSize;
        this.maxSlots = maxSlots;
        this.chunkSlots = Math.min(chunkSlots, maxSlots);
        int maxChunks = (maxSlots + this.chunkSlots - 1) / this.chunkSlots;
        this.buffers = new ByteBuffer[maxChunks];
        this.regions = new MemoryRegion[maxChunks];
        this.free = new int[maxSlots];
        controlBuffer = ByteBuffer.allocateDirect(Math.max(1, controlBlocks) * CONTROL_BLOCK);
        controlRegion = pd.registerMemory(controlBuffer, EnumSet.of(Access.LOCAL_WRITE));
        freeControl = new int[controlBlocks];
        for (int i = 0; i < controlBlocks; i++) {
            freeControl[i] = controlBlocks - 1 - i;
        }
        freeControlTop = controlBlocks;
    }

    /** The registered region holding {@code slot}. */
    public MemoryRegion region(int slot) {
        return regions[slot / chunkSlots];
    }

    /** The registered buffer holding {@code slot} (absolute access only: its position is never moved). */
    public ByteBuffer buffer(int slot) {
        return buffers[slot / chunkSlots];
    }

    /** Byte offset of {@code slot} in {@link #buffer(int)} / {@link #region(int)}. */
    public int offset(int slot) {
        return (slot % chunkSlots) * slotSize;
    }

    public int slotSize() {
        return slotSize;
    }

    /** The most slots the pool may hold (staging.max-slots). */
    public int capacity() {
        return maxSlots;
    }

    /** Slots per chunk. */
    public int chunkSlots() {
        return chunkSlots;
    }

    /** Slots in the chunks created so far (the memory actually allocated and registered). */
    public synchronized int allocated() {
        return allocated;
    }

    /** Chunks created so far. */
    public synchronized int chunks() {
        return chunks;
    }

    /** The control area (credit-update headers). */
    public MemoryRegion controlRegion() {
        return controlRegion;
    }

    public ByteBuffer controlBuffer() {
        return controlBuffer;
    }

    /** Byte offset of control block {@code block} in {@link #controlBuffer()}. */
    public int controlOffset(int block) {
        return block * CONTROL_BLOCK;
    }

    /** Chunks the JVM refused for want of direct memory since start. */
    public synchronized long allocationFailures() {
        return allocationFailures;
    }

    /**
     * Reserves {@code n} slots into {@code out[0..n)}, creating chunks if needed (up to the maximum);
     * false (nothing taken) when they cannot be had: the pool is at its maximum or the JVM refused a chunk.
     *
     * @throws RuntimeException from the verbs device if registering a new chunk fails (nothing taken)
     */
    public synchronized boolean reserve(int n, int[] out) {
        while (freeTop < n && chunks < buffers.length) {
            if (!addChunk()) {
                return false;
            }
        }
        if (freeTop < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            out[i] = free[--freeTop];
        }
        return true;
    }

    private boolean addChunk() {
        int first = chunks * chunkSlots;
        int count = Math.min(chunkSlots, maxSlots - first);
        ByteBuffer b = memory.allocate(count * slotSize);
        if (b == null) {
            allocationFailures++;
            if (!refusing) {
                log.warn("staging: the JVM refused a chunk of {} bytes (direct buffers in use {} MiB, limit {} MiB): "
                        + "connections that need more staging are refused (Connect Reject IS 14) until some is free; "
                        + "staging holds {} of at most {} slots (staging.max-slots)", count * slotSize,
                        memory.used() >> 20, memory.limit() >> 20, allocated, maxSlots);
                refusing = true;
            }
            return false;
        }
        refusing = false;
        MemoryRegion r = pd.registerMemory(b, EnumSet.of(Access.LOCAL_WRITE));
        buffers[chunks] = b;
        regions[chunks] = r;
        chunks++;
        allocated += count;
        for (int i = count - 1; i >= 0; i--) {
            free[freeTop++] = first + i;
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
        return allocated - freeTop;
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < chunks; i++) {
            regions[i].close();
        }
        controlRegion.close();
    }
}

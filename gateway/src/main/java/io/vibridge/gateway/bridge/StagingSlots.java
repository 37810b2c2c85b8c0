package io.vibridge.gateway.bridge;

import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.verbs.MemoryRegion;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One connection's staging slots (DESIGN "Operation mapping"), as a struct of arrays indexed by the
 * local slot number: slots {@code 0..R-1} hold the target's SENDs (one InfiniBand receive each),
 * slots {@code R..R+C-1} hold the client's messages (a Send, an RDMA Write payload or RDMA Read data,
 * one message per slot). Every slot keeps {@link #HEADROOM} bytes in front of its payload for the
 * FlowC 0 header (CM-MAPPING §4), so a client Send goes to the target from where it landed.
 *
 * <p>Client slots cycle through: free stack -> admitted ({@link #admit}) -> taken by the engine's
 * callback ({@link #takeAdmitted}) -> the client-to-target FIFO ({@link #enqueue}) -> posted -> free.
 * RDMA Read slots also sit in the read FIFO until their Read Response went to the client. Rings and
 * stacks are int arrays sized to the slot count: nothing is allocated per message.
 *
 * <p>A front end writes a client slot only through the typed methods ({@link #beginSend},
 * {@link #beginWrite}, {@link #beginRead}, {@link #place}, {@link #append}, {@link #ended}); the fields stay the
 * bridge's own (the {@link TargetSide} posts from them).
 */
public final class StagingSlots {
    /** Room for the FlowC 0 header in front of every slot's payload (CM-MAPPING §4). */
    public static final int HEADROOM = FlowControlHeader.LENGTH;

    /** What a client slot holds (NONE while free). */
    public enum Op { NONE, SEND, WRITE, READ }

    private final StagingPool pool;
    private final int[] poolSlots;
    final int recvSlots;
    public final int clientSlots;
    /** The FlowC 0 control block (credit-update headers), or -1. */
    final int controlBlock;

    final Op[] op;
    final int[] len;
    final int[] imm;
    final boolean[] hasImm;
    /** SEND slots: the Solicited Event bit; with Invalidate, the R_Key to invalidate in {@link #rkey}. */
    final boolean[] solicited;
    final boolean[] invalidates;
    final long[] raddr;
    final int[] rkey;
    final int[] msgNo;
    final long[] placed;
    /** InfiniBand work requests of the slot still outstanding (an RDMA Write with immediate posts two). */
    final int[] pendingWr;
    /** RDMA Read slots: the InfiniBand READ completed, the Read Response may go out. */
    final boolean[] readReady;
    /** A view of the whole slot, reused for every message in it (positions set per use). */
    final ByteBuffer[] views;
    final ByteBuffer[] buffer;
    final MemoryRegion[] region;
    /** Offset of the slot (its headroom) in {@link #buffer}. */
    final int[] base;

    private final int[] freeStack;
    private int freeTop;
    private int admitted = -1;
    private final int[] fifo;
    private int fifoHead;
    private int fifoCount;
    private final int[] readFifo;
    private int readHead;
    private int readCount;

    private StagingSlots(StagingPool pool, int[] poolSlots, int recvSlots, int controlBlock) {
        this.pool = pool;
        this.poolSlots = poolSlots;
        this.recvSlots = recvSlots;
        int per = poolSlots.length;
        this.clientSlots = per - recvSlots;
        this.controlBlock = controlBlock;
        op = new Op[per];
        Arrays.fill(op, Op.NONE);
        len = new int[per];
        imm = new int[per];
        hasImm = new boolean[per];
        solicited = new boolean[per];
        invalidates = new boolean[per];
        raddr = new long[per];
        rkey = new int[per];
        msgNo = new int[per];
        placed = new long[per];
        pendingWr = new int[per];
        readReady = new boolean[per];
        views = new ByteBuffer[per];
        buffer = new ByteBuffer[per];
        region = new MemoryRegion[per];
        base = new int[per];
        for (int l = 0; l < per; l++) {
            // the slots may lie in different chunks of the pool (each its own registered buffer)
            buffer[l] = pool.buffer(poolSlots[l]);
            region[l] = pool.region(poolSlots[l]);
            base[l] = pool.offset(poolSlots[l]);
            views[l] = buffer[l].slice(base[l], pool.slotSize());
        }
        freeStack = new int[clientSlots];
        for (int i = 0; i < clientSlots; i++) {
            freeStack[i] = per - 1 - i;
        }
        freeTop = clientSlots;
        fifo = new int[per];
        readFifo = new int[per];
    }

    /**
     * Reserves {@code total} slots of the pool, {@code recvSlots} of them for target SENDs, plus a
     * control block when {@code control}; null when the pool is exhausted (nothing is held then).
     */
    public static StagingSlots reserve(StagingPool pool, int total, int recvSlots, boolean control) {
        if (recvSlots < 0 || recvSlots > total) {
            throw new IllegalArgumentException("receive slots " + recvSlots + " of " + total);
        }
        int[] got = new int[total];
        if (!pool.reserve(total, got)) {
            return null;
        }
        int block = -1;
        if (control) {
            block = pool.reserveControl();
            if (block < 0) {
                pool.release(got, total);
                return null;
            }
        }
        return new StagingSlots(pool, got, recvSlots, block);
    }

    /** Returns every slot and the control block to the pool (once the queue pair flushed). */
    void release() {
        pool.release(poolSlots, poolSlots.length);
        pool.releaseControl(controlBlock);
    }

    /** Slots in all: the target's receive slots first, then the client's. */
    public int slotCount() {
        return poolSlots.length;
    }

    int slotSize() {
        return pool.slotSize();
    }

    /** Bytes of payload a slot takes (its size less the FlowC 0 headroom). */
    public int payloadCapacity() {
        return pool.slotSize() - HEADROOM;
    }

    public long reservedBytes() {
        return (long) poolSlots.length * pool.slotSize();
    }

    public long bufferedBytes() {
        return (long) (clientSlots - freeTop) * pool.slotSize();
    }

    // ---------------------------------------------------------------------------- a client message

    /** Slot {@code l} takes a client Send (VI message number {@code msgNo}; 0 where there is none). */
    public void beginSend(int l, int msgNo) {
        begin(l, Op.SEND, msgNo, 0, 0, 0);
    }

    /** Slot {@code l} takes a client RDMA Write of {@code length} bytes to the target's {@code raddr}/{@code rkey}. */
    public void beginWrite(int l, int msgNo, long raddr, int rkey, int length) {
        begin(l, Op.WRITE, msgNo, raddr, rkey, length);
    }

    /**
     * Slot {@code l} takes a client RDMA Read of {@code length} bytes of the target's {@code raddr}/{@code rkey};
     * it joins the read FIFO, in the order its Read Response must go out.
     */
    public void beginRead(int l, int msgNo, long raddr, int rkey, int length) {
        begin(l, Op.READ, msgNo, raddr, rkey, length);
        readReady[l] = false;
        pushRead(l);
    }

    private void begin(int l, Op o, int number, long address, int key, int length) {
        op[l] = o;
        msgNo[l] = number;
        raddr[l] = address;
        rkey[l] = key;
        len[l] = length;
        placed[l] = 0;
        hasImm[l] = false;
        solicited[l] = false;
        invalidates[l] = false;
        imm[l] = 0;
        pendingWr[l] = 0;
    }

    /** Copies {@code n} bytes of {@code src} from {@code srcOff} into slot {@code l}'s payload at {@code at}. */
    public void place(int l, int at, ByteBuffer src, int srcOff, int n) {
        if (n > 0) {
            buffer[l].put(base[l] + HEADROOM + at, src, srcOff, n);
            placed[l] += n;
        }
    }

    /** Copies {@code n} bytes of {@code src} from {@code srcOff} after the slot's message so far, which grows by them. */
    public void append(int l, ByteBuffer src, int srcOff, int n) {
        place(l, len[l], src, srcOff, n);
        len[l] += n;
    }

    /** The message in slot {@code l} is whole: {@code length} bytes, with immediate data or not. */
    public void ended(int l, int length, boolean hasImmediate, int immediate) {
        len[l] = length;
        hasImm[l] = hasImmediate;
        imm[l] = immediate;
    }

    /**
     * The Send in slot {@code l} is whole: {@code length} bytes, with the Solicited Event bit or not, and with
     * {@code invalidates} a Send with Invalidate of the target's {@code invalidateKey} (an iWARP client's STag,
     * passed through as the R_Key like a tagged operation's).
     */
    public void endedSend(int l, int length, boolean solicitedEvent, boolean invalidate, int invalidateKey) {
        ended(l, length, false, 0);
        solicited[l] = solicitedEvent;
        invalidates[l] = invalidate;
        rkey[l] = invalidateKey;
    }

    public Op op(int l) {
        return op[l];
    }

    public int length(int l) {
        return len[l];
    }

    public long remoteAddress(int l) {
        return raddr[l];
    }

    public int remoteKey(int l) {
        return rkey[l];
    }

    public int messageNumber(int l) {
        return msgNo[l];
    }

    /** Whether the InfiniBand READ of read slot {@code l} completed (its Read Response may go out). */
    public boolean readReady(int l) {
        return readReady[l];
    }

    /** A view of slot {@code l}, reused for every message in it: the caller sets position and limit. */
    public ByteBuffer view(int l) {
        return views[l];
    }

    /** The buffer slot {@code l} lies in, and the offset of its payload there ({@link #payloadOffset}). */
    public ByteBuffer buffer(int l) {
        return buffer[l];
    }

    /** Where slot {@code l} (its headroom first) starts in {@link #buffer}. */
    public int slotOffset(int l) {
        return base[l];
    }

    public int payloadOffset(int l) {
        return base[l] + HEADROOM;
    }

    // ---------------------------------------------------------------------------- client slots

    /** Whether a message was admitted and its slot not taken yet. */
    boolean hasAdmitted() {
        return admitted >= 0;
    }

    /** Admits one new client message into a free slot; false when none is free (backpressure). */
    public boolean admit() {
        if (admitted >= 0) {
            return true;
        }
        if (freeTop == 0) {
            return false;
        }
        admitted = freeStack[--freeTop];
        return true;
    }

    /** The admitted slot, now owned by its message; -1 if none was admitted. */
    public int takeAdmitted() {
        int l = admitted;
        admitted = -1;
        return l;
    }

    /** Returns a client slot to the free stack; true when it held a message that consumed a VI credit. */
    public boolean free(int l) {
        boolean credit = op[l] == Op.SEND || (op[l] == Op.WRITE && hasImm[l]);
        op[l] = Op.NONE;
        freeStack[freeTop++] = l;
        return credit;
    }

    int freeClientSlots() {
        return freeTop;
    }

    /**
     * No client slot holds a message: none staged, posted or waiting for its Read Response. An admitted slot not
     * taken yet counts as free: it was reserved for a message that never began (a connection may end between the
     * two), and the drain must not wait for it.
     */
    public boolean clientSlotsIdle() {
        return freeTop + (admitted >= 0 ? 1 : 0) == clientSlots && fifoCount == 0;
    }

    // ---------------------------------------------------------------------------- client -> target FIFO

    void enqueue(int l) {
        fifo[(fifoHead + fifoCount) % fifo.length] = l;
        fifoCount++;
    }

    /** The oldest staged message, or -1. */
    int head() {
        return fifoCount == 0 ? -1 : fifo[fifoHead];
    }

    void dequeue() {
        fifoHead = (fifoHead + 1) % fifo.length;
        fifoCount--;
    }

    int staged() {
        return fifoCount;
    }

    // ---------------------------------------------------------------------------- RDMA Read order

    /** An RDMA Read Request's slot, in the order the Read Responses must go out (VITCP-PROFILE §9.5). */
    void pushRead(int l) {
        readFifo[(readHead + readCount) % readFifo.length] = l;
        readCount++;
    }

    /** The slot of the oldest Read Response still owed. */
    public int oldestRead() {
        return readFifo[readHead];
    }

    public int popRead() {
        int l = readFifo[readHead];
        readHead = (readHead + 1) % readFifo.length;
        readCount--;
        return l;
    }

    public int reads() {
        return readCount;
    }

    @Override
    public String toString() {
        return "freeSlots=" + freeTop + "/" + clientSlots + " fifo=" + fifoCount + " reads=" + readCount;
    }
}

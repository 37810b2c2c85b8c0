package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.OrderingHint;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A VI descriptor (VIA 6.1, 9.10.2, 10.2): a control segment (control field, immediate data, length,
 * status), an address segment for RDMA operations, and data segments (scatter/gather list of local
 * registered memory, at least 252). Reusable: post, wait for completion, post again.
 *
 * <p>Status bits and completed-operation codes are those of VIA 10.2 ({@link Status}). Control bits 4
 * and 5 are seed 002's un-ordered and half-ordered hints of transmit descriptors.
 */
public final class Descriptor {

    /** Control field bits (VIA 9.10.2 VIP_CONTROL_*). */
    public static final int CONTROL_OP_SENDRECV = 0x0000;
    public static final int CONTROL_OP_RDMAWRITE = 0x0001;
    public static final int CONTROL_OP_RDMA_READ = 0x0002;
    public static final int CONTROL_OP_MASK = 0x0003;
    public static final int CONTROL_IMMEDIATE = 0x0004;
    public static final int CONTROL_QFENCE = 0x0008;
    /**
     * Seed 002 "un-ordered" hint (transmit descriptors): may be reordered with other unordered and
     * preceding half-ordered operations; the provider may ignore it.
     */
    public static final int CONTROL_UNORDERED = 0x0010;
    /**
     * Seed 002 "half-ordered" hint (transmit descriptors): completes at the remote side after all preceding
     * operations, but a following unordered operation may pass it.
     */
    public static final int CONTROL_HALF_ORDERED = 0x0020;
    /** Seed 002: "More than one of the fence bit, un-ordered bit, and half-ordered bit should never be set". */
    public static final int CONTROL_ORDERING_MASK = CONTROL_QFENCE | CONTROL_UNORDERED | CONTROL_HALF_ORDERED;
    public static final int CONTROL_RESERVED_MASK = 0xFFC0;

    private int control;
    private int immediateData;
    private long length = -1;
    private volatile int status;
    private long remoteAddress;
    private int remoteHandle;
    private int segCount;
    private long[] segAddr = new long[4];
    private int[] segHandle = new int[4];
    private int[] segLen = new int[4];

    // resolved at post time
    private MemoryRegion[] segRegion = new MemoryRegion[4];
    private int[] segOff = new int[4]; // offset of each data segment in its region
    private ViewRing[] rings = new ViewRing[4]; // reusable gather views per data segment, made on first use
    private long[] segStart = new long[4];
    private long total;
    private long transferred;
    private int cursor;
    Vi owner;
    boolean onRecvQueue;
    final Work work = new Work();

    private Descriptor(int control) {
        this.control = control;
    }

    /** A Send descriptor (posted to the send queue). */
    public static Descriptor send() {
        return new Descriptor(CONTROL_OP_SENDRECV);
    }

    /** A Receive descriptor (posted to the receive queue). */
    public static Descriptor receive() {
        return new Descriptor(CONTROL_OP_SENDRECV);
    }

    /** An RDMA Write to the peer's registered memory (address segment = remote address and handle). */
    public static Descriptor rdmaWrite(long remoteAddress, int remoteHandle) {
        Descriptor d = new Descriptor(CONTROL_OP_RDMAWRITE);
        d.remoteAddress = remoteAddress;
        d.remoteHandle = remoteHandle;
        return d;
    }

    /** An RDMA Read from the peer's registered memory into the local scatter list. */
    public static Descriptor rdmaRead(long remoteAddress, int remoteHandle) {
        Descriptor d = new Descriptor(CONTROL_OP_RDMA_READ);
        d.remoteAddress = remoteAddress;
        d.remoteHandle = remoteHandle;
        return d;
    }

    /** Appends a data segment: {@code length} bytes at {@code address} of region {@code handle}. */
    public Descriptor data(long address, int handle, int length) {
        if (segCount == segAddr.length) {
            int n = segCount * 2;
            segAddr = Arrays.copyOf(segAddr, n);
            segHandle = Arrays.copyOf(segHandle, n);
            segLen = Arrays.copyOf(segLen, n);
            segRegion = Arrays.copyOf(segRegion, n);
            segOff = Arrays.copyOf(segOff, n);
            rings = Arrays.copyOf(rings, n);
            segStart = Arrays.copyOf(segStart, n);
        }
        segAddr[segCount] = address;
        segHandle[segCount] = handle;
        segLen[segCount] = length;
        segCount++;
        return this;
    }

    /** Appends a data segment within a registered region. */
    public Descriptor data(MemoryRegion region, int offset, int length) {
        return data(region.address(offset), region.handle(), length);
    }

    /** Removes all data segments. */
    public Descriptor clearData() {
        segCount = 0;
        Arrays.fill(segRegion, null);
        return this;
    }

    /** Sets Immediate Data and the Immediate Data Indication bit. */
    public Descriptor immediate(int value) {
        immediateData = value;
        control |= CONTROL_IMMEDIATE;
        return this;
    }

    /** Sets the Queue Fence bit (VIA 6.3.1.2). */
    public Descriptor fence() {
        control |= CONTROL_QFENCE;
        return this;
    }

    /**
     * Sets the seed-002 un-ordered bit. Posting it together with the fence or half-ordered bit is a format
     * error; on a receive descriptor it is ignored.
     */
    public Descriptor unordered() {
        control |= CONTROL_UNORDERED;
        return this;
    }

    /**
     * Sets the seed-002 half-ordered bit. Posting it together with the fence or un-ordered bit is a format
     * error; on a receive descriptor it is ignored.
     */
    public Descriptor halfOrdered() {
        control |= CONTROL_HALF_ORDERED;
        return this;
    }

    /** Sets the raw control field (VIA 10.2); reserved bits make the descriptor fail with a format error. */
    public Descriptor control(int controlField) {
        control = controlField;
        return this;
    }

    /** Sets the length field explicitly; by default it is the sum of the data segment lengths. */
    public Descriptor length(long len) {
        length = len;
        return this;
    }

    /** Sets the address segment. */
    public Descriptor remote(long address, int handle) {
        remoteAddress = address;
        remoteHandle = handle;
        return this;
    }

    public int control() {
        return control;
    }

    public int operation() {
        return control & CONTROL_OP_MASK;
    }

    public boolean hasImmediate() {
        return (control & CONTROL_IMMEDIATE) != 0;
    }

    /** The seed-002 hint of the control field (bits 5:4); {@link OrderingHint#ORDERED} when neither is set. */
    public OrderingHint orderingHint() {
        if ((control & CONTROL_UNORDERED) != 0) {
            return OrderingHint.UNORDERED;
        }
        return (control & CONTROL_HALF_ORDERED) != 0 ? OrderingHint.HALF_ORDERED : OrderingHint.ORDERED;
    }

    /** Immediate Data: what to send, or, on a completed receive with the IMMEDIATE status flag, what arrived. */
    public int immediateData() {
        return immediateData;
    }

    /** Length field: after completion, the bytes transferred (VIA 10.2). */
    public long length() {
        if (isDone()) {
            return transferred;
        }
        return length >= 0 ? length : sumOfSegments();
    }

    /** Status field (VIA 10.2); 0 while pending. */
    public int status() {
        return status;
    }

    public boolean isDone() {
        return (status & Status.DONE) != 0;
    }

    /** True when done with any error bit (VIP_STATUS_ERROR_MASK). */
    public boolean isError() {
        return (status & Status.ERROR_MASK) != 0;
    }

    /** Completed-operation code bits (VIA 10.2 bits 18:16). */
    public int completedOperation() {
        return status & Status.OP_MASK;
    }

    public int segmentCount() {
        return segCount;
    }

    /** Data segment {@code i}: local virtual address. */
    public long segmentAddress(int i) {
        return segAddr[i];
    }

    /** Data segment {@code i}: memory handle. */
    public int segmentHandle(int i) {
        return segHandle[i];
    }

    /** Data segment {@code i}: length. */
    public int segmentLength(int i) {
        return segLen[i];
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int remoteHandle() {
        return remoteHandle;
    }

    private long sumOfSegments() {
        long t = 0;
        for (int i = 0; i < segCount; i++) {
            t += segLen[i];
        }
        return t;
    }

    // ---------------------------------------------------------------- provider side

    /** Local checks at post time (VIA 10.2): returns the error status bits, or 0. */
    int prepare(Vi vi, boolean recvQueue, int maxSegments, long mtu) {
        status = 0;
        transferred = 0;
        cursor = 0;
        if ((control & CONTROL_RESERVED_MASK) != 0 || (control & CONTROL_OP_MASK) == 3) {
            return Status.FORMAT_ERROR;
        }
        if (recvQueue && (control & CONTROL_OP_MASK) != CONTROL_OP_SENDRECV) {
            return Status.FORMAT_ERROR;
        }
        // seed 002: at most one of fence, un-ordered and half-ordered on a transmit descriptor ("should never
        // be set": a format error, VIA 10.2). The seed defines the hints for transmit descriptors only, so a
        // receive ignores them as it ignores the fence and, while pending, the immediate bit (VIA 10.2)
        if (!recvQueue && Integer.bitCount(control & CONTROL_ORDERING_MASK) > 1) {
            return Status.FORMAT_ERROR;
        }
        if (segCount > maxSegments) {
            return Status.FORMAT_ERROR;
        }
        if (!recvQueue && operation() == CONTROL_OP_RDMA_READ
                && vi.attributes().reliabilityLevel() == ReliabilityLevel.UNRELIABLE_DELIVERY) {
            return Status.FORMAT_ERROR; // VIA 2.5.1: RDMA Read on an Unreliable VI is a format error
        }
        long t = 0;
        for (int i = 0; i < segCount; i++) {
            MemoryRegion r = vi.nic().region(segHandle[i]);
            if (r == null || !r.contains(segAddr[i], segLen[i]) || r.attributes().ptag() != vi.attributes().ptag()) {
                return Status.PROTECTION_ERROR; // VIA 10.2 Local Protection Error
            }
            segStart[i] = t;
            segRegion[i] = r;
            segOff[i] = (int) (segAddr[i] - r.address());
            if (rings[i] != null) {
                rings[i].reset(); // the previous post of this descriptor completed: its views are free
            }
            t += segLen[i];
        }
        total = t;
        if (!recvQueue && (t > mtu || (length >= 0 && length != t))) {
            return Status.LENGTH_ERROR;
        }
        return 0;
    }

    void complete(int statusBits, long transferredBytes, int immediate) {
        transferred = transferredBytes;
        length = -1;
        total = transferredBytes;
        if ((statusBits & Status.IMMEDIATE) != 0) {
            immediateData = immediate;
        }
        status = statusBits; // VIA 6.4.1: status last
    }

    /** Bytes transferred by the completed operation (the length field after completion). */
    public long transferred() {
        return transferred;
    }

    /** The engine's view of this descriptor. */
    final class Work implements OutboundWork, InboundReceive {
        private int messageNumber;

        @Override
        public int operation() {
            return control & CONTROL_OP_MASK;
        }

        @Override
        public boolean hasImmediate() {
            return (control & CONTROL_IMMEDIATE) != 0;
        }

        @Override
        public int immediateData() {
            return immediateData;
        }

        @Override
        public boolean queueFence() {
            return (control & CONTROL_QFENCE) != 0;
        }

        @Override
        public OrderingHint orderingHint() {
            return Descriptor.this.orderingHint();
        }

        @Override
        public long length() {
            return total;
        }

        @Override
        public long remoteAddress() {
            return remoteAddress;
        }

        @Override
        public int remoteHandle() {
            return remoteHandle;
        }

        @Override
        public int gather(long offset, int len, ByteBuffer[] out, int index) {
            int n = 0;
            long end = offset + len;
            int i = findSegment(offset);
            while (offset < end && i < segCount) {
                long s = segStart[i];
                long e = s + segLen[i];
                if (e > offset) {
                    // a view per piece and segment (segments of one message may be written in one batch),
                    // reused from the piece's ring: nothing allocated per segment
                    int from = (int) (offset - s);
                    ViewRing ring = rings[i];
                    if (ring == null) {
                        ring = rings[i] = new ViewRing();
                    }
                    out[index + n++] = ring.view(segRegion[i].raw(), segOff[i] + from,
                            (int) (Math.min(e, end) - s) - from);
                    offset = Math.min(e, end);
                }
                i++;
            }
            return n;
        }

        private int findSegment(long offset) {
            int i = cursor;
            if (i >= segCount || segStart[i] > offset) {
                i = 0;
            }
            while (i < segCount - 1 && segStart[i] + segLen[i] <= offset) {
                i++;
            }
            cursor = i;
            return i;
        }

        @Override
        public void scatter(long offset, ByteBuffer src) {
            place(offset, src);
        }

        @Override
        public long capacity() {
            return total;
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            int remaining = src.remaining();
            int from = src.position();
            int i = findSegment(offset);
            while (remaining > 0 && i < segCount) {
                long s = segStart[i];
                long e = s + segLen[i];
                if (e > offset) {
                    int n = (int) Math.min(remaining, e - offset);
                    segRegion[i].raw().put(segOff[i] + (int) (offset - s), src, from, n);
                    from += n;
                    remaining -= n;
                    offset += n;
                }
                i++;
            }
        }

        @Override
        public void messageNumber(int number) {
            messageNumber = number;
        }

        @Override
        public int messageNumber() {
            return messageNumber;
        }

        Descriptor descriptor() {
            return Descriptor.this;
        }
    }
}

package io.vibridge.vitcp.engine;

import java.nio.ByteBuffer;

/**
 * One outbound operation handed to a {@link ViConnection}: a Send, an RDMA Write or an RDMA Read
 * (VIA 6.1: a send-queue descriptor). The provider implements it with its descriptors, the gateway
 * with its staging buffers. The engine never copies payload: it asks for views of local memory.
 */
public interface OutboundWork {

    /** Operation codes (VIA 10.2 control field bits 1:0). */
    int OP_SEND = 0;
    int OP_RDMA_WRITE = 1;
    int OP_RDMA_READ = 2;

    int operation();

    boolean hasImmediate();

    int immediateData();

    /** VIA 6.3.1.2: do not start before all earlier RDMA Reads of this queue completed. */
    boolean queueFence();

    /**
     * Seed 002: the descriptor's un-ordered / half-ordered hint. The engine sends an {@link OrderingHint#UNORDERED}
     * work with the unordered type (Send Unordered, RDMA Write Unordered, RDMA Read Request Unordered) only
     * when the peer set attribute bit 6 and no fully ordered message it sent is unacknowledged; otherwise,
     * and for the other hints, with the ordered type. Implementers that know no hints keep the default.
     */
    default OrderingHint orderingHint() {
        return OrderingHint.ORDERED;
    }

    /** Total bytes of the message (Send/Write: gathered; Read: to fetch). */
    long length();

    long remoteAddress();

    int remoteHandle();

    /**
     * Appends views of local bytes {@code [offset, offset + length)} to {@code out} from index
     * {@code index}; returns the number of buffers appended. The views stay valid until the work
     * completes; the engine writes them out before asking for the next range.
     */
    int gather(long offset, int length, ByteBuffer[] out, int index);

    /** RDMA Read: places response bytes (all of {@code src}) at {@code offset} of the local scatter list. */
    void scatter(long offset, ByteBuffer src);

    /** Engine bookkeeping: the message number this work was sent with. */
    void messageNumber(int number);

    int messageNumber();
}

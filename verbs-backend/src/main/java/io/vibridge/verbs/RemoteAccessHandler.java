package io.vibridge.verbs;

import java.nio.ByteBuffer;

/**
 * Answers remote access to a region with no local memory ({@link Capability#REMOTE_ACCESS_HANDLER}).
 * Called on the provider's receive thread: return quickly, never block.
 */
public interface RemoteAccessHandler {
    /**
     * One inbound RDMA WRITE packet. {@code payload} is only valid during the call (copy it).
     *
     * @param va       the address this segment is written to
     * @param first    first packet of the WRITE message
     * @param last     last packet of the WRITE message
     * @param hasImm   the message carries immediate data (only meaningful when {@code last}); the
     *                 immediate is also delivered as a receive completion on the QP
     * @return false to refuse the segment for now (backpressure): the packet is dropped unacknowledged
     *         and the requester retransmits it later; nothing is queued
     */
    boolean onWrite(long va, ByteBuffer payload, boolean first, boolean last, boolean hasImm, int immediate);

    /**
     * An inbound RDMA READ of {@code length} bytes at {@code va}. Complete {@code responder} later, from any
     * thread, exactly once.
     */
    void onRead(long va, int length, ReadResponder responder);

    /** Completes one inbound READ. */
    interface ReadResponder {
        /** Sends {@code data} (position..limit, exactly the requested length) as the READ response. */
        void complete(ByteBuffer data);

        /** Answers with a NAK Remote Access Error (the requester's QP goes to the error state). */
        void fail();
    }
}

package io.vibridge.verbs;

import java.nio.ByteBuffer;

/**
 * Answers ALL inbound RDMA WRITE and READ requests on one queue pair, whatever their rkey
 * ({@link QueuePair#setAccessHandler}, needs {@link Capability#REMOTE_ACCESS_HANDLER}). No memory
 * region is reachable through such a queue pair: the handler decides (the gateway's cut-through
 * forwards the operation, address and rkey unchanged, to the VI client that owns the memory).
 * Called on the provider's receive thread: return quickly, never block.
 */
public interface QueuePairAccessHandler {
    /**
     * One inbound RDMA WRITE packet; {@code payload} is valid only during the call (copy it).
     *
     * @param va       the address this packet is written to (RETH VA + offset of this packet)
     * @param rkey     the RETH R_Key of the WRITE
     * @param first    first packet of the WRITE message
     * @param last     last packet of the WRITE message
     * @param hasImm   the message carries immediate data (meaningful when {@code last}); the immediate is
     *                 also delivered as a receive completion on the QP
     * @return false to refuse the packet for now (backpressure): it is dropped unacknowledged and the
     *         requester retransmits it later; nothing is queued
     */
    boolean onWrite(long va, int rkey, ByteBuffer payload, boolean first, boolean last, boolean hasImm,
                    int immediate);

    /**
     * An inbound RDMA READ of {@code length} bytes at {@code va}/{@code rkey}; complete {@code responder} once.
     * A duplicate of a READ still being answered is not handed over again: the one answer serves both
     * (IB-WIRE-REFERENCE §4.6, §4.8: the requester accepts the response stream from the READ's first PSN).
     */
    void onRead(long va, int rkey, int length, ReadResponder responder);

    /**
     * A receive completion is about to be queued on this QP's receive CQ with success (an inbound SEND, or
     * the immediate of an RDMA WRITE), called on the same thread as, and in order with, {@link #onWrite} and
     * {@link #onRead} (IBA 9.5: the responder executes requests in order). Counting these lets the handler
     * place each RDMA operation among the messages around it.
     */
    default void onReceiveQueued() {
    }
}

package io.vibridge.verbs;

/** Send queue operations. */
public enum WrOpcode {
    SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
    /**
     * A SEND that carries an R_Key for the responder to invalidate ({@link SendWorkRequest#invalidate}), as
     * {@code IBV_WR_SEND_WITH_INV}; the receiver's completion reports the key
     * ({@link WorkCompletion#invalidatedRkey}). Needs {@link Capability#SEND_WITH_INVALIDATE}.
     */
    SEND_WITH_INV;

    public boolean isRead() {
        return this == RDMA_READ;
    }

    public boolean isWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }

    public boolean hasImmediate() {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** Whether the message carries {@link SendWorkRequest#invalidateRkey} (IBA's IETH). */
    public boolean hasInvalidate() {
        return this == SEND_WITH_INV;
    }
}

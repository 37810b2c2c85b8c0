package io.vibridge.verbs;

/** What a work completion completes. */
public enum WcOpcode {
    SEND, RDMA_WRITE, RDMA_READ,
    /** An inbound SEND (with or without immediate) consumed a receive. */
    RECV,
    /** An inbound RDMA WRITE with immediate consumed a receive. */
    RECV_RDMA_WITH_IMM
}

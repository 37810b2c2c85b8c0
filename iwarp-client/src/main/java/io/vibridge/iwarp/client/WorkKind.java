package io.vibridge.iwarp.client;

/** What a posted work request did: the kinds of {@link IwarpEndpoint}'s post calls. */
public enum WorkKind {
    /** A Send went out whole: as with an RNIC, it completes locally once TCP has it (iWARP acknowledges nothing itself). */
    SEND,
    /** A receive buffer holds one whole Send of the peer. */
    RECV,
    /** An RDMA Write went out whole (as a Send, it completes locally). */
    RDMA_WRITE,
    /** The Read Response of an RDMA Read has arrived whole in the sink buffer. */
    RDMA_READ
}

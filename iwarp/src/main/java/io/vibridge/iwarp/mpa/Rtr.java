package io.vibridge.iwarp.mpa;

/**
 * The ready-to-receive message of RFC 6581's peer-to-peer mode: what the initiator sends right after the
 * Reply so that the responder, which may not send first, learns the initiator is in RDMA mode.
 */
public enum Rtr {
    /** Client/server mode: the initiator's first FPDU is ordinary traffic. */
    NONE,
    /** A zero-length RDMA Write (tagged, STag 0, TO 0): absorbed. */
    WRITE,
    /** A zero-length RDMA Read Request: answered with a zero-length Read Response, absorbed. */
    READ
}

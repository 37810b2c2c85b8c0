package io.vibridge.gateway.bridge;

/** The life of a {@link BridgedConnection}, whatever its client's protocol (the admin listing shows it). */
public enum Phase {
    /** Waiting for the client's request (a VI Connect Request, an MPA Request). */
    AWAITING_REQUEST,
    /** CM REQ sent, waiting for the target's REP. */
    CONNECTING_TARGET,
    CONNECTED,
    /** No new client message; closing once what can complete has completed. */
    DRAINING,
    /** Both sides closed or closing; resources go once the QP flushed and the socket closed. */
    CLOSED
}

package io.vibridge.vitcp.engine;

/** Why connection establishment failed. */
public enum ConnectFailure {
    /** Connect Reject received (active) or sent (passive); the IS code says why. */
    REJECTED,
    /** Connect No Match received (active) or sent (passive). */
    NO_MATCH,
    /** No answer within the timeout (active) or no Connect Request within the incoming timeout (passive). */
    TIMEOUT,
    /**
     * Connect Accept (active) or Connect Request (passive: answered with Connect Reject, IS 11) failed
     * verification (VITCP-PROFILE §5).
     */
    SECURITY,
    /** Malformed or unexpected segment during setup. */
    PROTOCOL,
    /** TCP closed before the connection was established. */
    CLOSED
}

package io.vibridge.vitcp.security;

import io.vibridge.vitcp.wire.IsCode;

/** Outcome of {@link ConnectSigner#verify} (VITCP-PROFILE §5). */
public enum VerifyResult {
    /** Signed with the shared key, timestamp within the clock window, not seen while it is. */
    OK,
    /** Security Type 0: the peer did not sign. */
    UNSIGNED,
    /** A Security Type other than 0 and 1 (an unknown scheme). */
    WRONG_TYPE,
    /** Security Type 1 with a Security Length other than 40 (§5): not a signature this side can check. */
    MALFORMED,
    /** The HMAC does not match (wrong key or altered bytes). */
    BAD_SIGNATURE,
    /** Validly signed, but the timestamp is further from the verifier's clock than the clock window. */
    CLOCK_SKEW,
    /**
     * Validly signed within the window, but before the verifier started: a previous instance (before a restart)
     * may have accepted it, and its replay memory is gone.
     */
    SIGNED_BEFORE_START,
    /** The same signed segment (same HMAC) was accepted while its timestamp is still within the window. */
    REPLAY,
    /**
     * Validly signed and fresh, but the replay guard, or the client's share of it, is full of live entries:
     * refused rather than forgetting entries (which would let a replay through).
     */
    REPLAY_GUARD_FULL;

    public boolean isOk() {
        return this == OK;
    }

    /**
     * The IS code a passive side answers in its Connect Reject: 11 (security information rejected,
     * §5) for every failure except a full replay guard, which is 14 (resources exhausted); 0 for OK.
     */
    public int isCode() {
        return switch (this) {
            case OK -> IsCode.NONE;
            case REPLAY_GUARD_FULL -> IsCode.RESOURCES_EXHAUSTED;
            default -> IsCode.SECURITY_REJECTED;
        };
    }
}

package io.vibridge.vitcp.security;

import io.vibridge.vitcp.wire.IsCode;

/** Outcome of {@link ConnectSigner#verify} (VITCP-PROFILE §5). */
public enum VerifyResult {
    /** Signed with the shared key, timestamp within 60 s, not seen in the last 120 s. */
    OK,
    /** Security Type 0: the peer did not sign. */
    UNSIGNED,
    /** A Security Type other than 0 and 1 (an unknown scheme). */
    WRONG_TYPE,
    /** Security Type 1 with a Security Length other than 40 (§5): not a signature this side can check. */
    MALFORMED,
    /** The HMAC does not match (wrong key or altered bytes). */
    BAD_SIGNATURE,
    /** Validly signed, but the timestamp is more than 60 s away from the verifier's clock. */
    CLOCK_SKEW,
    /** The same signed segment (same HMAC) was accepted in the last 120 s. */
    REPLAY,
    /**
     * Validly signed and fresh, but the replay guard is at capacity with entries younger than
     * 120 s: refused rather than forgetting entries (which would let a replay through).
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

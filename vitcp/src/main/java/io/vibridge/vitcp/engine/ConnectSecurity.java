package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.IsCode;
import java.nio.ByteBuffer;

/** Security Type 1 of VITCP-PROFILE §5, as the engine needs it (the provider adapts ConnectSigner). */
public interface ConnectSecurity {

    /**
     * Fills timestamp and HMAC of the encoded Connect Request/Accept at {@code [off, off + len)}; the
     * HMAC also covers the {@code covered} bytes before {@code off} (the seed-004 frame header,
     * VITCP-PROFILE §9.11; 0 in native framing).
     */
    void sign(ByteBuffer buf, int off, int len, int covered);

    /** True when the Connect Request/Accept at {@code off} carries a valid, fresh, unreplayed signature. */
    boolean verify(ByteBuffer buf, int off, int len, int covered);

    /**
     * Verifies a Connect Request as {@link #verify(ByteBuffer, int, int, int)} and says how to refuse it: IS 0
     * (accepted), IS 11 (security information rejected) or IS 14 (a full replay memory, VITCP-PROFILE §5).
     */
    default int verifyRequest(ByteBuffer buf, int off, int len, int covered) {
        return verify(buf, off, len, covered) ? IsCode.NONE
                : IsCode.SECURITY_REJECTED;
    }

    /** {@link #sign(ByteBuffer, int, int, int)} of a native segment. */
    default void sign(ByteBuffer segment, int off, int len) {
        sign(segment, off, len, 0);
    }

    /** {@link #verify(ByteBuffer, int, int, int)} of a native segment. */
    default boolean verify(ByteBuffer segment, int off, int len) {
        return verify(segment, off, len, 0);
    }
}

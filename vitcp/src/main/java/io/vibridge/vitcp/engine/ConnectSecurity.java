package io.vibridge.vitcp.engine;

import java.nio.ByteBuffer;

/** Security Type 1 of VITCP-PROFILE §5, as the engine needs it (the provider adapts ConnectSigner). */
public interface ConnectSecurity {

    /** Fills timestamp and HMAC of the encoded Connect Request/Accept at {@code [off, off + len)}. */
    void sign(ByteBuffer segment, int off, int len);

    /** True when the encoded Connect Request/Accept carries a valid, fresh, unreplayed signature. */
    boolean verify(ByteBuffer segment, int off, int len);
}

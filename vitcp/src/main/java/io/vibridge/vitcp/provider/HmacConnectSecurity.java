package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.security.ConnectSigner;
import java.nio.ByteBuffer;
import java.time.InstantSource;

/**
 * Security Type 1 (VITCP-PROFILE §5) for the engine, over the shared-key {@link ConnectSigner}: the VI
 * provider's listener and the gateway's routes use this one adapter.
 */
public final class HmacConnectSecurity implements ConnectSecurity {
    private final ConnectSigner signer;

    HmacConnectSecurity(byte[] key) {
        this(new ConnectSigner(key, InstantSource.system()));
    }

    public HmacConnectSecurity(ConnectSigner signer) {
        this.signer = signer;
    }

    @Override
    public void sign(ByteBuffer segment, int off, int len) {
        signer.sign(segment, off, len);
    }

    @Override
    public boolean verify(ByteBuffer segment, int off, int len) {
        return signer.verify(segment, off, len).isOk();
    }
}

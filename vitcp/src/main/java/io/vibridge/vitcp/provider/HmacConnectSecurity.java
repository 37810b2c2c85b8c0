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
    public void sign(ByteBuffer buf, int off, int len, int covered) {
        signer.sign(buf, off, len, covered);
    }

    @Override
    public boolean verify(ByteBuffer buf, int off, int len, int covered) {
        return signer.verify(buf, off, len, covered).isOk();
    }
}

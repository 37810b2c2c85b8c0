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
    /** Whose share of the replay memory a verified request takes (null: none). */
    private final Object client;

    HmacConnectSecurity(byte[] key) {
        this(new ConnectSigner(key, InstantSource.system()));
    }

    public HmacConnectSecurity(ConnectSigner signer) {
        this(signer, null);
    }

    private HmacConnectSecurity(ConnectSigner signer, Object client) {
        this.signer = signer;
        this.client = client;
    }

    /**
     * The same key and replay memory, verified requests charged to {@code client} (the gateway: the client's IP
     * address), so that one client cannot fill the memory for every other.
     */
    public HmacConnectSecurity forClient(Object client) {
        return new HmacConnectSecurity(signer, client);
    }

    @Override
    public void sign(ByteBuffer buf, int off, int len, int covered) {
        signer.sign(buf, off, len, covered);
    }

    @Override
    public boolean verify(ByteBuffer buf, int off, int len, int covered) {
        return signer.verify(buf, off, len, covered, client).isOk();
    }

    @Override
    public int verifyRequest(ByteBuffer buf, int off, int len, int covered) {
        return signer.verify(buf, off, len, covered, client).isCode();   // IS 14 when the memory is full
    }
}

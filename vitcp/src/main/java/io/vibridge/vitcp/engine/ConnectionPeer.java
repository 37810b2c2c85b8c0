package io.vibridge.vitcp.engine;

import java.nio.ByteBuffer;

/**
 * What a {@link ViConnection} needs from its owner: receive descriptors, remote memory access and
 * event delivery. Called synchronously from within the engine's methods (the caller already
 * serialises access), so implementations must not call back into the engine.
 */
public interface ConnectionPeer {

    /** Takes the head of the receive queue for an inbound message, or returns null if it is empty. */
    InboundReceive takeReceive();

    /**
     * Checks remote access to {@code [address, address + length)} in the order of VITCP-PROFILE §9.6:
     * handle (IS 3), bounds (IS 4), protection tag (IS 6), read/write enable of region and VI (IS 5).
     * Returns 0 when allowed, else the IS code.
     */
    int checkRemoteAccess(long address, int handle, long length, boolean write);

    /** Places {@code src} at {@code address} of the region {@code handle} (already checked). */
    void rdmaPlace(long address, int handle, ByteBuffer src);

    /**
     * A view of {@code length} bytes at {@code address} of region {@code handle} (already checked), or
     * null when the data is not available yet: the engine then holds the Read Response until
     * {@link ViConnection#readSourceReady()}.
     */
    ByteBuffer rdmaSource(long address, int handle, int length);

    /** Passive side: a valid Connect Request arrived; answer with accept, reject or noMatch. */
    void connectRequested(ViConnection connection);

    /** The connection reached Connected. */
    void connected(ViConnection connection);

    /** Establishment failed ({@link ConnectFailure}); the caller closes TCP once output is drained. */
    void connectFailed(ViConnection connection, ConnectFailure failure, int isCode);

    /** An outbound work completed; {@code status} holds VIA 10.2 status bits. */
    void workCompleted(OutboundWork work, int status, long length);

    /** A consumed receive completed; {@code status} holds VIA 10.2 status bits. */
    void receiveCompleted(InboundReceive receive, int status, long length, int immediate);

    /**
     * The connected VI broke (error or peer close): all outbound work was already completed.
     * The owner flushes its receive queue, moves the VI to Error and closes TCP after draining output.
     */
    void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode);
}

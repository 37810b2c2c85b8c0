package io.vibridge.verbs;

/**
 * An RC queue pair. Created in INIT (receives may be posted at once); the connection manager moves it
 * to RTR/RTS when the connection is set up and to ERROR on disconnect. Thread-safe.
 */
public interface QueuePair extends AutoCloseable {
    int qpNum();

    QpState state();

    /** Posts one send work request (requires RTS; in ERROR it completes at once as flushed). */
    void postSend(SendWorkRequest wr);

    /** Posts one receive (INIT, RTR, RTS; in ERROR it completes at once as flushed). */
    void postRecv(ReceiveWorkRequest wr);

    /** Moves the QP to ERROR: outstanding work requests complete with {@link WcStatus#WR_FLUSH_ERROR}. */
    void toError();

    CompletionQueue sendCq();

    CompletionQueue recvCq();

    /**
     * Sends every inbound RDMA WRITE/READ on this QP to {@code handler} (null: back to memory regions), whatever
     * the rkey; while a handler is set no memory region is reachable through this QP. Needs
     * {@link Capability#REMOTE_ACCESS_HANDLER}; other providers throw {@link UnsupportedOperationException}.
     */
    default void setAccessHandler(QueuePairAccessHandler handler) {
        throw new UnsupportedOperationException("this verbs provider cannot hand remote access to a handler");
    }

    /**
     * Connects this QP out of band, INIT -> RTR -> RTS ({@code ibv_modify_qp} twice), with attributes the
     * application exchanged with the peer itself. Needs {@link Capability#OUT_OF_BAND_CONNECT}; other
     * providers throw {@link UnsupportedOperationException}. A QP connected this way belongs to no CM id:
     * {@link #toError()} ends it.
     */
    default void connect(QpConnection connection) {
        throw new UnsupportedOperationException("this verbs provider cannot connect a queue pair out of band");
    }

    /** Negotiated path MTU in bytes (0 before the connection is set up). */
    int pathMtu();

    /**
     * What this QP reports about itself ({@code rdma res show qp}): by default its number, state and path MTU,
     * the rest {@link QpInfo#UNKNOWN}; a provider that knows more says so. Read-only, for listings.
     */
    default QpInfo info() {
        return QpInfo.basic(qpNum(), state(), pathMtu());
    }

    @Override
    void close();
}

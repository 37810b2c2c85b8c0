package io.vibridge.verbs;

/**
 * Optional features a device may support ({@link VerbsDevice#capabilities()}). A caller that needs one
 * should check for it when it starts, not discover its absence on the first connection.
 */
public enum Capability {
    /**
     * The user may answer every inbound RDMA WRITE/READ of a queue pair itself
     * ({@link QueuePair#setAccessHandler}); the gateway's cut-through needs it.
     */
    REMOTE_ACCESS_HANDLER,
    /**
     * A queue pair can be connected out of band ({@link QueuePair#connect(QpConnection)}), without the CM, as
     * {@code ibv_modify_qp} does for {@code ibv_rc_pingpong} and perftest without {@code -R}.
     */
    OUT_OF_BAND_CONNECT,
    /**
     * CM private data reaches the other side whole, up to what the CM carries: the REQ's in
     * {@link CmEvent.ConnectRequest#privateData()} (up to {@link ConnectionManager#REQ_PRIVATE_DATA} = 92 bytes, the
     * size of the CM-MAPPING Hello, on the raw IB CM; {@link ConnectionManager#REQ_PRIVATE_DATA_AFTER_CMA_HEADER} = 56
     * where the CM {@linkplain ConnectionManager#writesCmaHeader() writes rdma_cm's CMA header}) and the REP's (up to
     * {@link ConnectionManager#REP_PRIVATE_DATA} = 196 bytes, given to {@link CmId#accept}) in
     * {@link CmEvent.Established#privateData()}, byte for byte. Without it those arrays may be empty or cut short
     * (DiSNI exposes none), so a handshake carried in private data cannot run.
     */
    CM_PRIVATE_DATA,
    /**
     * {@link ConnectionManager#listen} and {@link ConnectionManager#connect} take any 64-bit Service ID.
     * Without it only rdma_cm's port-space IDs, {@code 0x0000000001PPxxxx} (PP the port space, xxxx the
     * port), are certain to work, and others may be refused with a {@link VerbsException}.
     */
    ANY_SERVICE_ID,
    /**
     * {@link ConnectionManager#connect} honours {@link ConnectParams#maxCmRetries()},
     * {@link ConnectParams#localAckTimeout()}, {@link ConnectParams#minRnrTimer()} and
     * {@link ConnectParams#pathMtu()} (capped at {@link VerbsDevice#maxPathMtu()}): the REQ carries them and
     * the queue pairs use them (IB-WIRE-REFERENCE §5.7). Without it the provider may choose its own values
     * for these (rdma_cm takes them from the port and its module parameters) and ignore the caller's.
     */
    CM_RETRY_CONTROL,
    /**
     * {@link CompletionQueue#moderate} holds an armed notification back until several completions wait or a
     * period has passed, as {@code ibv_modify_cq} with {@code IBV_CQ_ATTR_MODERATE} does on hardware that has
     * it (mlx5; not rxe). Without it {@code moderate} throws and every completion raises the notification.
     */
    CQ_MODERATION,
    /**
     * {@link QueuePair#postSend} takes {@link WrOpcode#SEND_WITH_INV}: a SEND whose last packet carries
     * {@link SendWorkRequest#invalidateRkey} in an IETH, as {@code IBV_WR_SEND_WITH_INV}. Without it such a post
     * throws {@link VerbsException}. Whatever the capability, a receive completed by an inbound SEND with
     * Invalidate reports {@link WorkCompletion#hasInvalidate} and the key. What the receiving side invalidates is
     * its provider's: the soft provider has no fast-registration regions or memory windows and invalidates nothing
     * (verbs-backend README); an RDMA device invalidates the registration the key names and, where it cannot (Linux
     * rxe: a key of no fast-registration region or window), completes the receive in error and moves its queue pair
     * to the error state.
     */
    SEND_WITH_INVALIDATE
}

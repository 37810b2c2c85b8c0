package io.vibridge.verbs;

/** Optional features a device may support. */
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
    OUT_OF_BAND_CONNECT
}

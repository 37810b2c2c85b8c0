package io.vibridge.interop.rping;

/**
 * The connection parameters rping's CM exchange carries that are not rping's own choice but the rdma_cm's or
 * the soft provider's (options of the {@code rping} command).
 *
 * <p>rping.c fixes {@code rping_init_conn_param}: responder resources 1, initiator depth 1, retry count 7, RNR
 * retry count 7; its server accepts with {@code rdma_accept(id, NULL)}, which librdmacm (cma.c
 * ucma_copy_conn_param_to_kern) fills with the REQ's initiator depth and responder resources and retry / RNR
 * retry 7. The rest comes from Linux's rdma_cm: {@code CMA_CM_RESPONSE_TIMEOUT} 20,
 * {@code CMA_MAX_CM_RETRIES} 15, the port's active MTU; the local ACK timeout from the RoCE packet lifetime.
 *
 * @param localAckTimeout   ACK timeout exponent, 4.096 µs × 2^v (REQ field; our QP's timeout)
 * @param cmResponseTimeout CM response timeout exponent (both REQ fields)
 * @param maxCmRetries      REQ retransmissions before giving up
 * @param retryCount        transport retry count (rping: 7)
 * @param rnrRetryCount     RNR retry count (rping: 7)
 * @param pathMtu           path MTU in bytes, 0 = the port's largest (as rdma_cm: the port's active MTU)
 * @param minRnrTimer       RNR NAK timer code we answer with as responder
 */
public record CmParameters(int localAckTimeout, int cmResponseTimeout, int maxCmRetries, int retryCount,
                           int rnrRetryCount, int pathMtu, int minRnrTimer) {
    /** rping.c rping_init_conn_param. */
    public static final int RESPONDER_RESOURCES = 1;
    public static final int INITIATOR_DEPTH = 1;
    public static final int RETRY_COUNT = 7;
    public static final int RNR_RETRY_COUNT = 7;

    /** The defaults: rping's counts, Linux rdma_cm's timeouts (ACK 17 = 537 ms, CM 20 = 4.3 s, 15 retries). */
    public static CmParameters defaults() {
        return new CmParameters(17, 20, 15, RETRY_COUNT, RNR_RETRY_COUNT, 0, 12);
    }

    public CmParameters {
        check("local ACK timeout", localAckTimeout, 0, 31);
        check("CM response timeout", cmResponseTimeout, 0, 31);
        check("CM retries", maxCmRetries, 0, 15);
        check("retry count", retryCount, 0, 7);
        check("RNR retry count", rnrRetryCount, 0, 7);
        check("min RNR timer", minRnrTimer, 0, 31);
        if (pathMtu != 0 && pathMtu != 256 && pathMtu != 512 && pathMtu != 1024 && pathMtu != 2048 && pathMtu != 4096) {
            throw new IllegalArgumentException("path MTU must be 0 (the port's), 256, 512, 1024, 2048 or 4096, got "
                    + pathMtu);
        }
    }

    private static void check(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + v);
        }
    }

    public CmParameters withTimeouts(int ack, int cm, int retries) {
        return new CmParameters(ack, cm, retries, retryCount, rnrRetryCount, pathMtu, minRnrTimer);
    }

    public CmParameters withPathMtu(int mtu) {
        return new CmParameters(localAckTimeout, cmResponseTimeout, maxCmRetries, retryCount, rnrRetryCount, mtu,
                minRnrTimer);
    }
}

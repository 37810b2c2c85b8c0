package io.vibridge.verbs;

import java.net.InetAddress;

/**
 * Active-side connection parameters, the CM REQ fields (IB-WIRE-REFERENCE §5.3, §5.7).
 *
 * @param responderResources  READ/atomics we accept concurrently (REQ byte 35)
 * @param initiatorDepth      READ/atomics we issue concurrently (REQ byte 39)
 * @param retryCount          transport retry count 0..7, consecutive retries without progress before the work
 *                            request fails with RETRY_EXCEEDED (7 = seven, as IBA and hardware; rxe alone reads
 *                            7 as unlimited)
 * @param rnrRetryCount       RNR retry count 0..7 (7 = unlimited)
 * @param localAckTimeout     5-bit exponent: ACK timeout = 4.096 µs × 2^v (0 = no timer)
 * @param cmResponseTimeout   5-bit exponent for the CM response timeouts (both REQ fields)
 * @param maxCmRetries        REQ retransmissions before {@link CmEvent.ConnectTimeout} (0..15)
 * @param pathMtu             256, 512, 1024, 2048 or 4096
 * @param minRnrTimer         RNR NAK timer code we send as responder (0..31, 0 = 655 ms as IBA)
 */
public record ConnectParams(InetAddress remote, long serviceId, byte[] privateData,
                            int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount,
                            int localAckTimeout, int cmResponseTimeout, int maxCmRetries, int pathMtu,
                            int minRnrTimer) {
    public ConnectParams {
        if (remote == null) {
            throw new IllegalArgumentException("remote address required");
        }
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > ConnectionManager.REQ_PRIVATE_DATA) {
            throw new IllegalArgumentException("REQ private data is at most 92 bytes, got " + privateData.length);
        }
        check("responderResources", responderResources, 0, 255);
        check("initiatorDepth", initiatorDepth, 0, 255);
        check("retryCount", retryCount, 0, 7);
        check("rnrRetryCount", rnrRetryCount, 0, 7);
        check("localAckTimeout", localAckTimeout, 0, 31);
        check("cmResponseTimeout", cmResponseTimeout, 0, 31);
        check("maxCmRetries", maxCmRetries, 0, 15);
        check("minRnrTimer", minRnrTimer, 0, 31);
        if (Integer.bitCount(pathMtu) != 1 || pathMtu < 256 || pathMtu > 4096) {
            throw new IllegalArgumentException("pathMtu must be 256..4096, a power of two: " + pathMtu);
        }
    }

    static void check(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + v);
        }
    }

    /** rdma_cm-like defaults: 4/4 READs, retry 7, RNR 7, ACK timeout 17 (537 ms), CM timeout 20, 15 retries, MTU 4096. */
    public static ConnectParams defaults(InetAddress remote, long serviceId, byte[] privateData) {
        return new ConnectParams(remote, serviceId, privateData, 4, 4, 7, 7, 17, 20, 15, 4096, 12);
    }

    public ConnectParams withTimeouts(int localAckTimeout, int cmResponseTimeout, int maxCmRetries) {
        return new ConnectParams(remote, serviceId, privateData, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, cmResponseTimeout, maxCmRetries, pathMtu, minRnrTimer);
    }

    public ConnectParams withRetries(int retryCount, int rnrRetryCount) {
        return new ConnectParams(remote, serviceId, privateData, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, cmResponseTimeout, maxCmRetries, pathMtu, minRnrTimer);
    }

    public ConnectParams withPathMtu(int mtu) {
        return new ConnectParams(remote, serviceId, privateData, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, cmResponseTimeout, maxCmRetries, mtu, minRnrTimer);
    }

    public ConnectParams withReadDepth(int responderResources, int initiatorDepth) {
        return new ConnectParams(remote, serviceId, privateData, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, cmResponseTimeout, maxCmRetries, pathMtu, minRnrTimer);
    }

    public ConnectParams withMinRnrTimer(int code) {
        return new ConnectParams(remote, serviceId, privateData, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, cmResponseTimeout, maxCmRetries, pathMtu, code);
    }
}

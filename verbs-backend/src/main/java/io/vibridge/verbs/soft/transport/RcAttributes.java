package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.soft.wire.CmTimeout;
import java.net.InetAddress;

/**
 * Connection attributes the CM sets on an RC QP (IB-WIRE-REFERENCE §5.7): peer address and QPN, starting
 * PSNs, path MTU in bytes, retry/RNR retry counts, local ACK timeout exponent, READ limits, RNR timer code.
 */
public record RcAttributes(InetAddress peer, int peerPort, int destQpn, int sqPsn, int rqPsn, int pathMtu,
                           int retryCount, int rnrRetry, int ackTimeoutExp, int maxRdAtomic, int maxDestRdAtomic,
                           int minRnrTimer) {
    /** 4.096 µs × 2^v (§4.9); 0 = no timer. */
    public long ackTimeoutNanos() {
        return ackTimeoutExp == 0 ? 0 : CmTimeout.nanos(ackTimeoutExp);
    }
}

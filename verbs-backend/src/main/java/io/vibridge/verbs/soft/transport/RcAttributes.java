package io.vibridge.verbs.soft.transport;

import java.net.InetAddress;

/**
 * Connection attributes the CM sets on an RC QP (IB-WIRE-REFERENCE §5.7): peer address and QPN, starting
 * PSNs, path MTU, retry/RNR retry counts, local ACK timeout exponent, READ limits, RNR timer code.
 */
public record RcAttributes(InetAddress peer, int peerPort, int destQpn, int sqPsn, int rqPsn, int pathMtu,
                           int retryCount, int rnrRetry, int ackTimeoutExp, int maxRdAtomic, int maxDestRdAtomic,
                           int minRnrTimer) {
    /** 4.096 µs × 2^v (§4.9); 0 = no timer. */
    public long ackTimeoutNanos() {
        return ackTimeoutExp == 0 ? 0 : 4096L << ackTimeoutExp;
    }

    /** IB MTU enum (1=256 .. 5=4096) to bytes. */
    public static int mtuBytes(int code) {
        return 128 << code;
    }

    public static int mtuCode(int bytes) {
        return Integer.numberOfTrailingZeros(bytes) - 7;
    }
}

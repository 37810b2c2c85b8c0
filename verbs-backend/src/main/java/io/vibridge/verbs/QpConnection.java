package io.vibridge.verbs;

import java.net.InetAddress;

/**
 * Out-of-band connection of an RC queue pair: what {@code ibv_modify_qp} takes to move a QP from INIT
 * through RTR to RTS when the application exchanged the peer's QPN, PSN, GID and MTU itself (as
 * {@code ibv_rc_pingpong} and perftest without {@code -R} do over TCP), with no CM.
 *
 * <p>PSNs are named from this QP's side, as Linux's verbs name them: {@code sendPsn} is the RTS
 * attribute {@code sq_psn}, the first PSN this QP sends; {@code receivePsn} is the RTR attribute
 * {@code rq_psn}, the first PSN it expects, which must equal the peer's {@code sq_psn}.
 *
 * @param remote          the peer port's IP address (its GID is the IPv4-mapped form)
 * @param remoteQpn       the peer's QP number ({@code dest_qp_num}), 24 bits
 * @param sendPsn         this QP's {@code sq_psn}, 24 bits
 * @param receivePsn      this QP's {@code rq_psn} = the peer's {@code sq_psn}, 24 bits
 * @param pathMtu         256, 512, 1024, 2048 or 4096 (capped by the port's)
 * @param retryCount      transport retry count 0..7, as IBA reads it (7 = seven retries, not unlimited)
 * @param rnrRetryCount   RNR retry count 0..7 (7 = unlimited, IBA)
 * @param localAckTimeout ACK timeout exponent: 4.096 µs × 2^v (0 = no timer)
 * @param maxRdAtomic     READs this QP may have outstanding as requester ({@code max_rd_atomic})
 * @param maxDestRdAtomic READs it serves concurrently as responder ({@code max_dest_rd_atomic})
 * @param minRnrTimer     RNR NAK timer code it sends as responder (0..31)
 */
public record QpConnection(InetAddress remote, int remoteQpn, int sendPsn, int receivePsn, int pathMtu,
                           int retryCount, int rnrRetryCount, int localAckTimeout, int maxRdAtomic,
                           int maxDestRdAtomic, int minRnrTimer) {
    public QpConnection {
        if (remote == null) {
            throw new IllegalArgumentException("remote address required");
        }
        ConnectParams.check("remoteQpn", remoteQpn, 2, 0xFFFFFF);
        ConnectParams.check("sendPsn", sendPsn, 0, 0xFFFFFF);
        ConnectParams.check("receivePsn", receivePsn, 0, 0xFFFFFF);
        ConnectParams.check("retryCount", retryCount, 0, 7);
        ConnectParams.check("rnrRetryCount", rnrRetryCount, 0, 7);
        ConnectParams.check("localAckTimeout", localAckTimeout, 0, 31);
        ConnectParams.check("maxRdAtomic", maxRdAtomic, 0, 255);
        ConnectParams.check("maxDestRdAtomic", maxDestRdAtomic, 0, 255);
        ConnectParams.check("minRnrTimer", minRnrTimer, 0, 31);
        if (Integer.bitCount(pathMtu) != 1 || pathMtu < 256 || pathMtu > 4096) {
            throw new IllegalArgumentException("pathMtu must be 256..4096, a power of two: " + pathMtu);
        }
    }

    /**
     * The attributes {@code ibv_rc_pingpong} sets (rdma-core libibverbs/examples/rc_pingpong.c:
     * timeout 14, retry_cnt 7, rnr_retry 7, max_rd_atomic 1, max_dest_rd_atomic 1, min_rnr_timer 12).
     */
    public static QpConnection of(InetAddress remote, int remoteQpn, int sendPsn, int receivePsn, int pathMtu) {
        return new QpConnection(remote, remoteQpn, sendPsn, receivePsn, pathMtu, 7, 7, 14, 1, 1, 12);
    }

    public QpConnection withRetries(int retryCount, int rnrRetryCount, int localAckTimeout) {
        return new QpConnection(remote, remoteQpn, sendPsn, receivePsn, pathMtu, retryCount, rnrRetryCount,
                localAckTimeout, maxRdAtomic, maxDestRdAtomic, minRnrTimer);
    }

    public QpConnection withReadDepth(int maxRdAtomic, int maxDestRdAtomic) {
        return new QpConnection(remote, remoteQpn, sendPsn, receivePsn, pathMtu, retryCount, rnrRetryCount,
                localAckTimeout, maxRdAtomic, maxDestRdAtomic, minRnrTimer);
    }
}

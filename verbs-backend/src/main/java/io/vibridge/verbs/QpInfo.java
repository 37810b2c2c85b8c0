package io.vibridge.verbs;

/**
 * What a queue pair reports about itself, as {@code rdma res show qp} (and {@code ibv_query_qp}) shows a
 * Linux QP: its number and state, the peer's QP number, the PSN its requester sends next ({@code sq-psn})
 * and the PSN its responder expects next ({@code rq-psn}), the path MTU, and how often its requester
 * retransmitted and timed out. A field the provider cannot read is {@link #UNKNOWN}.
 *
 * @param qpn             this QP's number (0 before a provider has created it)
 * @param state           the QP's state
 * @param remoteQpn       the connected peer's QP number
 * @param sendPsn         the PSN of the next packet the requester transmits (rewinds on a retry, as rxe's)
 * @param expectedPsn     the PSN the responder expects next
 * @param pathMtu         the path MTU in bytes (0 before the connection is set up)
 * @param retransmissions packets this QP sent again (go-back-N after a NAK or a timeout)
 * @param timeouts        ACK timeouts of this QP's requester
 */
public record QpInfo(int qpn, QpState state, long remoteQpn, long sendPsn, long expectedPsn, int pathMtu,
                     long retransmissions, long timeouts) {
    /** A value the provider cannot report. */
    public static final long UNKNOWN = -1;

    /** What every provider knows: the number, the state and the path MTU; the rest {@link #UNKNOWN}. */
    public static QpInfo basic(int qpn, QpState state, int pathMtu) {
        return new QpInfo(qpn, state, UNKNOWN, UNKNOWN, UNKNOWN, pathMtu, UNKNOWN, UNKNOWN);
    }
}

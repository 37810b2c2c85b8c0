package io.vibridge.verbs;

import java.net.InetAddress;

/** One connection's CM endpoint (active or passive). Thread-safe. */
public interface CmId {
    /** Our local communication ID. */
    int localCommId();

    InetAddress remoteAddress();

    long serviceId();

    /** The connected QP (null on a passive id before accept). */
    QueuePair queuePair();

    /** Passive side: accepts a {@link CmEvent.ConnectRequest}: QP to RTS, REP sent. */
    void accept(QueuePair qp, AcceptParams params);

    /** Passive side: rejects a request with reason 28 (consumer reject) and private data (up to 148 bytes). */
    void reject(byte[] privateData);

    /** Sends DREQ (QP to ERROR); {@link CmEvent.Disconnected} then {@link CmEvent.TimewaitExit} follow. */
    void disconnect();

    /**
     * True from the moment the peer's DREQ (or its REJ, or the device's removal) reached the CM, which moves the QP to
     * ERROR itself before {@link CmEvent.Disconnected} is delivered: a consumer that sees its work flush first can
     * tell the peer's disconnect from the device's own error. False where the provider cannot tell.
     */
    default boolean peerDisconnected() {
        return false;
    }

    /**
     * True when the QP was in ERROR already, by the device's own doing, when the peer's DREQ reached the CM (neither
     * this side's disconnect nor the CM moved it there): the device failed a request first, and the peer's DREQ is
     * its answer to that (rxe moves a responder's QP to ERROR when it NAKs an access, with no async event in Linux
     * 6.1, and the peer's DREQ may reach the consumer before the QP's flush). False where the provider cannot tell.
     */
    default boolean failedBeforePeerDisconnect() {
        return false;
    }
}

package io.vibridge.vitcp.engine;

/**
 * The descriptor credits of VITCP-PROFILE §6 and §9.4, both ways. Rx Descriptors Posted is a lifetime
 * count of receives posted, carried mod 2^16 in every segment; a Send, or an RDMA Write with immediate
 * data, uses one of the receiver's credits. Counts are ints compared by difference, so they may wrap.
 */
final class Credits {

    /** A sender's view of available credits above this is a peer going backwards, not credit (mod 2^16). */
    private static final int MAX_AVAILABLE = 0x8000;

    private int rxPosted;
    private int rxAdvertised;
    private int peerRxPosted;
    private int consumed;
    // the peer's messages that took one of our receives (the NOP threshold's view of the peer)
    private int peerConsumed;
    // the peer's credit-using messages, checked against what we announced (credit abuse)
    private int peerUsed;
    private boolean flowControl;
    private int threshold;

    /** Receives posted before the connection: the initial credits of the Connect Request or Accept (§9.4). */
    void initial(int rxPosted) {
        this.rxPosted = rxPosted;
        this.rxAdvertised = rxPosted;
    }

    /** The connection is up: whether both sides asked for flow control, and the peer's initial credits. */
    void establish(boolean flowControl, int threshold, int peerRxPosted) {
        this.flowControl = flowControl;
        this.threshold = threshold;
        this.peerRxPosted = peerRxPosted;
    }

    boolean flowControl() {
        return flowControl;
    }

    void receivePosted() {
        rxPosted++;
    }

    /** The Rx Descriptors Posted value of the next segment. */
    int rxPosted() {
        return rxPosted;
    }

    /** A segment carrying {@link #rxPosted()} was produced: the peer will know of these credits. */
    void announced() {
        rxAdvertised = rxPosted;
    }

    /** The Rx Descriptors Posted field of a received segment. */
    void peerRxPosted(int value) {
        peerRxPosted = value;
    }

    /** Receives the peer announced and this side has not used yet, mod 2^16. */
    int peerCredits() {
        return (peerRxPosted - consumed) & 0xFFFF;
    }

    /** A Send or RDMA Write with immediate data may start (always without flow control). */
    boolean mayUseCredit() {
        if (!flowControl) {
            return true;
        }
        int available = peerCredits();
        return available > 0 && available < MAX_AVAILABLE;
    }

    /** This side started a Send or RDMA Write with immediate data (§9.4). */
    void use() {
        consumed++;
    }

    /** A peer's message took one of our receives. */
    void peerConsumed() {
        peerConsumed++;
    }

    /**
     * VITCP-PROFILE §6: a NOP announces new credits when the credits the peer knows about fall below the
     * threshold; in batches of half the threshold unless the peer has none left.
     */
    boolean announcementDue() {
        int unannounced = (rxPosted - rxAdvertised) & 0xFFFF;
        if (!flowControl || unannounced == 0) {
            return false;
        }
        int known = (rxAdvertised - peerConsumed) & 0xFFFF;
        return known == 0 || (known < threshold && unannounced >= Math.max(1, threshold / 2));
    }

    /** With flow control, the peer's next credit-using message would exceed the credits we announced. */
    boolean peerWouldAbuse() {
        return flowControl && peerUsed + 1 - rxAdvertised > 0;
    }

    /** The peer sent a credit-using message (checked with {@link #peerWouldAbuse()} first). */
    void peerUsed() {
        if (flowControl) {
            peerUsed++;
        }
    }
}

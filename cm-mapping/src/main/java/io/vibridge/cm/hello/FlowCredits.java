package io.vibridge.cm.hello;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;

/**
 * Send-credit arithmetic of FlowC 0 (CM-MAPPING §4, SDP's BSDH rules): one instance per RC
 * connection, fed with every Send posted and every message received.
 *
 * <p>State: my last mseq sent, the peer's last mseqack (which of my Sends it has consumed), the
 * peer's last advertised bufs, the last mseq received from the peer (my mseqack), and what I last
 * advertised. Sequence numbers are unsigned 32-bit and wrap ({@code 0xFFFFFFFF + 1 = 0}); all
 * differences are taken modulo 2^32, which is exact because at most 65535 Sends (the largest bufs)
 * can be outstanding.
 *
 * <p>The Hello/HelloReply exchange counts as message 0 in each direction (SDP sends MSeq = MSeqAck
 * = 0 there), so the first Send carries mseq 1, and the peer's initial bufs come from its Hello
 * (passive side) or HelloReply (active side).
 *
 * <p><b>Credits</b> = peer's bufs - (my last mseq - peer's mseqack): the Sends the peer has receive
 * buffers for. The gateway never sends without a credit, so no RNR NAK occurs. To avoid the
 * deadlock where both sides have used every credit and neither can tell the other it has reposted
 * buffers, the last credit is kept for a credit update (a header-only Send), as SDP does: send
 * payload only when {@link #canSendData()} (at least 2 credits), a credit update when
 * {@link #canSend()} (at least 1). A peer that advertises fewer than 2 buffers therefore never
 * receives payload.
 *
 * <p><b>Credit updates.</b> {@link #shouldSendCreditUpdate(int)} says when to send a header-only
 * Send: when the peer believes it has fewer than 2 credits (so it cannot send payload) and we have
 * more receives posted than it knows of. After the drain of a quiet connection this always fires on
 * the side whose peer is short, so no side waits forever; and since an update advertises every
 * posted buffer, the one receive it costs the peer leaves that peer's view at 2 or more when each
 * side posts at least {@link #MIN_BUFS_FOR_QUIET_UPDATES} (3) buffers: updates then never answer
 * each other endlessly. With 2 buffers a side the two would ping-pong updates on an idle
 * connection, which is why routes with FlowC 0 require at least 3 receive buffers.
 *
 * <p><b>Header-less Sends</b> (CM-MAPPING §4): an RDMA WRITE WITH IMMEDIATE
 * consumes a receive buffer of the peer and one mseq like a Send, but carries no header, so it
 * advertises nothing. The sender records it with {@link #onHeaderlessSend()} (the peer's view of
 * our bufs and mseqack stays what the last header told it), the receiver with
 * {@link #onHeaderlessReceive()}.
 *
 * <p>Not thread-safe (one connection lives on one thread); allocates nothing except when it throws.
 */
public final class FlowCredits {

    /** Receive buffers each side should post so that credit updates settle (see the class comment). */
    public static final int MIN_BUFS_FOR_QUIET_UPDATES = 3;

    private int lastSent;
    private int peerAck;
    private int peerBufs;
    private int lastReceived;
    private int advertisedBufs;
    private int advertisedAck;

    /**
     * Credits at connection start: sequence numbers 0 both ways.
     *
     * @param peerInitialBufs bufs of the peer's Hello (if we accepted) or HelloReply (if we connected)
     * @param myInitialBufs bufs we advertised in our own Hello or HelloReply
     */
    public FlowCredits(int peerInitialBufs, int myInitialBufs) {
        this(peerInitialBufs, myInitialBufs, 0, 0);
    }

    /**
     * Credits with explicit starting sequence numbers (the mseq of the last message before the
     * first Send, in each direction); used to test wrap-around.
     */
    public FlowCredits(int peerInitialBufs, int myInitialBufs, int initialSendMseq, int initialReceiveMseq) {
        this.peerBufs = Fields.requireRange("peerInitialBufs", peerInitialBufs, 0xFFFF);
        this.advertisedBufs = Fields.requireRange("myInitialBufs", myInitialBufs, 0xFFFF);
        this.lastSent = initialSendMseq;
        this.peerAck = initialSendMseq;
        this.lastReceived = initialReceiveMseq;
        this.advertisedAck = initialReceiveMseq;
    }

    /** Sends posted but not yet acknowledged by the peer's mseqack. */
    public int unacknowledged() {
        return lastSent - peerAck; // modulo 2^32, always in 0..65535
    }

    /** Send credits: the peer's bufs minus the unacknowledged Sends, never below 0. */
    public int credits() {
        return Math.max(0, peerBufs - unacknowledged());
    }

    /** May a Send (of any kind, e.g. a header-only credit update) be posted now? */
    public boolean canSend() {
        return credits() >= 1;
    }

    /** May a Send with payload be posted now? Keeps the last credit for a credit update. */
    public boolean canSendData() {
        return credits() >= 2;
    }

    /**
     * Records a Send about to be posted and returns the mseq to put in its header; its mseqack is
     * {@link #mseqAck()}, its bufs {@code bufsAdvertised}.
     *
     * @param bufsAdvertised receive buffers we have posted right now (the header's bufs)
     * @throws IllegalStateException if there is no credit (the caller must check {@link #canSend()})
     */
    public int onSend(int bufsAdvertised) {
        Fields.requireRange("bufsAdvertised", bufsAdvertised, 0xFFFF);
        if (!canSend()) {
            throw new IllegalStateException("no send credit: peer bufs " + peerBufs
                    + ", unacknowledged " + unacknowledged());
        }
        lastSent++;
        advertisedBufs = bufsAdvertised;
        advertisedAck = lastReceived;
        return lastSent;
    }

    /**
     * Records a header-less Send about to be posted (an RDMA WRITE WITH IMMEDIATE: it takes one of
     * the peer's receive buffers and one mseq but tells the peer nothing), returns its mseq. Unlike
     * {@link #onSend}, what the peer last learned of our bufs and mseqack ({@link #peerCredits()})
     * is unchanged.
     *
     * @throws IllegalStateException if there is no credit (the caller must check {@link #canSend()})
     */
    public int onHeaderlessSend() {
        if (!canSend()) {
            throw new IllegalStateException("no send credit: peer bufs " + peerBufs
                    + ", unacknowledged " + unacknowledged());
        }
        lastSent++;
        return lastSent;
    }

    /**
     * Records a header-less message received from the peer (an RDMA WRITE WITH IMMEDIATE that
     * consumed one of our receives): the next mseq, with the peer's bufs and mseqack unchanged.
     * Returns its mseq.
     */
    public int onHeaderlessReceive() {
        lastReceived++;
        return lastReceived;
    }

    /**
     * Records a message received from the peer (its header fields). Checked before anything
     * changes, so a refused message leaves the state as it was.
     *
     * @throws CmFormatException field {@code mseq} if it is not the next in sequence (RC delivers
     *     in order, so a gap or repeat is a broken peer); field {@code mseqack} if it acknowledges a
     *     Send not yet posted or goes backwards
     */
    public void onReceive(int bufs, int mseq, int mseqAck) {
        if (mseq != lastReceived + 1) {
            throw new CmFormatException(FlowControlHeader.NAME, "mseq", 8, "expected "
                    + Integer.toUnsignedString(lastReceived + 1) + ", got " + Integer.toUnsignedString(mseq));
        }
        // The new ack must lie in [peerAck, lastSent], compared as distances from peerAck.
        if (Integer.compareUnsigned(mseqAck - peerAck, unacknowledged()) > 0) {
            throw new CmFormatException(FlowControlHeader.NAME, "mseqack", 12, "must be between "
                    + Integer.toUnsignedString(peerAck) + " and the last mseq sent "
                    + Integer.toUnsignedString(lastSent) + ", got " + Integer.toUnsignedString(mseqAck));
        }
        Fields.requireRange("bufs", bufs, 0xFFFF);
        lastReceived = mseq;
        peerAck = mseqAck;
        peerBufs = bufs;
    }

    /**
     * Should a header-only credit update be sent now? True when the peer believes it has fewer than
     * 2 credits, {@code postedNow} (our receives posted right now) is more than it believes, and we
     * have a credit to send it with.
     */
    public boolean shouldSendCreditUpdate(int postedNow) {
        int peerView = peerCredits();
        return peerView < 2 && postedNow > peerView && canSend();
    }

    /** The mseqack to send: the last mseq received from the peer. */
    public int mseqAck() {
        return lastReceived;
    }

    /** The mseq of the last Send recorded by {@link #onSend}. */
    public int lastSentMseq() {
        return lastSent;
    }

    /** The mseq the next Send will carry. */
    public int nextMseq() {
        return lastSent + 1;
    }

    /** The peer's last advertised bufs. */
    public int peerBufs() {
        return peerBufs;
    }

    /**
     * The credits the peer believes it has towards us, from our last advertisement and the
     * messages received since: our advertised bufs - (last mseq received - the mseqack we sent
     * then). When this runs low while we have more receives posted, send a credit update.
     */
    public int peerCredits() {
        return Math.max(0, advertisedBufs - (lastReceived - advertisedAck));
    }
}

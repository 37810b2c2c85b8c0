package io.vibridge.gateway.ib;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;

/**
 * The message side of one RC connection: the FlowC 0 endpoint of CM-MAPPING §4 over the verbs SPI, or
 * with {@link #bare} the FlowC 1 pass-through, so an owner has one path for both. The owner keeps its
 * buffers, its other work requests (RDMA WRITE, READ) and the completion queue; it hands this channel
 * every receive completion and every send completion, and decides by {@link WrId} what is its own.
 * Receives may be posted from creation (before the CM REQ or REP, so they are the bufs the Hello or
 * HelloReply advertises); with FlowC 0 nothing is sent or received before {@link #start} hands it the
 * credits, once both sides' initial bufs are known.
 *
 * <p><b>Sends.</b> A message's payload sits {@link #headroom()} bytes after the start of its buffer; the
 * 16-byte header is written in place into that headroom, so nothing is copied. bufs is the receives
 * posted through this channel right now, mseqack the last mseq received. A Send with payload, and an
 * RDMA WRITE WITH IMMEDIATE, need 2 credits ({@link FlowCredits#canSendData}): the last is kept for a
 * credit update.
 *
 * <p><b>Credit updates</b> (header-only Sends: len 16, flags 0). Sent when the peer's credits towards us,
 * as the peer computes them (our last advertised bufs minus the peer's messages received since, i.e.
 * mseq minus the mseqack we sent then), are below 2 and we have more receives posted than that
 * ({@link FlowCredits#shouldSendCreditUpdate}); and at most one is in flight. A second one could only
 * repeat what the first says plus receives posted since, and the first reaches the peer before its send
 * completes (RC), so this waits for that completion and then looks again. One in flight also means one
 * 16-byte header buffer is enough and is never rewritten while the HCA may still read it. A data Send
 * carries the same advertisement, so the owner posts its data first and calls
 * {@link #maybeSendCreditUpdate} afterwards.
 *
 * <p><b>Receives.</b> {@link #onReceive} validates the header (MID, len = the received length), runs the
 * mseq/mseqack checks of {@link FlowCredits#onReceive} and tells a message from a credit update: a
 * header-only Send is a zero-length message when its flags carry {@link
 * FlowControlHeader#FLAG_EMPTY_MESSAGE} or it has immediate data, otherwise a credit update (CM-MAPPING
 * §4). A malformed header throws {@link CmFormatException} naming the field: the peer broke the protocol
 * and the owner ends the connection.
 *
 * <p><b>RDMA WRITE WITH IMMEDIATE</b> consumes one of the peer's receives and carries no header, so both
 * ends count it as one message in the mseq sequence and neither takes it as an advertisement (CM-MAPPING
 * §4; {@link FlowCredits#onHeaderlessSend}, {@link FlowCredits#onHeaderlessReceive}).
 *
 * <p>Not thread-safe: one connection, one thread. Allocates nothing per message (it throws only on a
 * protocol error or a caller's mistake).
 */
public final class FlowC0Channel {

    /** What a receive completion was, for the owner to act on. */
    public enum Inbound {
        /** A message: payload at {@link #headroom()} past the buffer's start, {@code byteLength - headroom()} bytes. */
        MESSAGE,
        /** A header-only credit update: nothing to deliver, repost the buffer. */
        CREDIT_UPDATE,
        /** An RDMA WRITE WITH IMMEDIATE landed: its data is in the owner's memory, the immediate in the completion. */
        WRITE_WITH_IMMEDIATE,
        /** The receive completed in error (flushed or failed): see the completion's status. */
        FAILED
    }

    private static final int FC = FlowControlHeader.LENGTH;

    private final QueuePair qp;
    private final boolean transport;
    private FlowCredits credits;
    private final int headroom;
    private final MemoryRegion updateRegion;
    private final int updateOffset;
    private final long updateWrId;
    private final SendWorkRequest swr = new SendWorkRequest();
    private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
    private int posted;
    private boolean updateInFlight;

    private FlowC0Channel(QueuePair qp, boolean transport, MemoryRegion updateRegion, int updateOffset,
                          long updateWrId) {
        this.qp = qp;
        this.transport = transport;
        this.headroom = transport ? FC : 0;
        this.updateRegion = updateRegion;
        this.updateOffset = updateOffset;
        this.updateWrId = updateWrId;
        swr.solicited = false;
    }

    /**
     * A FlowC 0 channel, to be {@linkplain #start started} when the connection's credits are known.
     *
     * @param updateRegion the region holding the 16 bytes credit updates are sent from
     * @param updateOffset where those 16 bytes start
     * @param updateWrId the work-request id of credit updates, distinct from the owner's own
     */
    public static FlowC0Channel of(QueuePair qp, MemoryRegion updateRegion, int updateOffset, long updateWrId) {
        if (updateRegion == null) {
            throw new IllegalArgumentException("FlowC 0 needs a credit-update buffer");
        }
        return new FlowC0Channel(qp, true, updateRegion, updateOffset, updateWrId);
    }

    /** A FlowC 1 channel: bare payloads, no credits, no headroom (CM-MAPPING §4, FlowC 1). */
    public static FlowC0Channel bare(QueuePair qp) {
        return new FlowC0Channel(qp, false, null, 0, 0);
    }

    /**
     * Hands a FlowC 0 channel its credits: on the passive side when it accepts (the peer's bufs from the
     * Hello), on the active side when the HelloReply arrives. Does nothing for FlowC 1.
     *
     * @param credits started from both sides' initial bufs
     * @throws IllegalStateException if already started
     */
    public void start(FlowCredits credits) {
        if (!transport) {
            return;
        }
        if (this.credits != null) {
            throw new IllegalStateException("FlowC 0 channel already started");
        }
        this.credits = credits;
    }

    /** Bytes every message buffer keeps before its payload for the header: 16 with FlowC 0, else 0. */
    public int headroom() {
        return headroom;
    }

    /** The credits (null for FlowC 1 and before {@link #start}), for diagnostics. */
    public FlowCredits credits() {
        return credits;
    }

    /** Receives posted through this channel and not completed yet: the bufs every header advertises. */
    public int postedReceives() {
        return posted;
    }

    /** Is a credit update posted and its send completion not seen yet? */
    public boolean creditUpdateInFlight() {
        return updateInFlight;
    }

    // ------------------------------------------------------------------ receiving

    /** Posts a receive of {@code length} bytes at {@code offset} of {@code region}. */
    public void postReceive(long wrId, MemoryRegion region, int offset, int length) {
        qp.postRecv(rwr.set(wrId, region, offset, length));
        posted++;
    }

    /**
     * Takes a receive completion whose buffer starts at absolute {@code offset} of {@code buf}. The buffer
     * is no longer posted whatever it was; the owner reposts it when it is free again.
     *
     * @throws CmFormatException if the FlowC 0 header is malformed or out of sequence (credits unchanged)
     * @throws IllegalStateException if a FlowC 0 channel receives a message before {@link #start}
     */
    public Inbound onReceive(WorkCompletion wc, ByteBuffer buf, int offset) {
        posted--;
        if (wc.status != WcStatus.SUCCESS) {
            return Inbound.FAILED;
        }
        if (!transport) {
            return wc.opcode == WcOpcode.RECV_RDMA_WITH_IMM ? Inbound.WRITE_WITH_IMMEDIATE : Inbound.MESSAGE;
        }
        requireStarted();
        if (wc.opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            credits.onHeaderlessReceive(); // CM-MAPPING §4: one mseq, no header
            return Inbound.WRITE_WITH_IMMEDIATE;
        }
        FlowControlHeader.validate(buf, offset, wc.byteLength);
        credits.onReceive(FlowControlHeader.readBufs(buf, offset), FlowControlHeader.readMseq(buf, offset),
                FlowControlHeader.readMseqAck(buf, offset));
        // CM-MAPPING §4: header-only is a credit update unless it is a zero-length message
        if (wc.byteLength == FC && !wc.hasImmediate && !FlowControlHeader.isEmptyMessage(buf, offset)) {
            return Inbound.CREDIT_UPDATE;
        }
        return Inbound.MESSAGE;
    }

    /**
     * A receive completion the owner drops unread while tearing the connection down (flushed, or data it
     * no longer delivers): the buffer is no longer posted, the credits are left as they are.
     */
    public void receiveDiscarded() {
        posted--;
    }

    // ------------------------------------------------------------------ sending

    /** May a message (Send with or without payload, or WRITE WITH IMMEDIATE) be posted now? */
    public boolean canSend() {
        return !transport || credits != null && credits.canSendData();
    }

    /**
     * Posts a Send (with immediate data if {@code withImmediate}) of the {@code payloadLength} bytes at
     * {@code payloadOffset} of {@code region}, writing the header into the {@link #headroom()} before them.
     *
     * @throws IllegalStateException if there is no credit ({@link #canSend()} is false)
     */
    public void send(long wrId, MemoryRegion region, int payloadOffset, int payloadLength, boolean withImmediate,
                     int immediate) {
        send(wrId, region, payloadOffset, payloadLength, withImmediate ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND,
                immediate, false);
    }

    /**
     * As {@link #send(long, MemoryRegion, int, int, boolean, int)} for any kind of SEND: {@code opcode} SEND,
     * SEND_WITH_IMM ({@code immediateOrKey} the immediate data) or SEND_WITH_INV ({@code immediateOrKey} the R_Key
     * to invalidate; ibv_send_wr's union), with the Solicited Event bit or not.
     */
    public void send(long wrId, MemoryRegion region, int payloadOffset, int payloadLength, WrOpcode opcode,
                     int immediateOrKey, boolean solicited) {
        int start = payloadOffset - headroom;
        if (transport) {
            requireCredit();
            int mseq = credits.onSend(posted);
            // CM-MAPPING §4: a zero-length message is flagged, else the peer would take it for a credit update
            FlowControlHeader.write(region.buffer(), start, payloadLength == 0 ? FlowControlHeader.FLAG_EMPTY_MESSAGE : 0,
                    posted, FC + payloadLength, mseq, credits.mseqAck());
        }
        post(wrId, opcode, region, start, headroom + payloadLength, immediateOrKey, solicited);
    }

    /**
     * Posts an RDMA WRITE WITH IMMEDIATE of {@code length} bytes at {@code offset} of {@code region} (null
     * and 0 for a zero-length one) to the peer's {@code remoteAddress}: it takes a credit and an mseq like a
     * Send but advertises nothing (CM-MAPPING §4).
     *
     * @throws IllegalStateException if there is no credit ({@link #canSend()} is false)
     */
    public void writeWithImmediate(long wrId, MemoryRegion region, int offset, int length, long remoteAddress,
                                   int rkey, int immediate) {
        if (transport) {
            requireCredit();
            credits.onHeaderlessSend();
        }
        swr.set(wrId, WrOpcode.RDMA_WRITE_WITH_IMM, region, offset, length).remote(remoteAddress, rkey)
                .immediate(immediate).signaled(true);
        swr.invalidateRkey = 0;
        swr.solicited = false;
        qp.postSend(swr);
    }

    /**
     * Sends a credit update if the peer is short (see the class comment) and none is in flight. Call it
     * after posting the messages that could go, since each of them advertises as much.
     *
     * @return whether one was posted
     */
    public boolean maybeSendCreditUpdate() {
        if (credits == null || updateInFlight || !credits.shouldSendCreditUpdate(posted)) { // also FlowC 1
            return false;
        }
        int mseq = credits.onSend(posted);
        FlowControlHeader.write(updateRegion.buffer(), updateOffset, 0, posted, FC, mseq, credits.mseqAck());
        updateInFlight = true;
        post(updateWrId, WrOpcode.SEND, updateRegion, updateOffset, FC, 0, false);
        return true;
    }

    /**
     * Takes a send completion. If it is this channel's credit update, the next may go: after a successful
     * one the peer may be short again already, so this looks at once.
     *
     * @return whether it was the channel's own (the owner only checks its status)
     */
    public boolean onSendCompletion(WorkCompletion wc) {
        if (!transport || wc.wrId != updateWrId) {
            return false;
        }
        updateInFlight = false;
        if (wc.status == WcStatus.SUCCESS) {
            maybeSendCreditUpdate();
        }
        return true;
    }

    private void requireStarted() {
        if (credits == null) {
            throw new IllegalStateException("FlowC 0 channel used before start");
        }
    }

    private void requireCredit() {
        requireStarted();
        if (!credits.canSendData()) {
            throw new IllegalStateException("no FlowC 0 credit for a message: " + credits.credits()
                    + " credits (one is kept for a credit update)");
        }
    }

    /** Posts a SEND of any kind ({@code immediateOrKey}: ibv_send_wr's union of immediate data and R_Key). */
    private void post(long wrId, WrOpcode opcode, MemoryRegion region, int offset, int length, int immediateOrKey,
            boolean solicited) {
        swr.set(wrId, opcode, region, offset, length).remote(0, 0).signaled(true);
        swr.immediate = opcode.hasImmediate() ? immediateOrKey : 0;
        swr.invalidateRkey = opcode.hasInvalidate() ? immediateOrKey : 0;
        swr.solicited = solicited;
        qp.postSend(swr);
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;

/**
 * What a {@link ViConnection} needs from its owner: receive descriptors, remote memory access and
 * event delivery. Called synchronously from within the engine's methods (the caller already
 * serialises access), so implementations must not call back into the engine.
 *
 * <p>The {@code default} methods are what an owner that stages messages itself (the gateway) needs;
 * a plain VI provider keeps the defaults.
 */
public interface ConnectionPeer {

    /** Takes the head of the receive queue for an inbound message, or returns null if it is empty. */
    InboundReceive takeReceive();

    /**
     * As {@link #takeReceive()}, naming the message: a {@link SegmentType#SEND} (taken at its first
     * segment) or an {@link SegmentType#RDMA_WRITE} with immediate data (taken after
     * {@link #rdmaWritePlaced}, VIA 10.2: the immediate data consumes a receive). Unordered types arrive
     * as their ordered counterparts (VITCP-PROFILE §9.10).
     */
    default InboundReceive takeReceive(SegmentType type, int messageNumber) {
        return takeReceive();
    }

    /**
     * Admission of a new inbound message, asked once per attempt before the engine consumes anything of
     * the segment but its header: the first segment of a {@link SegmentType#SEND} or
     * {@link SegmentType#RDMA_WRITE}, or an {@link SegmentType#RDMA_READ_REQUEST} within this side's read
     * window (unordered types as their ordered counterparts). Only segments that passed the sequence and
     * credit checks are asked about. Returning false stops {@link ViConnection#receive}: the engine keeps
     * the header and asks again, with the same arguments, on the next {@code receive} call (an empty
     * buffer is enough to retry).
     */
    default boolean admitMessage(SegmentType type, int messageNumber) {
        return true;
    }

    /**
     * Checks remote access to {@code [address, address + length)} in the order of VITCP-PROFILE §9.6:
     * handle (IS 3), bounds (IS 4), protection tag (IS 6), read/write enable of region and VI (IS 5).
     * Returns 0 when allowed, else the IS code.
     */
    int checkRemoteAccess(long address, int handle, long length, boolean write);

    /**
     * As {@link #checkRemoteAccess(long, int, long, boolean)} for the inbound RDMA Write ({@code write})
     * or RDMA Read Request {@code messageNumber}; called once per message, at its first segment.
     */
    default int checkRemoteAccess(int messageNumber, long address, int handle, long length, boolean write) {
        return checkRemoteAccess(address, handle, length, write);
    }

    /** Places {@code src} at {@code address} of the region {@code handle} (already checked). */
    void rdmaPlace(long address, int handle, ByteBuffer src);

    /**
     * Every byte of the inbound RDMA Write {@code messageNumber} was placed (after its last
     * {@link #rdmaPlace}; also for a zero-length write). {@code hasImmediate} and {@code immediateData}
     * come from its last segment; with immediate data the engine takes a receive for it next. Not called
     * for a write the engine discarded (access error, Transmit Error).
     */
    default void rdmaWritePlaced(int messageNumber, boolean hasImmediate, int immediateData) {
    }

    /**
     * A view of {@code length} bytes at {@code address} of region {@code handle} (already checked), or
     * null when the data is not available yet: the engine then holds the Read Response until
     * {@link ViConnection#readSourceReady()}.
     */
    ByteBuffer rdmaSource(long address, int handle, int length);

    /** Passive side: a valid Connect Request arrived; answer with accept, reject or noMatch. */
    void connectRequested(ViConnection connection);

    /** The connection reached Connected. */
    void connected(ViConnection connection);

    /**
     * Establishment failed ({@link ConnectFailure}); the caller closes TCP once output is drained. A
     * passive engine whose Connect Request failed verification reports {@link ConnectFailure#SECURITY}
     * with IS {@code SECURITY_REJECTED} after queueing the Connect Reject.
     */
    void connectFailed(ViConnection connection, ConnectFailure failure, int isCode);

    /**
     * The last segment of outbound work went to TCP ({@link ViConnection#written()}), before any
     * {@link #workCompleted} that the same {@code written()} call makes. If the owner feeds input
     * between {@code produce} and {@code written}, a Message ACK or a Read Response may complete the
     * work before this event. Not called for segments discarded when the connection broke.
     */
    default void workWritten(OutboundWork work) {
    }

    /**
     * The last segment of the RDMA Read Response {@code messageNumber} went to TCP
     * ({@link ViConnection#written()}): the engine no longer needs {@link #rdmaSource} for it.
     */
    default void readResponseWritten(int messageNumber) {
    }

    /** An outbound work completed; {@code status} holds VIA 10.2 status bits. */
    void workCompleted(OutboundWork work, int status, long length);

    /** A consumed receive completed; {@code status} holds VIA 10.2 status bits. */
    void receiveCompleted(InboundReceive receive, int status, long length, int immediate);

    /**
     * The connected VI broke (error or peer close): all outbound work was already completed.
     * The owner flushes its receive queue, moves the VI to Error and closes TCP after draining output.
     */
    void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode);
}

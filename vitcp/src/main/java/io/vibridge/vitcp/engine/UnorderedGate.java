package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.SegmentType;

/**
 * Seed 002, the sender's rule: which wire type each outbound message goes out with. A work with the
 * {@link OrderingHint#UNORDERED} hint goes out as Send Unordered, RDMA Write Unordered or RDMA Read
 * Request Unordered (types 9, 10, 11) only when
 *
 * <ol>
 *   <li>the peer set attribute bit 6, "Unordered operations understood" (VITCP-PROFILE §5, §9.10), and
 *   <li>"there are no ordered messages sent for which TCP ACK has not yet been received" (seed 002,
 *       condition 2), where only fully ordered works count: half-ordered and unordered ones do not (seed
 *       002: the half-ordered bit "allows subsequent un-ordered messages to be sent with the un-ordered
 *       message type without having to wait for the associated TCP ACK").
 * </ol>
 *
 * Every other work goes out with its ordered type (0, 1, 2). Java sees no TCP acknowledgements, so
 * condition 2 uses what the connection knows: at Reliable Reception a fully ordered message counts as
 * acknowledged once a Message ACK covers it (VITCP-PROFILE §6; stronger than a TCP ACK: the peer placed
 * it); at Reliable Delivery and Unreliable Delivery nothing acknowledges a message, so once a fully ordered
 * message was sent every later work goes with its ordered type. Conservative and correct: the bits are
 * hints an implementation may ignore (seed 002).
 *
 * <p>Nothing else depends on the type chosen: unordered types take message numbers from the same sequence,
 * credits, fences, the read window and completion are those of the ordered counterparts.
 */
final class UnorderedGate {

    private final boolean peerUnderstands;
    private final boolean messageAcks;
    // a fully ordered message was sent and no Message ACK is known to cover it
    private boolean orderedUnacknowledged;
    // the last fully ordered message sent; meaningful while orderedUnacknowledged
    private int lastOrdered;

    /**
     * @param peerUnderstands the peer set attribute bit 6
     * @param messageAcks Message ACKs acknowledge messages (Reliable Reception only, VITCP-PROFILE §6)
     */
    UnorderedGate(boolean peerUnderstands, boolean messageAcks) {
        this.peerUnderstands = peerUnderstands;
        this.messageAcks = messageAcks;
    }

    /** The wire type of {@code work}, whose first segment is produced now with message number {@code msg}. */
    SegmentType start(OutboundWork work, int msg) {
        SegmentType ordered = orderedType(work.operation());
        OrderingHint hint = work.orderingHint();
        if (hint == OrderingHint.ORDERED) {
            orderedUnacknowledged = true;
            lastOrdered = msg;
            return ordered;
        }
        if (hint == OrderingHint.UNORDERED && peerUnderstands && !orderedUnacknowledged) {
            return ordered.unordered();
        }
        return ordered; // half-ordered: the ordered type (there is no half-ordered type), but it holds nothing back
    }

    /** A Message ACK covers every message up to {@code ack} (Reliable Reception, VITCP-PROFILE §6). */
    void acknowledged(int ack) {
        if (messageAcks && orderedUnacknowledged && ack - lastOrdered >= 0) {
            orderedUnacknowledged = false;
        }
    }

    /** A fully ordered message sent is not known to be acknowledged: unordered works go with ordered types. */
    boolean orderedUnacknowledged() {
        return orderedUnacknowledged;
    }

    /** The ordered type of an operation (VIA 10.2 control bits 1:0); anything else is a Send, as before. */
    static SegmentType orderedType(int operation) {
        return switch (operation) {
            case OutboundWork.OP_RDMA_WRITE -> SegmentType.RDMA_WRITE;
            case OutboundWork.OP_RDMA_READ -> SegmentType.RDMA_READ_REQUEST;
            default -> SegmentType.SEND;
        };
    }
}

package io.vibridge.gateway.bridge;

import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.ib.FlowC0Channel;
import io.vibridge.gateway.ib.WrId;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import org.slf4j.Logger;

/**
 * The send queue of a {@link TargetSide}'s RC QP: posts the client's staged messages in order (DESIGN
 * "Operation mapping"), a SEND or RDMA WRITE WITH IMMEDIATE only with a FlowC 0 credit (CM-MAPPING §4),
 * and the keepalive probe; accounts every send completion to its client slot and reports the slot once
 * its last work request ended; counts what is outstanding, so the side can tell when the QP has flushed.
 * When posting is allowed is the side's business. Confined to the connection's event loop.
 */
final class TargetSends {
    private final long connId;
    private final Logger log;
    private final TargetSide.Events events;
    private final StagingSlots slots;
    private final GatewayMetrics metrics;
    private final QueuePair qp;
    private final FlowC0Channel channel;
    private final MemoryRegion controlRegion;
    private final SendWorkRequest swr = new SendWorkRequest();
    /** Work requests posted on the send queue and not completed, the channel's credit updates aside. */
    private int outstanding;
    private boolean stalledOnCredit;

    TargetSends(long connId, Logger log, TargetSide.Events events, StagingSlots slots, GatewayMetrics metrics,
                QueuePair qp, FlowC0Channel channel, MemoryRegion controlRegion) {
        this.connId = connId;
        this.log = log;
        this.events = events;
        this.slots = slots;
        this.metrics = metrics;
        this.qp = qp;
        this.channel = channel;
        this.controlRegion = controlRegion;
    }

    /** Posts staged client messages to the target in order; FlowC 0 messages wait for credits. */
    void postStaged() {
        int l;
        while ((l = slots.head()) >= 0) {
            boolean needsCredit = slots.op[l] == Op.SEND || (slots.op[l] == Op.WRITE && slots.hasImm[l]);
            if (needsCredit && !channel.canSend()) {
                if (!stalledOnCredit) {
                    stalledOnCredit = true;
                    metrics.creditStall(Direction.CLIENT_TO_TARGET);
                }
                return;
            }
            stalledOnCredit = false;
            try {
                post(l);
            } catch (VerbsException e) {
                log.warn("conn {} post to the target failed: {}", connId, e.toString());
                events.failed(WcStatus.GENERAL_ERROR);
                return;
            }
            slots.dequeue();
        }
    }

    private void post(int l) {
        int payload = slots.base[l] + StagingSlots.HEADROOM;
        int n = slots.len[l];
        switch (slots.op[l]) {
            case SEND -> {
                counted(l);
                WrOpcode op = slots.invalidates[l] ? WrOpcode.SEND_WITH_INV
                        : slots.hasImm[l] ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND;
                channel.send(WrId.of(TargetWork.SEND, l), slots.region[l], payload, n, op,
                        slots.invalidates[l] ? slots.rkey[l] : slots.imm[l], slots.solicited[l]);
            }
            case WRITE -> {
                if (n > 0 || !slots.hasImm[l]) {
                    counted(l);
                    swr.set(WrId.of(TargetWork.WRITE, l), WrOpcode.RDMA_WRITE, slots.region[l], payload, n)
                            .remote(slots.raddr[l], slots.rkey[l]).signaled(true);
                    qp.postSend(swr);
                }
                if (slots.hasImm[l]) {
                    // CM-MAPPING §4: the immediate goes in a zero-length RDMA WRITE WITH IMMEDIATE after the data
                    counted(l);
                    channel.writeWithImmediate(WrId.of(TargetWork.WRITE, l), null, 0, 0, slots.raddr[l] + n,
                            slots.rkey[l], slots.imm[l]);
                }
            }
            case READ -> {
                if (n == 0) {
                    slots.readReady[l] = true; // VITCP-PROFILE §9.7: one empty Read Response, no InfiniBand READ
                } else {
                    counted(l);
                    swr.set(WrId.of(TargetWork.READ, l), WrOpcode.RDMA_READ, slots.region[l], payload, n)
                            .remote(slots.raddr[l], slots.rkey[l]).signaled(true);
                    qp.postSend(swr);
                }
            }
            case NONE -> throw new IllegalStateException("slot " + l + " has no operation");
        }
    }

    /** One more work request of slot {@code l} is about to be posted. */
    private void counted(int l) {
        slots.pendingWr[l]++;
        outstanding++;
    }

    /**
     * Posts the keepalive probe, a zero-length RDMA WRITE: it needs no R_Key and touches no memory (IBA C9-88;
     * rxe check_rkey).
     */
    void probe() {
        swr.set(WrId.of(TargetWork.PROBE, 0), WrOpcode.RDMA_WRITE, controlRegion, 0, 0).remote(0, 0).signaled(true);
        outstanding++;
        qp.postSend(swr);
    }

    /** Nothing is outstanding on the send queue: no send, WRITE, READ, probe or credit update. */
    boolean idle() {
        return outstanding == 0 && !channel.creditUpdateInFlight();
    }

    /**
     * The completion of a send of kind {@code kind} for slot {@code l}: a failure (not a flush) is reported for
     * its client message, or for the connection when it was the channel's or the probe's; the slot is reported
     * once its last work request ended.
     */
    void completed(TargetWork kind, int l, WorkCompletion wc) {
        retired(kind, wc);
        boolean control = kind == TargetWork.CREDIT || kind == TargetWork.PROBE;
        if (wc.status != WcStatus.SUCCESS) {
            if (wc.status != WcStatus.WR_FLUSH_ERROR) {
                log.info("conn {} InfiniBand {} failed: {}", connId, kind.description, wc.status);
                if (!control && slots.op[l] != Op.NONE) {
                    events.clientMessageFailed(l, wc.status);
                } else {
                    events.failed(wc.status);
                }
            }
            if (!control && --slots.pendingWr[l] == 0 && slots.op[l] != Op.NONE) {
                events.clientMessageEnded(l);
            }
            return;
        }
        if (control || --slots.pendingWr[l] > 0) {
            return;
        }
        switch (slots.op[l]) {
            case SEND, WRITE -> events.clientMessageDone(l);
            case READ -> {
                slots.readReady[l] = true;
                events.readDone(l);
            }
            case NONE -> {
            }
        }
    }

    /** A send's completion polled during teardown (a flush: nothing new follows): counted, not reported. */
    void discarded(TargetWork kind, WorkCompletion wc) {
        retired(kind, wc);
    }

    /** A send left the queue; a credit update's successful completion may send the next at once. */
    private void retired(TargetWork kind, WorkCompletion wc) {
        if (kind == TargetWork.CREDIT) {
            channel.onSendCompletion(wc);
        } else {
            outstanding--;
        }
    }

    @Override
    public String toString() {
        return "outstandingSends=" + outstanding + " creditUpdateInFlight=" + channel.creditUpdateInFlight();
    }
}

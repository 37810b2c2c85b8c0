package io.vibridge.gateway.bridge.iwarp;

import io.vibridge.gateway.bridge.FrontEnd.Host;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.Direction;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Operation;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.TerminateCode;
import java.util.function.BooleanSupplier;

/**
 * The client's RDMAP messages on their way to the target (IWARP-MAPPING §3), each in the connection's staging
 * slots: a Send gathered whole (Solicited Event and Invalidate kept) and posted as one SEND; contiguous RDMA Write
 * segments to one STag gathered per slot, one RDMA WRITE per message or full slot; a Read Request as one RDMA READ
 * or, longer than a slot, slot-sized READs staged as slots come free, nothing of the client's after it staged
 * before all its parts (IBA 9.5). A message the slots cannot take yet is refused ({@code false}), and the engine
 * offers it again once {@link #freeSlot} ran. Confined to the connection's event loop.
 */
final class ClientMessages {
    private final Host host;
    private final GatewayMetrics metrics;
    /** The front end is closing or refused the client: nothing more is admitted. */
    private final BooleanSupplier closing;
    /** Largest client Send the target can take (its receive size, less the FlowC 0 header). */
    private int maxSend;
    /** Whether the gateway's side posts SENDs with Invalidate. */
    private boolean sendWithInvalidate;
    /** The client Send being gathered, or -1. */
    private int curSend = -1;
    /** The client RDMA Write being gathered (contiguous segments to one STag), or -1. */
    private int curWrite = -1;
    /** The split Read's next part: the target's address and key, and the bytes not yet staged (0: none). */
    private long splitAddress;
    private int splitKey;
    private long splitRemaining;

    ClientMessages(Host host, BooleanSupplier closing) {
        this.host = host;
        this.metrics = host.metrics();
        this.closing = closing;
    }

    /** The target accepted: Sends up to {@code maxSend} bytes, with Invalidate if the provider posts it. */
    void accepted(int maxSend, boolean sendWithInvalidate) {
        this.maxSend = maxSend;
        this.sendWithInvalidate = sendWithInvalidate;
    }

    boolean send(DdpSegment s) {
        StagingSlots slots = host.slots();
        int n = s.payloadLength();
        int mo = s.messageOffset();
        if (curSend < 0) {
            if (!admitSlot()) {
                return false;
            }
            curSend = slots.takeAdmitted();
            slots.beginSend(curSend, 0);
        }
        if ((long) mo + n > maxSend) {
            throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_TOO_LONG, "Message Offset", s.payloadOffset(),
                    "a Send longer than the " + maxSend + " bytes the target takes");
        }
        int l = curSend;
        slots.place(l, mo, s.buffer(), s.payloadOffset(), n);
        if (s.last()) {
            boolean invalidates = s.opcode().invalidates();
            if (invalidates && !sendWithInvalidate) {
                throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Opcode", s.payloadOffset(),
                        "Send with Invalidate: the gateway's verbs provider cannot post SEND with Invalidate");
            }
            curSend = -1;
            // IWARP-MAPPING §3: the Solicited Event bit kept; the STag to invalidate is the target's R_Key
            slots.endedSend(l, mo + n, s.opcode().solicited(), invalidates, s.invalidateStag());
            metrics.message(Direction.CLIENT_TO_TARGET, Operation.SEND, mo + n);
            if (invalidates) {
                metrics.sendInvalidate(ClientProtocol.IWARP, Direction.CLIENT_TO_TARGET);
            }
            host.stage(l);
        }
        return true;
    }

    /** Contiguous Write segments to one STag gather in one slot: one RDMA WRITE per message or full slot. */
    boolean write(DdpSegment s) {
        StagingSlots slots = host.slots();
        int n = s.payloadLength();
        int l = curWrite;
        if (l >= 0 && (slots.remoteKey(l) != s.stag() || slots.remoteAddress(l) + slots.length(l) != s.taggedOffset()
                || slots.length(l) + n > slots.payloadCapacity())) {
            flushWrite();
            l = -1;
        }
        if (l < 0) {
            if (!admitSlot()) {
                return false;
            }
            l = slots.takeAdmitted();
            curWrite = l;
            slots.beginWrite(l, 0, s.taggedOffset(), s.stag(), 0);
        }
        slots.append(l, s.buffer(), s.payloadOffset(), n);
        if (s.last()) {
            flushWrite();
        }
        return true;
    }

    private void flushWrite() {
        int l = curWrite;
        curWrite = -1;
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_WRITE, host.slots().length(l));
        host.stage(l);
    }

    /**
     * A client Read Request: one RDMA READ into a staging slot, or, longer than a slot, slot-sized READs whose
     * Read Response parts go out in order as one message (IWARP-MAPPING §3).
     */
    boolean readRequest(ReadRequest r) {
        if (r.sizeUnsigned() > Integer.MAX_VALUE) {
            // IBA 9.4.3: an RC message is at most 2^31 bytes
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNSPECIFIED, "RDMA Read Message Size", 0,
                    "a Read of " + r.sizeUnsigned() + " bytes; InfiniBand reads at most 2 GiB - 1 in one READ");
        }
        if (!admitSlot()) {
            return false;
        }
        metrics.message(Direction.CLIENT_TO_TARGET, Operation.RDMA_READ, r.size());
        splitAddress = r.sourceOffset();
        splitKey = r.sourceStag();
        splitRemaining = r.size();
        stageReadParts(true);
        if (r.size() == 0) {
            host.pump(); // answered without an InfiniBand READ
        }
        return true;
    }

    /** Stages the split Read's next parts while slots are free ({@code admitted}: one is already). */
    private void stageReadParts(boolean admitted) {
        StagingSlots slots = host.slots();
        do {
            if (!admitted && !host.admit()) {
                return;
            }
            admitted = false;
            int l = slots.takeAdmitted();
            int n = (int) Math.min(splitRemaining, slots.payloadCapacity());
            slots.beginRead(l, 0, splitAddress, splitKey, n);
            splitAddress += n;
            splitRemaining -= n;
            host.stage(l);
        } while (splitRemaining > 0);
    }

    private boolean admitSlot() {
        return !closing.getAsBoolean() && splitRemaining == 0 && host.admit();
    }

    /** A client slot's InfiniBand work is over: the slot goes back, to a split Read's next part first. */
    void freeSlot(int l) {
        host.slots().free(l);
        if (splitRemaining > 0 && !closing.getAsBoolean()) {
            stageReadParts(false);
        }
        host.slotFreed();
    }

    /** A Send or RDMA Write the stream ended inside was never staged: its slot goes back (the drain waits for it). */
    void dropUnfinished() {
        if (curSend >= 0) {
            int l = curSend;
            curSend = -1;
            freeSlot(l);
        }
        if (curWrite >= 0) {
            int l = curWrite;
            curWrite = -1;
            freeSlot(l);
        }
    }
}

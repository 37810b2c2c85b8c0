package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.ib.WrId;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The InfiniBand side of a bridged connection without a device: staged messages in, posted work
 * requests out; completions in, events out (Aeron's manner: fake queues, no sockets, no threads).
 */
class TargetSideTest {
    private static final int RECV_SLOTS = 2;
    private static final int SLOTS = 6;

    private final List<FakeVerbs.Qp> qps = new ArrayList<>();
    private final List<FakeVerbs.Cq> cqs = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private StagingSlots slots;
    private FakeVerbs.Qp qp;
    private FakeVerbs.Cq cq;

    private TargetSide open(boolean flowC0, Set<Capability> capabilities) {
        ProtectionDomain pd = FakeVerbs.protectionDomain(qps);
        VerbsDevice device = FakeVerbs.device(cqs, capabilities);
        StagingPool pool = new StagingPool(pd, 4096, 64, 16, 4);
        BridgeContext shared = new BridgeContext(TestSupport.config("127.0.0.9",
                TestSupport.route("x", "127.0.0.10", 5000, 1, RECV_SLOTS), ""), device, pd, pool,
                new GatewayMetrics(registry));
        slots = StagingSlots.reserve(pool, SLOTS, RECV_SLOTS, flowC0);
        TargetSide side = new TargetSide(7, shared, slots, 65552, flowC0, new Recorder(), Runnable::run,
                new CutThrough(() -> { }));
        qp = qps.getLast();
        cq = cqs.getLast();
        return side;
    }

    private TargetSide open(boolean flowC0) {
        return open(flowC0, Set.of());
    }

    /** Stages a client message the way the engine peer does. */
    private int stage(Op op, int length, boolean imm) {
        assertThat(slots.admit()).isTrue();
        int l = slots.takeAdmitted();
        switch (op) {
            case SEND -> slots.beginSend(l, 0);
            case WRITE -> slots.beginWrite(l, 0, 0x10_0000, 0x77, length);
            case READ -> slots.beginRead(l, 0, 0x10_0000, 0x77, length);
            default -> throw new IllegalArgumentException(op.toString());
        }
        slots.ended(l, length, imm, 0x5eed);
        slots.enqueue(l);
        return l;
    }

    private double creditStalls() {
        return registry.get("vibridge.credit.stalls").tag("direction", "client_to_target").counter().count();
    }

    @Test
    void everyReceiveSlotIsPostedAtOnceAtItsSlot() {
        open(false);
        assertThat(qp.receives).hasSize(RECV_SLOTS);
        for (int l = 0; l < RECV_SLOTS; l++) {
            FakeVerbs.Posted r = qp.receives.get(l);
            assertThat(WrId.kind(r.wrId(), TargetWork.ALL)).isEqualTo(TargetWork.RECV);
            assertThat(WrId.slot(r.wrId())).isEqualTo(l);
            assertThat(r.offset()).isEqualTo(slots.base[l]);
            assertThat(r.length()).isEqualTo(4096);
        }
        assertThat(cq.armed).isEqualTo(1);
    }

    @Test
    void nothingIsPostedBeforeTheConnectionIsEstablished() {
        TargetSide side = open(false);
        stage(Op.SEND, 100, false);
        side.postStaged();
        assertThat(qp.sends).isEmpty();
        side.established(0);
        side.postStaged();
        assertThat(qp.sends).singleElement().satisfies(s -> {
            assertThat(s.opcode()).isEqualTo(WrOpcode.SEND);
            assertThat(s.length()).isEqualTo(100);
        });
    }

    @Test
    void flowC1SendsTheBarePayloadAndReportsTheMessageDoneOnItsCompletion() {
        TargetSide side = open(false);
        side.established(0);
        int l = stage(Op.SEND, 100, true);
        side.postStaged();
        FakeVerbs.Posted s = qp.sends.getFirst();
        assertThat(s.opcode()).isEqualTo(WrOpcode.SEND_WITH_IMM);
        assertThat(s.offset()).isEqualTo(slots.base[l] + StagingSlots.HEADROOM);
        assertThat(s.immediate()).isEqualTo(0x5eed);
        cq.complete(s, WcStatus.SUCCESS).notifyOwner();
        assertThat(events).containsExactly("done " + l, "polled");
    }

    @Test
    void flowC0SendsWaitForCreditsAndCarryTheHeaderInTheSlotsHeadroom() {
        TargetSide side = open(true);
        side.established(1); // one target buffer: no credit for data (the last is kept for a credit update)
        int l = stage(Op.SEND, 0, false);
        side.postStaged();
        side.postStaged();
        assertThat(qp.sends).isEmpty();
        assertThat(creditStalls()).as("one stall, however often it is looked at").isEqualTo(1);

        // the target's credit update: 4 receives posted, nothing received yet
        FlowControlHeader.write(slots.buffer[0], slots.base[0], 0, 4, 16, 1, 0);
        cq.complete(qp.receives.getFirst().wrId(), WcStatus.SUCCESS, WcOpcode.RECV, 16).notifyOwner();
        assertThat(events).containsExactly("receive polled", "polled");
        FakeVerbs.Posted s = qp.sends.getFirst();
        assertThat(s.offset()).isEqualTo(slots.base[l]);
        assertThat(s.length()).isEqualTo(16);
        assertThat(FlowControlHeader.isEmptyMessage(slots.buffer[l], slots.base[l]))
                .as("CM-MAPPING §4: a zero-length message is not a credit update").isTrue();
        assertThat(qp.receives).as("the credit update's receive is reposted").hasSize(RECV_SLOTS + 1);
    }

    @Test
    void anRdmaWriteWithImmediateIsTwoWorkRequestsAndDoneAfterBoth() {
        TargetSide side = open(false);
        side.established(0);
        int l = stage(Op.WRITE, 512, true);
        side.postStaged();
        assertThat(qp.sends).extracting(FakeVerbs.Posted::opcode)
                .containsExactly(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM);
        FakeVerbs.Posted imm = qp.sends.get(1);
        assertThat(imm.remoteAddress()).as("after the data").isEqualTo(0x10_0000 + 512);
        assertThat(imm.length()).isZero();
        cq.complete(qp.sends.get(0), WcStatus.SUCCESS).notifyOwner();
        assertThat(events).containsExactly("polled");
        cq.complete(qp.sends.get(1), WcStatus.SUCCESS).notifyOwner();
        assertThat(events).containsExactly("polled", "done " + l, "polled");
    }

    @Test
    void aReadMarksItsSlotReadyAndAnEmptyReadPostsNothing() {
        TargetSide side = open(false);
        side.established(0);
        int empty = stage(Op.READ, 0, false);
        int l = stage(Op.READ, 300, false);
        side.postStaged();
        assertThat(slots.readReady[empty]).isTrue();
        assertThat(qp.sends).singleElement().satisfies(s -> assertThat(s.opcode()).isEqualTo(WrOpcode.RDMA_READ));
        assertThat(slots.readReady[l]).isFalse();
        cq.complete(qp.sends.getFirst(), WcStatus.SUCCESS).notifyOwner();
        assertThat(slots.readReady[l]).isTrue();
        assertThat(events).containsExactly("read " + l, "polled");
    }

    @Test
    void aFailedWorkRequestFailsItsMessageAndFreesTheSlotOnceNothingOfItIsOutstanding() {
        TargetSide side = open(false);
        side.established(0);
        int l = stage(Op.WRITE, 512, true);
        side.postStaged();
        cq.complete(qp.sends.get(0), WcStatus.REMOTE_ACCESS_ERROR)
                .complete(qp.sends.get(1), WcStatus.WR_FLUSH_ERROR).notifyOwner();
        assertThat(events).containsExactly("failed " + l + " REMOTE_ACCESS_ERROR", "ended " + l, "polled");
    }

    @Test
    void aTargetSendIsReportedWithItsPayloadPlace() {
        TargetSide side = open(true);
        side.established(4);
        FlowControlHeader.write(slots.buffer[1], slots.base[1], 0, 4, 16 + 10, 1, 0);
        cq.complete(qp.receives.get(1).wrId(), WcStatus.SUCCESS, WcOpcode.RECV, 26).notifyOwner();
        assertThat(events).containsExactly("receive polled", "message 1 @16 +10", "polled");
    }

    @Test
    void aBadFlowControlHeaderEndsTheInfinibandSide() {
        TargetSide side = open(true);
        side.established(4);
        FlowControlHeader.write(slots.buffer[1], slots.base[1], 0, 4, 99, 1, 0); // len says 99, 26 arrived
        cq.complete(qp.receives.get(1).wrId(), WcStatus.SUCCESS, WcOpcode.RECV, 26).notifyOwner();
        assertThat(events).containsExactly("receive polled", "ib failed REMOTE_INVALID_REQUEST", "polled");
    }

    @Test
    void aTargetWriteWithImmediateNeedsCutThrough() {
        TargetSide side = open(false);
        side.established(0);
        cq.complete(qp.receives.get(0).wrId(), WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0).notifyOwner();
        assertThat(events).containsExactly("receive polled", "ib failed REMOTE_INVALID_REQUEST", "polled");

        events.clear();
        TargetSide cut = open(false, Set.of(Capability.REMOTE_ACCESS_HANDLER));
        assertThat(cut.cutThrough()).isTrue();
        assertThat(qp.handler).isNotNull();
        cut.established(0);
        cq.complete(qp.receives.get(0).wrId(), WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0).notifyOwner();
        assertThat(events).containsExactly("receive polled", "polled");
        assertThat(qp.receives).as("reposted").hasSize(RECV_SLOTS + 1);
    }

    @Test
    void theQueuePairIsFlushedBeforeItMayBeDestroyed() {
        TargetSide side = open(false);
        side.established(0);
        stage(Op.SEND, 10, false);
        side.postStaged();
        assertThat(side.flushed()).isFalse();
        assertThat(qp.state).as("moved to ERROR so everything flushes").isEqualTo(QpState.ERROR);
        for (FakeVerbs.Posted r : qp.receives) {
            cq.complete(r, WcStatus.WR_FLUSH_ERROR);
        }
        assertThat(side.flushed()).isFalse();
        cq.complete(qp.sends.getFirst(), WcStatus.WR_FLUSH_ERROR);
        assertThat(side.flushed()).isTrue();
        assertThat(events).as("flushes during teardown are counted, not reported").isEmpty();
        side.close();
        assertThat(qp.closed).isTrue();
        assertThat(cq.closed).isTrue();
    }

    @Test
    void anIdleConnectionProbesTheTargetAndABusyOneDoesNot() {
        TargetSide side = open(false);
        side.established(0);
        side.keepaliveTick();
        assertThat(qp.sends).singleElement().satisfies(p -> {
            assertThat(p.opcode()).isEqualTo(WrOpcode.RDMA_WRITE);
            assertThat(p.length()).isZero();
            assertThat(WrId.kind(p.wrId(), TargetWork.ALL)).isEqualTo(TargetWork.PROBE);
        });
        side.keepaliveTick();
        assertThat(qp.sends).as("the probe is still outstanding").hasSize(1);
        cq.complete(qp.sends.getFirst(), WcStatus.SUCCESS).notifyOwner();
        side.keepaliveTick(); // a completion came since the last tick: not idle
        assertThat(qp.sends).hasSize(1);
        side.keepaliveTick();
        assertThat(qp.sends).hasSize(2);

        cq.complete(qp.sends.get(1), WcStatus.RETRY_EXCEEDED).notifyOwner();
        assertThat(events).containsExactly("polled", "ib failed RETRY_EXCEEDED", "polled");
    }

    private final class Recorder implements TargetSide.Events {
        @Override
        public void cmEvent(CmEvent event) {
            events.add("cm " + event);
        }

        @Override
        public void clientMessageDone(int slot) {
            events.add("done " + slot);
            slots.free(slot);
        }

        @Override
        public void clientMessageFailed(int slot, WcStatus status) {
            events.add("failed " + slot + " " + status);
        }

        @Override
        public void clientMessageEnded(int slot) {
            events.add("ended " + slot);
            slots.free(slot);
        }

        @Override
        public void readDone(int slot) {
            events.add("read " + slot);
        }

        @Override
        public void targetReceivePolled() {
            events.add("receive polled");
        }

        @Override
        public void targetMessage(TargetOp.Send send) {
            events.add("message " + send.slot() + " @" + send.offset() + " +" + send.length());
        }

        @Override
        public void completionsPolled() {
            events.add("polled");
        }

        @Override
        public void failed(WcStatus status) {
            events.add("ib failed " + status);
        }

        @Override
        public void failed(String why) {
            events.add("ib failed: " + why);
        }
    }
}

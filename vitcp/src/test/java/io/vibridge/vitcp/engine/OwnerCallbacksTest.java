package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.EngineTest.Recv;
import io.vibridge.vitcp.engine.EngineTest.Side;
import io.vibridge.vitcp.engine.EngineTest.Work;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What an owner that stages messages itself (the gateway) gets from the engine: engine options
 * (incoming timeout, security by called discriminator), admission, credit-abuse detection, callbacks
 * naming the message, the output events of {@link ViConnection#written()}, and manual inbound
 * completion with {@code failInbound}.
 */
class OwnerCallbacksTest {

    /** A side that records the owner callbacks, in order. */
    static class Owner extends Side {
        final List<String> calls = new ArrayList<>();
        boolean admit = true;

        @Override
        public boolean admitMessage(SegmentType type, int messageNumber) {
            calls.add("admit " + type + " " + messageNumber + (admit ? "" : " refused"));
            return admit;
        }

        @Override
        public InboundReceive takeReceive(SegmentType type, int messageNumber) {
            calls.add("take " + type + " " + messageNumber);
            return takeReceive();
        }

        @Override
        public int checkRemoteAccess(int messageNumber, long address, int handle, long length, boolean write) {
            calls.add("access " + messageNumber + (write ? " write " : " read ") + length);
            return checkRemoteAccess(address, handle, length, write);
        }

        @Override
        public void rdmaWritePlaced(int messageNumber, boolean hasImmediate, int immediateData) {
            calls.add("placed " + messageNumber + (hasImmediate ? " imm " + immediateData : ""));
        }

        @Override
        public void workWritten(OutboundWork work) {
            calls.add("written op " + work.operation() + " msg " + work.messageNumber());
        }

        @Override
        public void readResponseWritten(int messageNumber) {
            calls.add("response written " + messageNumber);
        }

        @Override
        public void workCompleted(OutboundWork w, int status, long length) {
            super.workCompleted(w, status, length);
            calls.add("completed " + Status.describe(status));
        }

        @Override
        public void connectRequested(ViConnection c) {
            calls.add("requested " + c.request().header().called());
            super.connectRequested(c);
        }
    }

    /** Signs nothing; verifies as told (the HMAC itself is ConnectSigner's, tested in the security package). */
    static final class FakeSecurity implements ConnectSecurity {
        final boolean valid;
        int verified;

        FakeSecurity(boolean valid) {
            this.valid = valid;
        }

        @Override
        public void sign(ByteBuffer segment, int off, int len, int covered) {
        }

        @Override
        public boolean verify(ByteBuffer segment, int off, int len, int covered) {
            verified++;
            return valid;
        }
    }

    static LocalEndpoint endpoint(ReliabilityLevel level, String disc, int imn, boolean flowControl,
            ConnectSecurity security) {
        return new LocalEndpoint(ConnectionAttributes.of(level, true, true, flowControl, false, false),
                Discriminator.ofUtf8(disc), 1 << 20, 4, imn, 1000, 8, security);
    }

    /** a (IMN 5) connected to b (IMN 77) at {@code level}; b posted {@code receives} receives beforehand. */
    static ViConnection[] connect(Side a, Side b, ReliabilityLevel level, boolean flowControl, int receives) {
        for (int i = 0; i < receives; i++) {
            b.receives.add(new Recv(4000));
        }
        b.accept = endpoint(level, "b", 77, flowControl, null);
        ViConnection ca = ViConnection.active(a, endpoint(level, "a", 5, flowControl, null), Discriminator.ofUtf8("b"),
                0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.incoming(b, EngineOptions.of(null), 0);
        Random rnd = new Random(1);
        EngineTest.pump(ca, cb, rnd, 100);
        EngineTest.pump(cb, ca, rnd, 100);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        if (b instanceof Owner o) {
            o.calls.clear();
        }
        return new ViConnection[] {ca, cb};
    }

    private static ByteBuffer segment(SegmentType type, int flags, int payload, long offset, int msg) {
        ByteBuffer b = ByteBuffer.allocate(SegmentHeader.LENGTH + payload);
        SegmentHeader.write(b, 0, type, flags, b.capacity(), offset, 0, msg, 0, 0, 0, 0);
        return b;
    }

    // ------------------------------------------------------------------ engine options

    @Test
    void incomingTimeout_comesFromTheOptions() {
        Side b = new Side();
        ViConnection cb = ViConnection.incoming(b, new EngineOptions(5_000, EngineOptions.SecurityResolver.NONE), 1_000);
        assertThat(cb.deadline()).isEqualTo(6_000);
        cb.tick(5_999);
        assertThat(cb.state()).isEqualTo(ViConnection.State.PASSIVE_INCOMING);
        cb.tick(6_000);
        assertThat(b.events).containsExactly("failed TIMEOUT " + IsCode.TIMEOUT);
    }

    @Test
    void passiveWithAFixedKey_isTheProfileTimeoutAndThatKeyForEveryDiscriminator() {
        FakeSecurity key = new FakeSecurity(true);
        EngineOptions o = EngineOptions.of(key);
        assertThat(o.incomingTimeoutNanos()).isEqualTo(ViConnection.INCOMING_TIMEOUT_NANOS);
        assertThat(o.security().forCalled(Discriminator.ofUtf8("x"))).isSameAs(key);
        assertThat(EngineOptions.of(null).security().forCalled(Discriminator.ofUtf8("x"))).isNull();
    }

    /** Connects a signing client (discriminator "route") to a passive engine with {@code resolver}. */
    private static Owner connectSigned(EngineOptions.SecurityResolver resolver, List<Discriminator> asked) {
        Side a = new Side();
        Owner b = new Owner();
        b.accept = endpoint(ReliabilityLevel.RELIABLE_DELIVERY, "route", 77, false, null);
        ViConnection ca = ViConnection.active(a, endpoint(ReliabilityLevel.RELIABLE_DELIVERY, "a", 5, false,
                new FakeSecurity(true)), Discriminator.ofUtf8("route"), 0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.incoming(b, new EngineOptions(1_000, called -> {
            asked.add(called);
            return resolver.forCalled(called);
        }), 0);
        Random rnd = new Random(2);
        EngineTest.pump(ca, cb, rnd, 50);
        EngineTest.pump(cb, ca, rnd, 50);
        b.events.add("client " + a.events);
        return b;
    }

    @Test
    void securityResolver_verifiesWithTheKeyOfTheCalledDiscriminator() {
        FakeSecurity key = new FakeSecurity(true);
        List<Discriminator> asked = new ArrayList<>();
        Owner b = connectSigned(called -> key, asked);
        assertThat(asked).containsExactly(Discriminator.ofUtf8("route"));
        assertThat(key.verified).isEqualTo(1);
        assertThat(b.events).contains("request", "connected");
    }

    @Test
    void failedVerification_isConnectFailureSecurity_andAConnectRejectIs11() {
        FakeSecurity key = new FakeSecurity(false);
        Owner b = connectSigned(called -> key, new ArrayList<>());
        assertThat(b.calls).isEmpty(); // never reaches connectRequested
        assertThat(b.events).containsExactly("failed SECURITY " + IsCode.SECURITY_REJECTED,
                "client [failed REJECTED " + IsCode.SECURITY_REJECTED + "]");
    }

    @Test
    void unknownDiscriminator_isNotVerified_andGoesToTheOwner() {
        Owner b = connectSigned(called -> null, new ArrayList<>());
        assertThat(b.calls).containsExactly("requested \"route\"");
    }

    // ------------------------------------------------------------------ admission

    @Test
    void refusedAdmission_keepsTheHeader_leavesThePayload_andRetriesOnTheNextReceive() {
        Side a = new Side();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, false, 1);
        ByteBuffer in = segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 10, 0, 5);
        in.put(SegmentHeader.LENGTH + 3, (byte) 42);
        b.admit = false;
        c[1].receive(in);
        assertThat(in.position()).isEqualTo(SegmentHeader.LENGTH);
        assertThat(c[1].awaitingAdmission()).isTrue();
        c[1].receive(ByteBuffer.allocate(0)); // an empty buffer retries the admission only
        assertThat(b.calls).containsExactly("admit SEND 5 refused", "admit SEND 5 refused");
        b.admit = true;
        c[1].receive(in);
        assertThat(in.hasRemaining()).isFalse();
        assertThat(c[1].awaitingAdmission()).isFalse();
        assertThat(b.calls).containsExactly("admit SEND 5 refused", "admit SEND 5 refused", "admit SEND 5",
                "take SEND 5");
        assertThat(b.events).contains("recv DONE|OP_RECEIVE 10");
    }

    @Test
    void admission_isAskedOncePerNewMessage_andNotForContinuationsNopsOrResponses() {
        Owner a = new Owner();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_RECEPTION, false, 1);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(2500), 0, false)); // three segments
        c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(1500), 100, false));
        c[0].post(new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(1500), 200, false));
        Random rnd = new Random(3);
        EngineTest.pump(c[0], c[1], rnd, 300);
        EngineTest.pump(c[1], c[0], rnd, 300);
        assertThat(b.calls).filteredOn(s -> s.startsWith("admit") || s.startsWith("take") || s.startsWith("access")
                || s.startsWith("placed")).containsExactly("admit SEND 5", "take SEND 5", "admit RDMA_WRITE 6",
                        "access 6 write 1500", "placed 6", "admit RDMA_READ_REQUEST 7", "access 7 read 1500");
        assertThat(a.calls).noneMatch(s -> s.startsWith("admit")); // Read Responses and NOPs are never asked about
    }

    @Test
    void unorderedTypes_areAdmittedAsTheirOrderedCounterparts() {
        Side a = new Side();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, false, 1);
        c[1].receive(segment(SegmentType.SEND_UNORDERED, SegmentHeader.FLAG_END_OF_MESSAGE, 4, 0, 5));
        assertThat(b.calls).containsExactly("admit SEND 5", "take SEND 5");
    }

    @Test
    void readRequestBeyondTheWindow_isRefusedByTheEngine_withoutAskingTheOwner() {
        Side a = new Side();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, false, 0);
        for (int m = 5; m < 10; m++) { // window 4: the fifth is over it (IS 7)
            ByteBuffer r = ByteBuffer.allocate(40);
            SegmentHeader.write(r, 0, SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 40, 0, 0, m, 0,
                    0, 0, 0);
            RdmaHeader.write(r, SegmentHeader.LENGTH, 0, 7, 10);
            c[1].receive(r);
        }
        assertThat(b.calls).filteredOn(s -> s.startsWith("admit")).hasSize(4);
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 2/" + IsCode.READ_WINDOW_EXCEEDED);
    }

    // ------------------------------------------------------------------ credits

    @Test
    void sendBeyondTheAnnouncedCredits_isCreditAbuse() {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
        c[1].receive(segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 4, 0, 5)); // the one credit
        b.receives.add(new Recv(100));
        c[1].receivePosted(); // posted, but not announced yet: the client cannot know of it
        c[1].receive(segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 4, 0, 6));
        assertThat(b.events).contains("broken PROTOCOL_ERROR 0/0");
        assertThat(c[1].lastProtocolError()).isEqualTo("credit abuse: message 6 sent without a receive credit");
    }

    @Test
    void rdmaWriteWithImmediate_usesACreditAtItsLastSegment() {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, true, 0);
        ByteBuffer w = ByteBuffer.allocate(40 + 8);
        SegmentHeader.write(w, 0, SegmentType.RDMA_WRITE, SegmentHeader.FLAG_END_OF_MESSAGE
                | SegmentHeader.FLAG_IMMEDIATE, 48, 0, 1, 5, 0, 0, 0, 0);
        RdmaHeader.write(w, SegmentHeader.LENGTH, 0, 7, 8);
        c[1].receive(w);
        assertThat(c[1].lastProtocolError()).isEqualTo("credit abuse: message 5 sent without a receive credit");
    }

    @Test
    void aSenderThatWaitsForCredits_isNeverFlagged() {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_RECEPTION, true, 1);
        Random rnd = new Random(4);
        for (int i = 0; i < 40; i++) { // Sends of one to three segments, with immediate data, and Writes
            c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(1 + rnd.nextInt(2500)), 0, false));
            boolean imm = i % 2 == 0;
            c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(rnd.nextInt(2500)), 0, false) {
                @Override
                public boolean hasImmediate() {
                    return imm;
                }
            });
        }
        for (int round = 0; round < 200 && a.completed.size() < 80; round++) {
            EngineTest.pump(c[0], c[1], rnd, 64);
            while (b.receives.size() < 1 + rnd.nextInt(3)) { // the owner reposts receives at its own pace
                b.receives.add(new Recv(4000));
                c[1].receivePosted();
            }
            EngineTest.pump(c[1], c[0], rnd, 64);
        }
        assertThat(c[1].lastProtocolError()).isNull();
        assertThat(a.completed).hasSize(80).allMatch(s -> !Status.isError(s));
    }

    // ------------------------------------------------------------------ output events

    @Test
    void written_reportsTheLastSegmentOfEachWork_beforeItsCompletion_andReadResponses() {
        Owner a = new Owner();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, false, 1);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(2500), 0, false));
        c[0].post(new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(2500), 300, false));
        Random rnd = new Random(5);
        EngineTest.pump(c[0], c[1], rnd, 500);
        assertThat(a.calls).containsExactly("written op 0 msg 5", "completed DONE|OP_SEND", "written op 2 msg 6");
        EngineTest.pump(c[1], c[0], rnd, 500);
        assertThat(b.calls).containsOnlyOnce("response written 6");
        assertThat(a.calls).endsWith("completed DONE|OP_RDMA_READ");
    }

    @Test
    void atReliableReception_workWrittenComesAtTheWrite_andTheCompletionAtTheAck() {
        Owner a = new Owner();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_RECEPTION, false, 1);
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false));
        Random rnd = new Random(6);
        EngineTest.pump(c[0], c[1], rnd, 500);
        assertThat(a.calls).containsExactly("written op 0 msg 5");
        EngineTest.pump(c[1], c[0], rnd, 500);
        assertThat(a.calls).containsExactly("written op 0 msg 5", "completed DONE|OP_SEND");
    }

    @Test
    void rdmaWritePlaced_carriesTheImmediateData_beforeTheReceiveIsTaken() {
        Side a = new Side();
        Owner b = new Owner();
        ViConnection[] c = connect(a, b, ReliabilityLevel.RELIABLE_DELIVERY, false, 1);
        Work write = new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(2500), 400, false) {
            @Override
            public boolean hasImmediate() {
                return true;
            }
        };
        c[0].post(write);
        c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(0), 400, false));
        EngineTest.pump(c[0], c[1], new Random(7), 100);
        assertThat(b.calls).containsExactly("admit RDMA_WRITE 5", "access 5 write 2500", "placed 5 imm 99",
                "take RDMA_WRITE 5", "admit RDMA_WRITE 6", "access 6 write 0", "placed 6");
    }

    // ------------------------------------------------------------------ manual inbound completion

    @Test
    void failInboundAtReliableReceptionReportsThatMessage() {
        EngineTest.Side a = new EngineTest.Side();
        EngineTest.Side b = new EngineTest.Side();
        b.accept = EngineTest.endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "b", 500);
        ViConnection ca = ViConnection.active(a, EngineTest.endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "a", 40),
                Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        Random rnd = new Random(1);
        EngineTest.pump(ca, cb, rnd, 4096);
        EngineTest.pump(cb, ca, rnd, 4096);
        cb.manualInboundCompletion(true);
        ca.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(100), 0, false));
        ca.post(new EngineTest.Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(100), 0, false));
        EngineTest.pump(ca, cb, rnd, 4096);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).isEmpty(); // not acknowledged before inboundCompleted
        cb.inboundCompleted(40);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).containsExactly(Status.DONE | Status.OP_RDMA_WRITE);
        cb.failInbound(41, 1, 16);
        EngineTest.pump(cb, ca, rnd, 4096);
        assertThat(a.completed).hasSize(2);
        assertThat(a.completed.get(1) & Status.RDMA_PROT_ERROR).isNotZero();
        assertThat(a.events).contains("broken REMOTE_ERROR 1/16");
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 1/16");
    }
}

package io.vibridge.verbs.soft.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.ReadResponder;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.AethKind;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.Reth;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What an rxe requester expects of our responder's READ answers, checked on the wire against a plain-socket
 * peer: responses and later ACKs leave in request order even when a handler answers the READ later (rxe's
 * completer reads an ACK past a pending READ as lost responses, rxe_comp.c check_psn), and a duplicate READ
 * for the tail of a READ is answered from Middle/Last, never First (rxe_resp.c duplicate_request: replay;
 * rxe_comp.c check_ack errors the QP on a First in mid-READ).
 */
class RxeReadConventionTest {
    private static final int PEER_QPN = 0x21;
    private static final int MTU = 1024;
    private static final int OUR_RQ = 0x1000;

    @Test
    void anAckWaitsBehindTheReadResponsesAHandlerStillOwes() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            CompletableFuture<ReadResponder> owed = new CompletableFuture<>();
            QueuePair qp = connectedQp(dev, peer, new QueuePairAccessHandler() {
                @Override
                public boolean onWrite(long va, int rkey, ByteBuffer payload, boolean first, boolean last,
                                       boolean hasImm, int immediate) {
                    return true;
                }

                @Override
                public void onRead(long va, int rkey, int length, ReadResponder responder) {
                    owed.complete(responder);
                }
            });
            peer.sendRead(qp.qpNum(), OUR_RQ, 0x1000, 0x77, 100);
            peer.sendRc(Opcode.SEND_ONLY, qp.qpNum(), OUR_RQ + 1, new byte[8]);
            ReadResponder r = owed.get(10, TimeUnit.SECONDS);
            Thread.sleep(100);                   // the SEND was executed meanwhile; its ACK must not have left
            r.complete(ByteBuffer.allocate(100));
            ByteBuffer first = peer.receiveRc();
            assertThat(Opcode.lookup(Bth.opcode(first, 0))).isEqualTo(Opcode.RDMA_READ_RESPONSE_ONLY);
            assertThat(Bth.psn(first, 0)).isEqualTo(OUR_RQ);
            ByteBuffer ack = peer.receiveRc();
            assertThat(Opcode.lookup(Bth.opcode(ack, 0))).isEqualTo(Opcode.ACKNOWLEDGE);
            assertThat(Bth.psn(ack, 0)).isEqualTo(OUR_RQ + 1);
        }
    }

    @Test
    void aDuplicateReadForTheTailResumesWithMiddleAndLast() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            QueuePair qp = connectedQp(dev, peer, null);
            MemoryRegion mr = registered;
            peer.sendRead(qp.qpNum(), OUR_RQ, mr.address(), mr.rkey(), 3 * MTU);
            assertThat(opcodesAndPsns(peer, 3)).containsExactly(
                    "RDMA_READ_RESPONSE_FIRST@" + OUR_RQ, "RDMA_READ_RESPONSE_MIDDLE@" + (OUR_RQ + 1),
                    "RDMA_READ_RESPONSE_LAST@" + (OUR_RQ + 2));
            // the requester lost the last two and asks again for the rest, as rxe's req_retry does
            peer.sendRead(qp.qpNum(), OUR_RQ + 1, mr.address() + MTU, mr.rkey(), 2 * MTU);
            assertThat(opcodesAndPsns(peer, 2)).containsExactly(
                    "RDMA_READ_RESPONSE_MIDDLE@" + (OUR_RQ + 1), "RDMA_READ_RESPONSE_LAST@" + (OUR_RQ + 2));
            // a duplicate of the whole READ starts afresh
            peer.sendRead(qp.qpNum(), OUR_RQ, mr.address(), mr.rkey(), 3 * MTU);
            assertThat(opcodesAndPsns(peer, 3)).first().isEqualTo("RDMA_READ_RESPONSE_FIRST@" + OUR_RQ);
        }
    }

    /**
     * Our requester: a READ response past the expected one means responses were lost, and the rest of the READ is
     * asked for again at once (a new READ request at the missing PSN, address advanced), not after the ACK timer,
     * which here is 68 s: the re-request must arrive within the peer's 10 s receive.
     */
    @Test
    void aGapInReadResponsesIsReRequestedAtOnce() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            var cq = dev.createCompletionQueue(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.of(cq, 8));
            MemoryRegion sink = pd.registerMemory(ByteBuffer.allocateDirect(4 * MTU), EnumSet.of(Access.LOCAL_WRITE));
            int ourSq = 0x3000;
            qp.connect(QpConnection.of(peer.address(), PEER_QPN, ourSq, OUR_RQ, MTU).withReadDepth(4, 4)
                    .withRetries(7, 7, 24));
            long va = 0x7000_0000L;
            qp.postSend(new SendWorkRequest()
                    .set(9, WrOpcode.RDMA_READ, sink, 0, 3 * MTU).remote(va, 0x55));
            ByteBuffer req = peer.receiveRc();
            assertThat(Opcode.lookup(Bth.opcode(req, 0))).isEqualTo(Opcode.RDMA_READ_REQUEST);
            assertThat(Bth.psn(req, 0)).isEqualTo(ourSq);
            byte[][] part = new byte[3][MTU];
            for (int i = 0; i < 3; i++) {
                Arrays.fill(part[i], (byte) (i + 1));
            }
            peer.sendReadResponse(Opcode.RDMA_READ_RESPONSE_FIRST, qp.qpNum(), ourSq, part[0]);
            peer.sendReadResponse(Opcode.RDMA_READ_RESPONSE_LAST, qp.qpNum(), ourSq + 2, part[2]); // Middle lost

            ByteBuffer again = peer.receiveRc();
            assertThat(Opcode.lookup(Bth.opcode(again, 0))).isEqualTo(Opcode.RDMA_READ_REQUEST);
            assertThat(Bth.psn(again, 0)).isEqualTo(ourSq + 1);
            assertThat(Reth.virtualAddress(again, Bth.LENGTH)).isEqualTo(va + MTU);
            assertThat(Reth.dmaLength(again, Bth.LENGTH)).isEqualTo(2L * MTU);
            peer.sendReadResponse(Opcode.RDMA_READ_RESPONSE_MIDDLE, qp.qpNum(), ourSq + 1, part[1]);
            peer.sendReadResponse(Opcode.RDMA_READ_RESPONSE_LAST, qp.qpNum(), ourSq + 2, part[2]);

            WorkCompletion[] wc = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cq.poll(wc) == 0) {
                assertThat(System.nanoTime()).as("the READ completes").isLessThan(end);
                Thread.sleep(1);
            }
            assertThat(wc[0].status).isEqualTo(WcStatus.SUCCESS);
            for (int i = 0; i < 3 * MTU; i++) {
                assertThat(sink.buffer().get(i)).isEqualTo((byte) (i / MTU + 1));
            }
        }
    }

    /** A requester that exceeds the responder resources we granted, while a handler owes answers, is NAKed. */
    @Test
    void readsBeyondTheGrantedResponderResourcesAreRefused() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            QueuePair qp = pd.createQueuePair(QpInitAttributes.of(dev.createCompletionQueue(16), 8));
            qp.connect(QpConnection.of(peer.address(), PEER_QPN, 0x2000, OUR_RQ, MTU).withReadDepth(1, 1));
            qp.setAccessHandler(new QueuePairAccessHandler() {
                @Override
                public boolean onWrite(long va, int rkey, ByteBuffer payload, boolean first, boolean last,
                                       boolean hasImm, int immediate) {
                    return true;
                }

                @Override
                public void onRead(long va, int rkey, int length, ReadResponder responder) {
                    // never answered: the READ stays owed
                }
            });
            peer.sendRead(qp.qpNum(), OUR_RQ, 0x1000, 0x77, 100);
            peer.sendRead(qp.qpNum(), OUR_RQ + 1, 0x2000, 0x77, 100);
            ByteBuffer nak = peer.receiveRc();
            assertThat(Opcode.lookup(Bth.opcode(nak, 0))).isEqualTo(Opcode.ACKNOWLEDGE);
            assertThat(Bth.psn(nak, 0)).isEqualTo(OUR_RQ + 1);
            int syndrome = Aeth.syndrome(nak, Bth.LENGTH);
            assertThat(Aeth.kind(syndrome)).isEqualTo(AethKind.NAK);
            assertThat(Aeth.code(syndrome)).isEqualTo(Aeth.INVALID_REQUEST);
            assertThat(qp.state()).isEqualTo(QpState.ERROR);
        }
    }

    private MemoryRegion registered;

    private QueuePair connectedQp(VerbsDevice dev, LinuxPeer peer, QueuePairAccessHandler handler) throws Exception {
        ProtectionDomain pd = dev.allocateProtectionDomain();
        QueuePair qp = pd.createQueuePair(QpInitAttributes.of(dev.createCompletionQueue(16), 8));
        registered = pd.registerMemory(ByteBuffer.allocateDirect(4 * MTU),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        qp.postRecv(new ReceiveWorkRequest().set(1, registered, 0, 64));
        qp.connect(QpConnection.of(peer.address(), PEER_QPN, 0x2000, OUR_RQ, MTU).withReadDepth(4, 4));
        if (handler != null) {
            qp.setAccessHandler(handler);
        }
        return qp;
    }

    private static List<String> opcodesAndPsns(LinuxPeer peer, int n) throws Exception {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ByteBuffer p = peer.receiveRc();
            out.add(Opcode.lookup(Bth.opcode(p, 0)) + "@" + Bth.psn(p, 0));
        }
        return out;
    }
}

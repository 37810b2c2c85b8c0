package io.vibridge.verbs.soft.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.SoftParams;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Opcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which packets of our requester ask for an ACK (BTH AckReq), read on the wire by a plain-socket responder: a
 * message with nothing behind it always does, so that its completion never waits for the retry timer; a message
 * with more queued behind it, which may start at once, leaves the asking to a later packet (ACKs are cumulative,
 * IB-WIRE-REFERENCE §4.4), at least every {@link SoftParams#MAX_PKT_PER_ACK} packets. The window is filled first,
 * so that later posts queue up and go out together when the peer's ACK opens it. A READ response acknowledges
 * the messages before it as an ACK does (rxe_comp.c check_psn): a message followed by a READ leaves it the asking.
 */
class AckRequestRateTest {
    private static final int PEER_QPN = 0x31;
    private static final int SQ_PSN = 0x4000;
    private static final int MTU = 1024;
    private static final int WINDOW = SoftParams.WINDOW;

    @Test
    void messagesQueuedBehindOthersLeaveTheAskingToTheLastOne() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Sender s = new Sender(dev, peer, 1);
            assertThat(s.fillWindow()).allMatch(p -> p.ackReq);     // alone when posted: each asks
            for (int i = 0; i < 3; i++) {                           // the window is shut: these wait
                s.send(1);
            }
            s.send(2 * MTU);                                        // two packets
            peer.sendAck(s.qp.qpNum(), SQ_PSN + 4, 5);              // opens five PSNs: all of them go
            assertThat(s.received(5)).extracting(Packet::describe).containsExactly(
                    "SEND_ONLY@" + (SQ_PSN + WINDOW),
                    "SEND_ONLY@" + (SQ_PSN + WINDOW + 1),
                    "SEND_ONLY@" + (SQ_PSN + WINDOW + 2),
                    "SEND_FIRST@" + (SQ_PSN + WINDOW + 3),
                    "SEND_LAST@" + (SQ_PSN + WINDOW + 4) + " AckReq");
        }
    }

    @Test
    void aLongQueueStillAsksEveryMaxPacketsPerAck() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Sender s = new Sender(dev, peer, 1);
            s.fillWindow();
            int queued = WINDOW;
            for (int i = 0; i < queued; i++) {
                s.send(1);
            }
            peer.sendAck(s.qp.qpNum(), SQ_PSN + WINDOW - 1, WINDOW);  // the whole window opens
            List<Packet> next = s.received(WINDOW);
            List<Integer> asking = new ArrayList<>();
            for (int i = 0; i < next.size(); i++) {
                if (next.get(i).ackReq) {
                    asking.add(i);
                }
            }
            int every = SoftParams.MAX_PKT_PER_ACK;
            assertThat(asking).containsExactly(every - 1, 2 * every - 1);   // the last queued is the 128th
        }
    }

    @Test
    void aMessageAsksWhenTheReadBehindItMustWaitForAnotherRead() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Sender s = new Sender(dev, peer, 1);                    // one READ in flight at most
            for (int i = 0; i < WINDOW - 1; i++) {
                s.send(1);
            }
            s.read();                                               // the window's last PSN
            s.received(WINDOW);
            s.send(1);
            s.read();                                               // behind it, blocked by the first READ
            peer.sendAck(s.qp.qpNum(), SQ_PSN, 1);                  // opens one PSN: the SEND goes alone
            assertThat(s.received(1)).extracting(Packet::describe)
                    .containsExactly("SEND_ONLY@" + (SQ_PSN + WINDOW) + " AckReq");
        }
    }

    @Test
    void aReadResponseCompletesTheMessageThatLeftTheAskingToIt() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Sender s = new Sender(dev, peer, 1);
            s.fillWindow();
            s.send(1);                                              // the window is shut: both wait
            s.read();                                               // behind the SEND, free to start at once
            peer.sendAck(s.qp.qpNum(), SQ_PSN + WINDOW - 1, WINDOW);
            assertThat(s.awaitCompletions(WINDOW)).hasSize(WINDOW);
            List<Packet> out = s.received(2);
            assertThat(out).extracting(Packet::describe).containsExactly(
                    "SEND_ONLY@" + (SQ_PSN + WINDOW), "RDMA_READ_REQUEST@" + (SQ_PSN + WINDOW + 1) + " AckReq");
            // rxe answers the READ; its response acknowledges the SEND before it too (rxe_comp.c check_psn)
            peer.sendReadResponse(Opcode.RDMA_READ_RESPONSE_ONLY, s.qp.qpNum(), SQ_PSN + WINDOW + 1, new byte[8]);
            assertThat(s.awaitCompletions(2)).containsExactly(s.wrId - 1, s.wrId);
        }
    }

    /** Our device's QP connected to the peer, with an ACK timeout long enough never to fire here. */
    private static final class Sender {
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion mr;
        final LinuxPeer peer;
        long wrId;

        Sender(VerbsDevice dev, LinuxPeer peer, int readDepth) throws Exception {
            this.peer = peer;
            ProtectionDomain pd = dev.allocateProtectionDomain();
            cq = dev.createCompletionQueue(1024);
            qp = pd.createQueuePair(QpInitAttributes.of(cq, 512));
            mr = pd.registerMemory(ByteBuffer.allocateDirect(4 * MTU), EnumSet.of(Access.LOCAL_WRITE));
            qp.connect(QpConnection.of(peer.address(), PEER_QPN, SQ_PSN, 0x100, MTU)
                    .withReadDepth(readDepth, readDepth).withRetries(7, 7, 24));
        }

        void send(int length) {
            qp.postSend(new SendWorkRequest().set(++wrId, WrOpcode.SEND, mr, 0, length));
        }

        void read() {
            qp.postSend(new SendWorkRequest().set(++wrId, WrOpcode.RDMA_READ, mr, 0, 8).remote(0x9000, 0x77));
        }

        /** The next {@code n} completions' work request ids, each a success, within 10 s. */
        List<Long> awaitCompletions(int n) throws InterruptedException {
            List<Long> ids = new ArrayList<>();
            WorkCompletion[] wc = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ids.size() < n) {
                if (cq.poll(wc) == 0) {
                    assertThat(System.nanoTime()).as("completion %d of %d", ids.size() + 1, n).isLessThan(end);
                    Thread.sleep(1);
                    continue;
                }
                assertThat(wc[0].status).isEqualTo(WcStatus.SUCCESS);
                ids.add(wc[0].wrId);
            }
            return ids;
        }

        /** Posts one-packet SENDs one by one until the window is full; returns them as the peer received them. */
        List<Packet> fillWindow() throws Exception {
            for (int i = 0; i < WINDOW; i++) {
                send(1);
            }
            return received(WINDOW);
        }

        List<Packet> received(int n) throws Exception {
            List<Packet> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ByteBuffer p = peer.receiveRc();
                out.add(new Packet(Opcode.lookup(Bth.opcode(p, 0)), Bth.psn(p, 0), Bth.ackRequest(p, 0)));
            }
            return out;
        }
    }

    private record Packet(Opcode op, int psn, boolean ackReq) {
        String describe() {
            return op + "@" + psn + (ackReq ? " AckReq" : "");
        }
    }
}

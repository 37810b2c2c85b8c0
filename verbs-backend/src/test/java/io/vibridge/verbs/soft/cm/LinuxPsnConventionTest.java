package io.vibridge.verbs.soft.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.AethKind;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmMad;
import io.vibridge.verbs.soft.wire.CmMessage;
import io.vibridge.verbs.soft.wire.CmPath;
import io.vibridge.verbs.soft.wire.CmRep;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.CmRtu;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketView;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.PathMtu;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Pins the PSN convention of Linux's IB CM (IB-WIRE-REFERENCE §5.3, §5.4, §5.7; Linux cm.c: ib_send_cm_req
 * keeps the REQ's Starting PSN as the active side's rq_psn, cm_rep_handler takes the REP's as its sq_psn, and
 * the passive side the reverse): the Starting PSN a side puts in its REQ or REP is the PSN that side
 * RECEIVES first. The peer here is a plain UDP socket speaking through the wire codecs as Linux would, so a
 * regression to the old reading (both ends of ours agreeing on the wrong one) fails without the VM suite.
 */
class LinuxPsnConventionTest {
    private static final long SID = 0x0000000001064E20L;
    private static final int PEER_QPN = 0x11;

    /** Our engine connects; the Linux-like peer answers REP: we send from the REP's PSN and expect the REQ's. */
    @Test
    void activeSideSendsFromTheRepPsnAndExpectsItsOwnReqPsn() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Ends ends = new Ends(dev);
            BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            dev.connectionManager().connect(ConnectParams.defaults(peer.address(), SID, null), ends.qp, events::add,
                    null);
            CmMad reqMad = peer.receiveCm();
            CmReq req = (CmReq) reqMad.message();
            int peerExpects = 0x00F00D;                              // the passive side's rq_psn, sent in its REP
            peer.sendCm(CmRep.rc(0x2222, req.localCommId(), PEER_QPN, peerExpects, 4, 4, 15, 7, 1L, new byte[0]),
                    reqMad.header().transactionId());
            assertThat(peer.receiveCm().message()).isInstanceOf(CmRtu.class);
            assertThat(events.poll(10, TimeUnit.SECONDS)).isInstanceOf(CmEvent.Established.class);

            exchange(ends, peer, req.startingPsn(), peerExpects);
        }
    }

    /** The Linux-like peer connects; our engine accepts: we send from the REQ's PSN and expect our REP's. */
    @Test
    void passiveSideSendsFromTheReqPsnAndExpectsItsOwnRepPsn() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Ends ends = new Ends(dev);
            BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            try (var _ = dev.connectionManager().listen(SID, events::add, null)) {
                int peerExpects = 0xABCDEF;                          // the active side's rq_psn, sent in its REQ
                peer.sendCm(CmReq.rc(0x1111, SID, 1L, PEER_QPN, peerExpects, 4, 4, 20, 20, 7, 7, PathMtu.MTU_1024,
                        15, CmPath.roce(Gid.of(peer.address()), Gid.of(dev.address()), 0, 64, 17), new byte[0]), 0x77);
                CmEvent.ConnectRequest cr = (CmEvent.ConnectRequest) events.poll(10, TimeUnit.SECONDS);
                assertThat(cr).isNotNull();
                cr.id().accept(ends.qp, AcceptParams.defaults(new byte[0]));
                CmRep rep = (CmRep) peer.receiveCm().message();
                peer.sendCm(new CmRtu(0x1111, rep.localCommId(), null), 0x77);

                exchange(ends, peer, rep.startingPsn(), peerExpects);
            }
        }
    }

    /** Out of band (ibv_modify_qp): sendPsn is what goes on the wire first, receivePsn what is accepted. */
    @Test
    void outOfBandConnectionUsesTheNamedPsns() throws Exception {
        try (VerbsDevice dev = TestDevices.open(); LinuxPeer peer = new LinuxPeer(dev)) {
            Ends ends = new Ends(dev);
            int ourSq = 0x123456;
            int ourRq = 0x654321;
            ends.qp.connect(QpConnection.of(peer.address(), PEER_QPN, ourSq, ourRq, 1024));
            exchange(ends, peer, ourRq, ourSq);
        }
    }

    /**
     * Our QP must accept the peer's SEND at {@code weExpect} (completion and ACK of that PSN) and send its own
     * first packet at {@code weSendFrom}.
     */
    private static void exchange(Ends ends, LinuxPeer peer, int weExpect, int weSendFrom) throws Exception {
        byte[] hello = "from linux".getBytes();
        peer.sendRc(Opcode.SEND_ONLY, ends.qp.qpNum(), weExpect, hello);
        ByteBuffer ack = peer.receiveRc();
        assertThat(Opcode.lookup(Bth.opcode(ack, 0))).isEqualTo(Opcode.ACKNOWLEDGE);
        assertThat(Bth.psn(ack, 0)).isEqualTo(weExpect);
        assertThat(Bth.destQp(ack, 0)).isEqualTo(PEER_QPN);
        assertThat(Aeth.kind(Aeth.syndrome(ack, Bth.LENGTH))).isEqualTo(AethKind.ACK);
        WorkCompletion wc = ends.awaitCompletion();
        assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.byteLength).isEqualTo(hello.length);

        ends.qp.postSend(new SendWorkRequest().set(7, WrOpcode.SEND, ends.mr, 0, 8));
        ByteBuffer first = peer.receiveRc();
        assertThat(Opcode.lookup(Bth.opcode(first, 0))).isEqualTo(Opcode.SEND_ONLY);
        assertThat(Bth.psn(first, 0)).isEqualTo(weSendFrom);
        assertThat(Bth.destQp(first, 0)).isEqualTo(PEER_QPN);
    }

    /** Our side: one QP with a receive posted on a 4 KiB region. */
    private static final class Ends {
        final QueuePair qp;
        final MemoryRegion mr;
        final CompletionQueue cq;

        Ends(VerbsDevice dev) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            cq = dev.createCompletionQueue(16);
            qp = pd.createQueuePair(QpInitAttributes.of(cq, 8));
            mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), EnumSet.of(Access.LOCAL_WRITE));
            qp.postRecv(new ReceiveWorkRequest().set(1, mr, 0, 4096));
        }

        WorkCompletion awaitCompletion() throws InterruptedException {
            WorkCompletion[] out = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cq.poll(out) == 0) {
                assertThat(System.nanoTime()).as("a completion within 10 s").isLessThan(end);
                Thread.sleep(1);
            }
            return out[0];
        }
    }
}

package io.vibridge.verbs.soft.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmMad;
import io.vibridge.verbs.soft.wire.CmPath;
import io.vibridge.verbs.soft.wire.CmRej;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.Mad;
import io.vibridge.verbs.soft.wire.MadHeader;
import io.vibridge.verbs.soft.wire.PacketView;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.PathMtu;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The engine against peers that are plain UDP sockets speaking through the wire package's codec: a
 * REQ whose ICRC is valid only for a non-zero IP ID (as rxe sends) is accepted through the any-ID
 * fallback and answered with REJ 8; a corrupted copy is dropped and counted.
 */
class CmInteropTest {
    /** A REQ as rdma_cm sends it over RoCEv2, from {@code src} to {@code dst}. */
    private static CmReq req(long sid, int src, int dst) {
        byte[] pd = new byte[92];
        Arrays.fill(pd, (byte) 0x33);
        return CmReq.rc(0x01234567, sid, 0x5054_00FF_FE00_00AAL, 0x11, 0xABCDEF, 4, 3, 20, 19, 6, 7, 5, 15,
                CmPath.roce(Gid.ofIpv4(src), Gid.ofIpv4(dst), 0, 64, 17), pd);
    }

    /** The engine's REQ as a plain peer decodes it: every field from ConnectParams, RoCE path as rdma_cm (§5.3). */
    @Test
    void engineReqDecodesToTheRdmaCmFields() throws Exception {
        try (VerbsDevice dev = TestDevices.open();
             DatagramChannel raw = TestDevices.bindRaw(4791)) {
            InetAddress peer = ((InetSocketAddress) raw.getLocalAddress()).getAddress();
            byte[] pd = {1, 2, 3};
            ConnectParams p = new ConnectParams(peer, 0x0000000001064E20L, pd, 3, 2, 6, 5, 16, 18, 1, 1024, 12);
            QueuePair qp = dev.allocateProtectionDomain()
                    .createQueuePair(QpInitAttributes.of(dev.createCompletionQueue(8), 4));
            CmId id = dev.connectionManager().connect(p, qp, e -> { }, null);
            ByteBuffer in = ByteBuffer.allocate(2048);
            raw.receive(in);
            in.flip();
            assertThat(in.limit()).isEqualTo(Mad.PACKET_LENGTH);
            PacketView v = new PacketView().wrap(in, 0, in.limit());
            CmMad mad = v.gsiMad();
            CmReq r = (CmReq) mad.message();
            assertThat(r.localCommId()).isEqualTo(id.localCommId());
            assertThat(r.localQpn()).isEqualTo(qp.qpNum());
            CmReq expected = CmReq.rc(id.localCommId(), 0x0000000001064E20L, r.localCaGuid(), qp.qpNum(),
                    r.startingPsn(), 3, 2, 18, 18, 6, 5, PathMtu.MTU_1024, 1,
                    CmPath.roce(Gid.of(dev.address()), Gid.of(peer), 0, 64, 16), pd);
            assertThat(r).isEqualTo(expected);
            assertThat(mad.header()).isEqualTo(MadHeader.cmSend(mad.header().transactionId(), Mad.ATTR_REQ));
            qp.close();
        }
    }

    @Test
    void reqFromAPeerWithNonZeroIpIdIsAnsweredAndACorruptCopyDropped() throws Exception {
        try (VerbsDevice dev = TestDevices.open();
             DatagramChannel raw = TestDevices.bindRaw(4791)) {
            InetSocketAddress devAddr = new InetSocketAddress(dev.address(), 4791);
            ByteBuffer pkt = ByteBuffer.allocate(280);
            int src = ByteBuffer.wrap(((InetSocketAddress) raw.getLocalAddress()).getAddress().getAddress()).getInt();
            int dst = ByteBuffer.wrap(dev.address().getAddress()).getInt();
            CmCodec.writeGsiPacket(new PacketWriter(), pkt, 0, 1, req(0x0000000001069999L, src, dst), 0x42);
            Icrc icrc = new Icrc();
            int crc = icrc.computeIpv4(src, dst, 59391, true, 4791, 4791, pkt, 0, 280);
            Icrc.writeTrailer(pkt, 0, 280, crc);
            raw.send(pkt.duplicate().clear(), devAddr);
            ByteBuffer in = ByteBuffer.allocate(2048);
            raw.receive(in);
            in.flip();
            assertThat(in.limit()).isEqualTo(280);
            assertThat(icrc.verifyIpv4(dst, src, 4791, 4791, in, 0, 280, false).name()).isEqualTo("VALID");
            CmRej rej = (CmRej) CmCodec.decodeMad(in, 20).message();
            assertThat(rej.reason()).isEqualTo(8);
            assertThat(rej.remoteCommId()).isEqualTo(0x01234567);
            assertThat(CmCodec.decodeMad(in, 20).header().transactionId()).isEqualTo(0x42);
            assertThat(dev.counters().icrcAnyIdAccepts()).isEqualTo(1);

            pkt.put(100, (byte) (pkt.get(100) ^ 1));
            raw.send(pkt.duplicate().clear(), devAddr);
            long end = System.nanoTime() + 30_000_000_000L;
            while (dev.counters().icrcDrops() == 0 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertThat(dev.counters().icrcDrops()).isEqualTo(1);
        }
    }
}

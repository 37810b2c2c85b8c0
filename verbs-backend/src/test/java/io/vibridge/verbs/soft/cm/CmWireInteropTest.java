package io.vibridge.verbs.soft.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmMad;
import io.vibridge.verbs.soft.wire.CmRej;
import io.vibridge.verbs.soft.wire.CmRep;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.Icrc;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The engine's private CM encoder against the wire package's reference codec, and a hand-made REQ from a
 * plain UDP socket whose ICRC is valid only for a non-zero IP ID (as rxe sends): accepted through the
 * any-ID fallback and answered with REJ 8; a corrupted copy is dropped and counted.
 */
class CmWireInteropTest {
    private static byte[] gid(int last) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        g[12] = 127;
        g[15] = (byte) last;
        return g;
    }

    private static CmWire.Req req(long sid) {
        byte[] pd = new byte[92];
        Arrays.fill(pd, (byte) 0x33);
        return new CmWire.Req(0x01234567, sid, 0x5054_00FF_FE00_00AAL, 0x11, 4, 3, 20, 0xABCDEF, 19, 6, 5, 7, 15,
                gid(18), gid(17), 17, pd);
    }

    /** IB-WIRE-REFERENCE §5.6: the worked REQ's MAD (datagram bytes 0x30..0x12F), as printed. */
    @Test
    void workedReqOfTheReferenceIsReproducedByteForByte() {
        String[] rows = {
            "01 07 02 03 00 00 00 00 00 00 00 01 01 23 45 67",
            "00 10 00 00 00 00 00 00 01 23 45 67 00 00 00 00",
            "00 00 00 00 01 06 4e 20 50 54 00 ff fe 00 00 aa",
            "00 00 00 00 00 00 00 00 00 00 11 04 00 00 00 04",
            "00 00 00 a0 ab cd ef a7 ff ff 37 f0 ff ff ff ff",
            "00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 0a",
            "00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 14",
            "00 00 00 00 00 40 00 98 00 00 00 00 00 00 00 00"};
        byte[] expected = new byte[256];
        for (int r = 0; r < rows.length; r++) {
            String[] hex = rows[r].split(" ");
            for (int i = 0; i < 16; i++) {
                expected[r * 16 + i] = (byte) Integer.parseInt(hex[i], 16);
            }
        }
        byte[] cma = new byte[92];
        byte[] head = {0x00, 0x40, (byte) 0x9c, 0x40};
        System.arraycopy(head, 0, cma, 0, 4);
        byte[] src = {(byte) 0xc0, (byte) 0xa8, 1, 0x0a};
        byte[] dst = {(byte) 0xc0, (byte) 0xa8, 1, 0x14};
        System.arraycopy(src, 0, cma, 16, 4);
        System.arraycopy(dst, 0, cma, 32, 4);
        System.arraycopy(cma, 0, expected, 24 + 140, 92);
        byte[] lg = new byte[16];
        byte[] rg = new byte[16];
        lg[10] = rg[10] = (byte) 0xFF;
        lg[11] = rg[11] = (byte) 0xFF;
        System.arraycopy(src, 0, lg, 12, 4);
        System.arraycopy(dst, 0, rg, 12, 4);
        ByteBuffer mad = ByteBuffer.allocate(256);
        CmWire.encode(new CmWire.Req(0x01234567, 0x0000000001064E20L, 0x5054_00FF_FE00_00AAL, 0x11, 4, 4, 20,
                0xABCDEF, 20, 7, 3, 7, 15, lg, rg, 19, cma), 0x0000000101234567L, mad, 0);
        assertThat(mad.array()).isEqualTo(expected);
    }

    @Test
    void reqRepRejDecodeWithTheReferenceCodec() {
        ByteBuffer mad = ByteBuffer.allocate(256);
        CmWire.encode(req(0x0000000001064E20L), 0x0000000101234567L, mad, 0);
        CmMad m = CmCodec.decodeMad(mad, 0);
        assertThat(m.header().transactionId()).isEqualTo(0x0000000101234567L);
        CmReq r = (CmReq) m.message();
        assertThat(r.localCommId()).isEqualTo(0x01234567);
        assertThat(r.serviceId()).isEqualTo(0x0000000001064E20L);
        assertThat(r.localQpn()).isEqualTo(0x11);
        assertThat(r.responderResources()).isEqualTo(4);
        assertThat(r.initiatorDepth()).isEqualTo(3);
        assertThat(r.remoteCmResponseTimeout()).isEqualTo(20);
        assertThat(r.localCmResponseTimeout()).isEqualTo(19);
        assertThat(r.transportServiceType()).isZero();
        assertThat(r.startingPsn()).isEqualTo(0xABCDEF);
        assertThat(r.retryCount()).isEqualTo(6);
        assertThat(r.rnrRetryCount()).isEqualTo(7);
        assertThat(r.pathMtu()).isEqualTo(5);
        assertThat(r.maxCmRetries()).isEqualTo(15);
        assertThat(r.partitionKey()).isEqualTo(0xFFFF);
        assertThat(r.primaryPath().localAckTimeout()).isEqualTo(17);
        assertThat(r.primaryPath().hopLimit()).isEqualTo(64);
        assertThat(r.primaryPath().localLid()).isEqualTo(0xFFFF);
        assertThat(r.privateData()).hasSize(92).containsOnly(0x33);

        CmWire.encode(new CmWire.Rep(5, 6, 0x22, 0x123456, 4, 2, 15, 7, 99L, new byte[] {1, 2}), 7, mad, 0);
        CmRep rep = (CmRep) CmCodec.decodeMad(mad, 0).message();
        assertThat(rep.localCommId()).isEqualTo(5);
        assertThat(rep.remoteCommId()).isEqualTo(6);
        assertThat(rep.localQpn()).isEqualTo(0x22);
        assertThat(rep.startingPsn()).isEqualTo(0x123456);
        assertThat(rep.responderResources()).isEqualTo(4);
        assertThat(rep.initiatorDepth()).isEqualTo(2);
        assertThat(rep.targetAckDelay()).isEqualTo(15);
        assertThat(rep.rnrRetryCount()).isEqualTo(7);
        assertThat(rep.localCaGuid()).isEqualTo(99L);
        assertThat(rep.privateData()).startsWith(1, 2);

        CmWire.encode(new CmWire.Rej(0, 0x01234567, 0, 8, new byte[0]), 7, mad, 0);
        CmRej rej = (CmRej) CmCodec.decodeMad(mad, 0).message();
        assertThat(rej.reason()).isEqualTo(8);
        assertThat(rej.remoteCommId()).isEqualTo(0x01234567);

        byte[] guid = {1, 2, 3, 4, 5, 6, 7, 8};
        CmWire.encode(new CmWire.Rej(9, 0, 0, 4, guid, new byte[] {5}), 7, mad, 0);
        CmRej timeout = (CmRej) CmCodec.decodeMad(mad, 0).message();
        assertThat(timeout.reason()).isEqualTo(4);
        assertThat(timeout.additionalRejectInfo()).isEqualTo(guid);
        assertThat(timeout.privateData()).startsWith(5);
        assertThat(((CmWire.Rej) CmWire.decode(mad, 0)).ari()).isEqualTo(guid);
    }

    @Test
    void reqFromAPeerWithNonZeroIpIdIsAnsweredAndACorruptCopyDropped() throws Exception {
        try (VerbsDevice dev = TestDevices.open();
             DatagramChannel raw = TestDevices.bindRaw(4791)) {
            InetSocketAddress devAddr = new InetSocketAddress(dev.address(), 4791);
            ByteBuffer pkt = ByteBuffer.allocate(280);
            pkt.put(0, (byte) 0x64).putShort(2, (short) 0xFFFF).putInt(4, 1).putInt(8, 1);
            pkt.putInt(12, 0x80010000).putInt(16, 1);
            int src = ByteBuffer.wrap(((InetSocketAddress) raw.getLocalAddress()).getAddress().getAddress()).getInt();
            int dst = ByteBuffer.wrap(dev.address().getAddress()).getInt();
            CmWire.Req req = req(0x0000000001069999L);
            byte[] localGid = gid(0);
            byte[] remoteGid = dev.gid();
            System.arraycopy(ByteBuffer.allocate(4).putInt(src).array(), 0, localGid, 12, 4);
            req = new CmWire.Req(req.localCommId(), req.serviceId(), req.caGuid(), req.localQpn(),
                    req.responderResources(), req.initiatorDepth(), req.remoteCmTimeout(), req.startingPsn(),
                    req.localCmTimeout(), req.retryCount(), req.mtuCode(), req.rnrRetry(), req.maxCmRetries(),
                    localGid, remoteGid, req.localAckTimeout(), req.privateData());
            CmWire.encode(req, 0x42, pkt, 20);
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

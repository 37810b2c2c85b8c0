package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class CmCodecTest {

    /** REF §5.6: the worked REQ, IPv4 header onward (308 bytes), rows as printed. */
    static byte[] workedReq() {
        byte[] d = new byte[308];
        row(d, 0x00, "45 00 01 34 12 34 40 00 40 11 a4 16 c0 a8 01 0a");
        row(d, 0x10, "c0 a8 01 14 c0 01 12 b7 01 20 00 00 64 00 ff ff");
        row(d, 0x20, "00 00 00 01 00 00 00 00 80 01 00 00 00 00 00 01");
        row(d, 0x30, "01 07 02 03 00 00 00 00 00 00 00 01 01 23 45 67");
        row(d, 0x40, "00 10 00 00 00 00 00 00 01 23 45 67 00 00 00 00");
        row(d, 0x50, "00 00 00 00 01 06 4e 20 50 54 00 ff fe 00 00 aa");
        row(d, 0x60, "00 00 00 00 00 00 00 00 00 00 11 04 00 00 00 04");
        row(d, 0x70, "00 00 00 a0 ab cd ef a7 ff ff 37 f0 ff ff ff ff");
        row(d, 0x80, "00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 0a");
        row(d, 0x90, "00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 14");
        row(d, 0xa0, "00 00 00 00 00 40 00 98 00 00 00 00 00 00 00 00");
        row(d, 0xd0, "00 00 00 00 00 40 9c 40 00 00 00 00 00 00 00 00");
        row(d, 0xe0, "00 00 00 00 c0 a8 01 0a 00 00 00 00 00 00 00 00");
        row(d, 0xf0, "00 00 00 00 c0 a8 01 14 00 00");
        row(d, 0x130, "b7 63 74 ea");
        return d;
    }

    private static void row(byte[] d, int at, String hex) {
        byte[] b = Hex.bytes(hex);
        System.arraycopy(b, 0, d, at, b.length);
    }

    static byte[] cmaHeader() {
        return Hex.bytes("00 40 9c 40" + "00".repeat(12) + "c0 a8 01 0a" + "00".repeat(12) + "c0 a8 01 14");
    }

    static CmReq workedReqMessage() {
        Gid local = Gid.ofIpv4(0xC0A8_010A);
        Gid remote = Gid.ofIpv4(0xC0A8_0114);
        return CmReq.rc(0x0123_4567, 0x0000_0000_0106_4E20L, 0x5054_00FF_FE00_00AAL, 0x11, 0xABCDEF, 4, 4, 20, 20, 7,
            7, 3, 15, CmPath.roce(local, remote, 0, 64, 19), cmaHeader());
    }

    @Test
    void workedReqDecodesAndReencodesByteForByte() {
        byte[] dgram = workedReq();
        assertThat(ReferenceIcrc.compute(dgram)).isEqualTo(0xEA7463B7).isEqualTo(ReferenceIcrc.trailer(dgram));
        ByteBuffer ip = ByteBuffer.wrap(dgram);
        PacketView view = new PacketView().wrap(ip, 28, 280);
        assertThat(view.opcode()).isEqualTo(Opcode.UD_SEND_ONLY);
        assertThat(view.dethSrcQp()).isEqualTo(1);
        CmMad mad = view.gsiMad();
        assertThat(mad.header()).isEqualTo(MadHeader.cmSend(0x0000_0001_0123_4567L, Mad.ATTR_REQ));
        assertThat(mad.message()).isEqualTo(workedReqMessage());
        CmReq req = (CmReq) mad.message();
        assertThat(req.primaryPath().localGid().toString()).isEqualTo("192.168.1.10");
        assertThat(req.primaryPath().remoteGid().toString()).isEqualTo("192.168.1.20");

        ByteBuffer out = ByteBuffer.allocate(280);
        int len = CmCodec.writeGsiPacket(new PacketWriter(), out, 0, 0, workedReqMessage(), 0x0000_0001_0123_4567L);
        assertThat(len).isEqualTo(280);
        Icrc icrc = new Icrc();
        Icrc.writeTrailer(out, 0, len,
            icrc.computeIpv4(0xC0A8_010A, 0xC0A8_0114, 0x1234, true, 0xC001, 4791, out, 0, len));
        assertThat(out.array()).isEqualTo(Arrays.copyOfRange(dgram, 28, 308));
        // The receive path finds the example's IP ID through the fallback.
        assertThat(icrc.verifyAnyIpId(0xC0A8_010A, 0xC0A8_0114, 0xC001, 4791, ip, 28, 280)).isEqualTo(0x1234);
    }

    private static byte[] madHeader(int attr, String tid) {
        return Hex.bytes("01 07 02 03 00 00 00 00" + tid + String.format("%04x", attr) + "00 00 00 00 00 00");
    }

    private static void assertGolden(CmMessage m, long tid, String dataHex) {
        byte[] data = Hex.bytes(dataHex);
        byte[] expected = new byte[256];
        System.arraycopy(madHeader(m.attributeId(), String.format("%016x", tid)), 0, expected, 0, 24);
        System.arraycopy(data, 0, expected, 24, data.length);
        ByteBuffer out = ByteBuffer.allocate(300);
        out.position(10);
        CmCodec.encodeMad(m, tid, out);
        assertThat(out.position()).isEqualTo(266);
        assertThat(Arrays.copyOfRange(out.array(), 10, 266)).isEqualTo(expected);
        ByteBuffer in = ByteBuffer.wrap(expected);
        CmMad mad = CmCodec.decodeMad(in);
        assertThat(in.position()).isEqualTo(256);
        assertThat(mad.message()).isEqualTo(m);
        assertThat(mad.header().transactionId()).isEqualTo(tid);
    }

    @Test
    void repGolden() {
        CmRep rep = new CmRep(0x89AB_CDEF, 0x0123_4567, 0, 0x22, 0xABCDEF, 0, 0x123456, 4, 3, 15, 2, true, 7, true,
            0x5254_00FF_FE00_0001L, new byte[] {1, 2, 3});
        assertGolden(rep, 0x0000_0001_0123_4567L, """
            89 ab cd ef 01 23 45 67 00 00 00 00 00 00 22 ab
            00 00 00 cd 12 34 56 ef 04 03 7d f0 52 54 00 ff
            fe 00 00 01 01 02 03""");
        CmRep plain = CmRep.rc(0x89AB_CDEF, 0x0123_4567, 0x22, 0x123456, 4, 4, 15, 7, 0x5254_00FF_FE00_0001L, null);
        assertGolden(plain, 1, """
            89 ab cd ef 01 23 45 67 00 00 00 00 00 00 22 00
            00 00 00 00 12 34 56 00 04 04 78 e0 52 54 00 ff
            fe 00 00 01""");
        assertThat(plain.privateData()).hasSize(196).containsOnly(0);
    }

    @Test
    void rtuDrepDreqGolden() {
        assertGolden(new CmRtu(0x0123_4567, 0x89AB_CDEF, new byte[] {(byte) 0xAA, (byte) 0xBB}), 7,
            "01 23 45 67 89 ab cd ef aa bb");
        assertGolden(new CmDrep(0x0123_4567, 0x89AB_CDEF, new byte[224]), 7, "01 23 45 67 89 ab cd ef");
        byte[] full = new byte[224];
        Arrays.fill(full, (byte) 0x5A);
        assertGolden(new CmDrep(1, 2, full), 9, "00 00 00 01 00 00 00 02" + "5a".repeat(224));
        assertGolden(new CmDreq(0x0123_4567, 0x89AB_CDEF, 0x22, new byte[] {9}), 0x0000_0002_0123_4567L,
            "01 23 45 67 89 ab cd ef 00 00 22 00 09");
    }

    @Test
    void rejGolden() {
        // No listener: REJ 8, Message Rejected = REQ, Local Comm ID 0 (REF §5.9).
        assertGolden(CmRej.of(0, 0x0123_4567, CmTargetMessage.REQ, CmRejectReason.INVALID_SERVICE_ID), 5,
            "00 00 00 00 01 23 45 67 00 00 00 08");
        // Timeout with the CA GUID as ARI, rejecting a REP, with private data.
        CmRej timeout = new CmRej(0x11, 0x22, CmTargetMessage.REP, CmRejectReason.TIMEOUT.code(),
            Hex.bytes("52 54 00 ff fe 00 00 01"), new byte[] {7});
        assertGolden(timeout, 5, "00 00 00 11 00 00 00 22 40 10 00 04 52 54 00 ff fe 00 00 01"
            + "00".repeat(64) + "07");
        assertThat(timeout.rejectReason()).isEqualTo(CmRejectReason.TIMEOUT);
        assertGolden(new CmRej(0, 1, CmTargetMessage.OTHER, 28, null, null), 5, "00 00 00 00 00 00 00 01 80 00 00 1c");
        assertThat(CmRejectReason.of(28)).isEqualTo(CmRejectReason.CONSUMER_REJECT);
        assertThat(CmRejectReason.of(1)).isEqualTo(CmRejectReason.NO_QP);
        assertThat(CmRejectReason.of(10)).isEqualTo(CmRejectReason.STALE_CONNECTION);
        assertThat(CmRejectReason.of(34)).isNull();
    }

    @Test
    void mraGolden() {
        assertGolden(new CmMra(0x0123_4567, 0x89AB_CDEF, CmTargetMessage.REP, 24, new byte[] {1}), 3,
            "01 23 45 67 89 ab cd ef 40 c0 01");
        assertGolden(new CmMra(1, 2, CmTargetMessage.REQ, 31, null), 3, "00 00 00 01 00 00 00 02 00 f8");
    }

    @Test
    void reqBitFieldsGolden() {
        // Every non-default bit of REQ bytes 40-51 and the path bytes, hand-placed.
        CmPath primary = new CmPath(0x1234, 0x5678, Gid.ofIpv4(0x0A00_0001), Gid.ofIpv4(0x0A00_0002), 0xABCDE, 0x2A,
            0x12, 0x01, 0xC, true, 0x1F);
        CmReq req = new CmReq(1, 0x010203, 2, 3, 4, 5, 6, 7, 8, 9, 0x1F, 3, true, 0x0A0B0C, 0x11, 5, 0x8001, 5, true,
            6, 0xE, true, 1, primary, CmPath.NONE, true, null);
        assertGolden(req, 0, """
            00 00 00 01 00 01 02 03 00 00 00 00 00 00 00 02
            00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04
            00 00 05 06 00 00 07 08 00 00 09 ff 0a 0b 0c 8d
            80 01 5e e9 12 34 56 78 00 00 00 00 00 00 00 00
            00 00 ff ff 0a 00 00 01 00 00 00 00 00 00 00 00
            00 00 ff ff 0a 00 00 02 ab cd e0 2a 12 01 c8 f8
            """ + "00".repeat(43) + "04");
    }

    @Test
    void privateDataLimits() {
        assertThatThrownBy(() -> new CmReq(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, false, 0, 0,
            false, 0, CmPath.NONE, CmPath.NONE, false, new byte[93])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmRep(1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, false, 0, new byte[197]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmRtu(1, 2, new byte[225])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmRej(1, 2, CmTargetMessage.REQ, 1, new byte[73], null))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmRej(1, 2, CmTargetMessage.REQ, 1, null, new byte[149]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmDreq(1, 2, 3, new byte[221])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmDrep(1, 2, new byte[225])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmMra(1, 2, CmTargetMessage.REQ, 0, new byte[223]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(new CmRtu(1, 2, new byte[] {1}).privateData()).hasSize(224);
        assertThat(new CmMra(1, 2, CmTargetMessage.REQ, 0, null).privateData()).hasSize(222);
        assertThat(new CmDreq(1, 2, 3, null).privateData()).hasSize(220);
        assertThat(new CmRej(1, 2, CmTargetMessage.REQ, 1, null, null).privateData()).hasSize(148);
        // Records are immutable: the caller's array and the returned copy are detached.
        byte[] pd = {1, 2};
        CmRtu rtu = new CmRtu(1, 2, pd);
        pd[0] = 9;
        rtu.privateData()[1] = 9;
        assertThat(rtu.privateData()[0]).isEqualTo((byte) 1);
        assertThat(rtu.privateData()[1]).isEqualTo((byte) 2);
    }

    @Test
    void headerChecks() {
        ByteBuffer mad = ByteBuffer.allocate(256);
        CmCodec.encodeMad(new CmRtu(1, 2, null), 1, mad);
        assertRejected(mad, 0, 2, "mad.baseVersion", 0);
        assertRejected(mad, 1, 0x04, "mad.mgmtClass", 1);
        assertRejected(mad, 2, 1, "mad.classVersion", 2);
        assertRejected(mad, 3, 0x81, "mad.method", 3);
        assertRejected(mad, 17, 0x17, "mad.attributeId", 16); // SIDR_REQ is not supported
        assertThatThrownBy(() -> CmCodec.decodeMad(ByteBuffer.allocate(255)))
            .isInstanceOf(MalformedPacketException.class);
        ByteBuffer rej = ByteBuffer.allocate(256);
        CmCodec.encodeMad(CmRej.of(0, 1, CmTargetMessage.REQ, CmRejectReason.NO_QP), 1, rej);
        assertRejected(rej, 24 + 9, 73 << 1, "cm.rej.rejectInfoLength", 33);
        assertRejected(rej, 24 + 8, 0xC0, "cm.messageType", 32);
    }

    private static void assertRejected(ByteBuffer mad, int at, int value, String field, int offset) {
        byte[] copy = mad.array().clone();
        copy[at] = (byte) value;
        assertThatThrownBy(() -> CmCodec.decodeMad(ByteBuffer.wrap(copy)))
            .isInstanceOfSatisfying(MalformedPacketException.class, e -> {
                assertThat(e.field()).isEqualTo(field);
                assertThat(e.offset()).isEqualTo(offset);
            });
    }

    @Test
    void gsiPacketChecks() {
        ByteBuffer b = ByteBuffer.allocate(280);
        PacketWriter w = new PacketWriter();
        CmCodec.writeGsiPacket(w, b, 0, 5, new CmDrep(1, 2, null), 3);
        PacketView v = new PacketView().wrap(b, 0, 280);
        assertThat(v.dethQkey()).isEqualTo(0x8001_0000);
        assertThat(v.dethSrcQp()).isEqualTo(1);
        assertThat(v.destQp()).isEqualTo(1);
        assertThat(v.pkey()).isEqualTo(0xFFFF);
        assertThat(v.ackRequest()).isFalse();
        assertThat(v.gsiMad().message()).isEqualTo(new CmDrep(1, 2, null));
        b.putInt(12, 0x0123_4567); // wrong Q_Key
        assertThatThrownBy(() -> new PacketView().wrap(b, 0, 280).gsiMad())
            .isInstanceOfSatisfying(MalformedPacketException.class, e -> assertThat(e.field()).isEqualTo("deth.qkey"));
    }

    @Property(tries = 2000, seed = "5")
    void roundTrip(@ForAll long seed) {
        Random r = new Random(seed);
        CmMessage m = CmSamples.random(r);
        long tid = r.nextLong();
        ByteBuffer out = ByteBuffer.allocate(256);
        CmCodec.encodeMad(m, tid, out);
        CmMad mad = CmCodec.decodeMad(ByteBuffer.wrap(out.array()));
        assertThat(mad.message()).isEqualTo(m);
        assertThat(mad.message().hashCode()).isEqualTo(m.hashCode());
        assertThat(mad.header()).isEqualTo(MadHeader.cmSend(tid, m.attributeId()));
        ByteBuffer again = ByteBuffer.allocate(256);
        CmCodec.encodeMad(mad.message(), tid, again);
        assertThat(again.array()).isEqualTo(out.array());
    }

    /** 100,000 random and mutated MADs: only MalformedPacketException escapes. */
    @Test
    void fuzz() {
        Random r = new Random(0x0707);
        ByteBuffer mad = ByteBuffer.allocate(256);
        int decoded = 0;
        for (int i = 0; i < 100_000; i++) {
            if (i % 4 == 0) {
                r.nextBytes(mad.array());
                if (r.nextBoolean()) {
                    MadHeader.cmSend(r.nextLong(), 0x10 + r.nextInt(10)).write(mad, 0);
                }
            } else {
                mad.clear();
                CmCodec.encodeMad(CmSamples.random(r), r.nextLong(), mad);
                int flips = 1 + r.nextInt(8);
                for (int k = 0; k < flips; k++) {
                    mad.put(r.nextInt(256), (byte) r.nextInt(256));
                }
            }
            ByteBuffer in = ByteBuffer.wrap(mad.array(), 0, i % 97 == 0 ? r.nextInt(256) : 256);
            try {
                CmMad m = CmCodec.decodeMad(in);
                decoded++;
                ByteBuffer again = ByteBuffer.allocate(256);
                CmCodec.encodeMad(m.message(), m.header().transactionId(), m.header().attributeModifier(), again, 0);
                assertThat(CmCodec.decodeMad(again, 0).message()).isEqualTo(m.message());
            } catch (MalformedPacketException expected) {
                assertThat(expected.field()).isNotBlank();
            } catch (RuntimeException e) {
                fail("input " + i + " escaped with " + e, e);
            }
        }
        assertThat(decoded).isBetween(10_000, 99_000);
    }
}

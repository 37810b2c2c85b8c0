package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Independent decoding: our encoder's bytes, written to a pcap, must be decoded by Wireshark's
 * InfiniBand/RRoCE dissector (tshark) into the values we meant, without malformed or warning
 * expert info. Skipped only where tshark is not installed.
 *
 * <p>Wireshark (through 4.x) displays the ICRC but does not verify it; the test checks that the
 * ICRC it reports is the trailer we wrote and that a naive recomputation over the exact datagram
 * in the file ({@link ReferenceIcrc}) matches it.
 */
class TsharkDecodeTest {

    private static final int A = 0x0A00_0001; // 10.0.0.1, active side, QPN 0x11
    private static final int B = 0x0A00_0002; // 10.0.0.2, passive side, QPN 0x22
    private static final long SERVICE_ID = 0x0000_0000_0002_1234L;
    private static final long TID = 0x0000_0001_CAFE_0001L;

    private static String tshark;

    @TempDir
    Path dir;

    @BeforeAll
    static void findTshark() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String p : path.split(File.pathSeparator)) {
                File f = new File(p, "tshark");
                if (f.canExecute()) {
                    tshark = f.getAbsolutePath();
                    break;
                }
            }
        }
    }

    private final Icrc icrc = new Icrc();
    private final PacketWriter writer = new PacketWriter();
    private final PcapWriter pcap = new PcapWriter();

    /** SDP-like Hello Header (REF §7.2), 92 bytes. */
    static byte[] hello() {
        ByteBuffer h = ByteBuffer.allocate(CmReq.PRIVATE_DATA_SIZE);
        h.put(0, (byte) 0x00).putShort(2, (short) 8).putInt(4, 92); // BSDH: MID Hello, Bufs 8, Len 92
        h.put(16, (byte) 0x22).put(17, (byte) 0x40).put(19, (byte) 1).putInt(20, 65536).putInt(24, 65536)
            .putShort(28, (short) 40000).putInt(44, A).putInt(60, B);
        return h.array();
    }

    static byte[] helloAck() {
        ByteBuffer h = ByteBuffer.allocate(CmRep.PRIVATE_DATA_SIZE);
        h.put(0, (byte) 0x01).putShort(2, (short) 8).putInt(4, 196).put(16, (byte) 0x22).put(19, (byte) 1)
            .putInt(20, 65536);
        return h.array();
    }

    private void cm(int src, int dst, CmMessage m, long tid) {
        ByteBuffer b = ByteBuffer.allocate(Mad.PACKET_LENGTH);
        int len = CmCodec.writeGsiPacket(writer, b, 0, 0, m, tid);
        seal(src, dst, b, len);
    }

    private void seal(int src, int dst, ByteBuffer b, int len) {
        int sport = 0xC000 | (src & 0xFF);
        icrc.sealIpv4(src, dst, sport, Icrc.ROCE_PORT, b, 0, len);
        byte[] p = new byte[len];
        b.get(0, p);
        pcap.add(src, dst, sport, p);
    }

    private PacketWriter rc(Opcode op, int destQp, int psn, boolean ackReq, int payloadLength, ByteBuffer b) {
        return writer.begin(b, 0, op, false, Bth.DEFAULT_PKEY, destQp, ackReq, psn, payloadLength);
    }

    private void data(Opcode op, int src, int dst, int destQp, int psn, boolean ackReq, int payloadLength,
                      long va, int rkey, long dmaLength, int syndrome, int msn, Integer imm) {
        ByteBuffer b = ByteBuffer.allocate(2048);
        PacketWriter w = rc(op, destQp, psn, ackReq, payloadLength, b);
        if (op.hasReth()) {
            w.reth(va, rkey, dmaLength);
        }
        if (op.hasAeth()) {
            w.aeth(syndrome, msn);
        }
        if (imm != null) {
            w.immDt(imm);
        }
        byte[] payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        seal(src, dst, b, w.payload(payload, 0).finish());
    }

    private void buildConversation() {
        Gid ga = Gid.ofIpv4(A);
        Gid gb = Gid.ofIpv4(B);
        cm(A, B, CmReq.rc(0x1111_0001, SERVICE_ID, 0x0200_00FF_FE00_0001L, 0x11, 0x100, 4, 4, 20, 20, 7, 7, 3, 15,
            CmPath.roce(ga, gb, 0, 64, 19), hello()), TID);                                           // 1
        cm(B, A, CmRep.rc(0x2222_0001, 0x1111_0001, 0x22, 0x200, 4, 4, 15, 7, 0x0200_00FF_FE00_0002L,
            helloAck()), TID);                                                                        // 2
        cm(A, B, new CmRtu(0x1111_0001, 0x2222_0001, null), TID);                                    // 3
        byte[] hello = "Hello, RoCE!".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(64);
        seal(A, B, b, rc(Opcode.SEND_ONLY, 0x22, 0x100, true, hello.length, b).payload(hello, 0).finish()); // 4
        data(Opcode.ACKNOWLEDGE, B, A, 0x11, 0x100, false, 0, 0, 0, 0, Aeth.SYNDROME_ACK_NO_CREDIT, 1, null); // 5
        data(Opcode.RDMA_WRITE_FIRST, A, B, 0x22, 0x101, false, 256, 0x7F00_0000_1000L, 0x1234, 300, 0, 0, null); // 6
        data(Opcode.RDMA_WRITE_LAST, A, B, 0x22, 0x102, true, 44, 0, 0, 0, 0, 0, null);                // 7
        data(Opcode.ACKNOWLEDGE, B, A, 0x11, 0x102, false, 0, 0, 0, 0, Aeth.SYNDROME_ACK_NO_CREDIT, 2, null); // 8
        data(Opcode.RDMA_READ_REQUEST, A, B, 0x22, 0x103, true, 0, 0x7F00_0000_2000L, 0x5678, 300, 0, 0, null); // 9
        data(Opcode.RDMA_READ_RESPONSE_FIRST, B, A, 0x11, 0x103, false, 256, 0, 0, 0, 0x1F, 3, null);   // 10
        data(Opcode.RDMA_READ_RESPONSE_LAST, B, A, 0x11, 0x104, false, 44, 0, 0, 0, 0x1F, 3, null);     // 11
        data(Opcode.SEND_ONLY_WITH_IMMEDIATE, A, B, 0x22, 0x105, true, 5, 0, 0, 0, 0, 0, 0xDEAD_BEEF);  // 12
        data(Opcode.ACKNOWLEDGE, B, A, 0x11, 0x105, false, 0, 0, 0, 0, Aeth.nak(Aeth.PSN_SEQUENCE_ERROR), 4, null); // 13
        cm(A, B, new CmDreq(0x1111_0001, 0x2222_0001, 0x22, null), TID + 1);                          // 14
        cm(B, A, new CmDrep(0x2222_0001, 0x1111_0001, null), TID + 1);                               // 15
        cm(B, A, CmRej.of(0, 0x1111_0002, CmTargetMessage.REQ, CmRejectReason.INVALID_SERVICE_ID), TID + 2); // 16
    }

    private static final String[] PAYLOAD_HEURISTICS = {
        "rpcordma", "smb_direct", "iser", "nvme-rdma", "lnet", "smc", "fcoib",
    };

    private static final String[] FIELDS = {
        "frame.number", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
        "infiniband.bth.padcnt", "infiniband.bth.a", "infiniband.invariant.crc", "infiniband.deth.q_key",
        "infiniband.deth.srcqp", "infiniband.mad.attributeid", "infiniband.mad.transactionid",
        "infiniband.cm.req.serviceid", "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn",
        "infiniband.cm.req.private", "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn",
        "infiniband.cm.rep.private", "infiniband.cm.rtu.localcommid", "infiniband.cm.rej.reason",
        "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
        "infiniband.aeth.msn", "infiniband.immdt", "_ws.malformed", "_ws.expert.severity", "_ws.expert.message",
    };

    @Test
    void tsharkDecodesWhatWeEncode() throws Exception {
        assumeTrue(tshark != null, "tshark is not installed");
        buildConversation();
        Path file = dir.resolve("roce.pcap");
        pcap.write(file);
        List<String[]> rows = run(file);
        assertThat(rows).hasSize(16);

        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            byte[] dgram = pcap.datagrams().get(i);
            String frame = "frame " + (i + 1) + ": " + String.join("|", r);
            assertThat(f(r, "_ws.malformed")).as(frame).isEmpty();
            assertThat(f(r, "_ws.expert.message")).as(frame).isEmpty();
            // ICRC: tshark shows the trailer as read from the wire; it must be ours and correct.
            String trailer = "0x" + HexFormat.of().formatHex(dgram, dgram.length - 4, dgram.length);
            assertThat(f(r, "infiniband.invariant.crc")).as(frame).isEqualTo(trailer);
            assertThat(ReferenceIcrc.compute(dgram)).as(frame).isEqualTo(ReferenceIcrc.trailer(dgram));
        }

        String[] req = rows.get(0);
        assertThat(num(req, "infiniband.bth.opcode")).isEqualTo(100L);
        assertThat(num(req, "infiniband.bth.destqp")).isEqualTo(0x000001L);
        assertThat(num(req, "infiniband.deth.q_key")).isEqualTo(0x0000000080010000L);
        assertThat(num(req, "infiniband.deth.srcqp")).isEqualTo(0x000001L);
        assertThat(num(req, "infiniband.mad.attributeid")).isEqualTo(0x0010L);
        assertThat(num(req, "infiniband.mad.transactionid")).isEqualTo(0x00000001cafe0001L);
        assertThat(num(req, "infiniband.cm.req.serviceid")).isEqualTo(0x0000000000021234L);
        assertThat(num(req, "infiniband.cm.req.localqpn")).isEqualTo(0x000011L);
        assertThat(num(req, "infiniband.cm.req.startpsn")).isEqualTo(0x000100L);
        assertThat(hexBytes(f(req, "infiniband.cm.req.private"))).isEqualTo(HexFormat.of().formatHex(hello()));

        String[] rep = rows.get(1);
        assertThat(num(rep, "infiniband.mad.attributeid")).isEqualTo(0x0013L);
        assertThat(num(rep, "infiniband.cm.rep.localqpn")).isEqualTo(0x000022L);
        assertThat(num(rep, "infiniband.cm.rep.startpsn")).isEqualTo(0x000200L);
        assertThat(hexBytes(f(rep, "infiniband.cm.rep.private"))).isEqualTo(HexFormat.of().formatHex(helloAck()));
        assertThat(num(rows.get(2), "infiniband.mad.attributeid")).isEqualTo(0x0014L);
        assertThat(num(rows.get(2), "infiniband.cm.rtu.localcommid")).isEqualTo(0x11110001L);

        expectRc(rows.get(3), 0x04, 0x22, 0x100);
        assertThat(f(rows.get(3), "infiniband.bth.a")).isIn("1", "True");
        assertThat(f(rows.get(4), "infiniband.bth.a")).isIn("0", "False");
        expectRc(rows.get(4), 0x11, 0x11, 0x100);
        assertThat(num(rows.get(4), "infiniband.aeth.msn")).isEqualTo(1L);
        expectRc(rows.get(5), 0x06, 0x22, 0x101);
        assertThat(num(rows.get(5), "infiniband.reth.va")).isEqualTo(0x00007f0000001000L);
        assertThat(num(rows.get(5), "infiniband.reth.r_key")).isEqualTo(0x00001234L);
        assertThat(num(rows.get(5), "infiniband.reth.dmalen")).isEqualTo(300L);
        expectRc(rows.get(6), 0x08, 0x22, 0x102);
        expectRc(rows.get(7), 0x11, 0x11, 0x102);
        expectRc(rows.get(8), 0x0C, 0x22, 0x103);
        assertThat(num(rows.get(8), "infiniband.reth.dmalen")).isEqualTo(300L);
        expectRc(rows.get(9), 0x0D, 0x11, 0x103);
        assertThat(num(rows.get(9), "infiniband.aeth.msn")).isEqualTo(3L);
        expectRc(rows.get(10), 0x0F, 0x11, 0x104);
        expectRc(rows.get(11), 0x05, 0x22, 0x105);
        assertThat(num(rows.get(11), "infiniband.bth.padcnt")).isEqualTo(3L);
        assertThat(hexBytes(f(rows.get(11), "infiniband.immdt")).split(",")).containsOnly("deadbeef");
        expectRc(rows.get(12), 0x11, 0x11, 0x105);
        assertThat(num(rows.get(12), "infiniband.aeth.syndrome")).isEqualTo(0x60);
        assertThat(num(rows.get(13), "infiniband.mad.attributeid")).isEqualTo(0x0015L);
        assertThat(num(rows.get(14), "infiniband.mad.attributeid")).isEqualTo(0x0016L);
        assertThat(num(rows.get(15), "infiniband.mad.attributeid")).isEqualTo(0x0012L);
        assertThat(num(rows.get(15), "infiniband.cm.rej.reason")).isEqualTo(8);
    }

    /** The malformed check above can fail: a truncated RETH is reported by tshark. */
    @Test
    void truncatedPacketIsReportedMalformed() throws Exception {
        assumeTrue(tshark != null, "tshark is not installed");
        ByteBuffer b = ByteBuffer.allocate(64);
        int len = rc(Opcode.RDMA_WRITE_FIRST, 0x22, 1, false, 0, b).reth(1, 2, 3).finish();
        byte[] p = new byte[len];
        b.get(0, p);
        pcap.add(A, B, 0xC001, java.util.Arrays.copyOf(p, 20)); // BTH + 8 bytes of RETH
        Path file = dir.resolve("bad.pcap");
        pcap.write(file);
        String[] r = run(file).get(0);
        assertThat(f(r, "_ws.malformed") + f(r, "_ws.expert.message")).isNotEmpty();
    }

    private static void expectRc(String[] r, int opcode, int destQp, int psn) {
        String frame = String.join("|", r);
        assertThat(num(r, "infiniband.bth.opcode")).as(frame).isEqualTo(opcode);
        assertThat(num(r, "infiniband.bth.destqp")).as(frame).isEqualTo(destQp);
        assertThat(num(r, "infiniband.bth.psn")).as(frame).isEqualTo(psn);
    }

    /** A numeric field as printed by tshark (decimal or 0x-hex, width varies by version). */
    private static long num(String[] row, String field) {
        String v = f(row, field);
        assertThat(v).as("%s in %s", field, String.join("|", row)).isNotEmpty();
        return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
    }

    private static String f(String[] row, String field) {
        for (int i = 0; i < FIELDS.length; i++) {
            if (FIELDS[i].equals(field)) {
                return i < row.length ? row[i] : "";
            }
        }
        throw new IllegalArgumentException(field);
    }

    /** tshark prints byte fields as "aa:bb:..." or "aabb..."; normalise to plain hex. */
    private static String hexBytes(String s) {
        return s.replace(":", "").toLowerCase();
    }

    private List<String[]> run(Path file) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString(),
            "-o", "infiniband.rroce.port:4791", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"));
        // Our RC payloads are arbitrary bytes: keep upper-layer heuristics (which would guess at
        // RPC-over-RDMA, SMB Direct, ...) from claiming them; the IB headers are what is checked.
        for (String heuristic : PAYLOAD_HEURISTICS) {
            cmd.add("--disable-protocol");
            cmd.add(heuristic);
        }
        for (String field : FIELDS) {
            cmd.add("-e");
            cmd.add(field);
        }
        Path out = dir.resolve(file.getFileName() + ".txt");
        Path err = dir.resolve(file.getFileName() + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tshark did not finish within 180 s");
        }
        String stderr = Files.readString(err);
        assertThat(p.exitValue()).as("tshark exit status, stderr: %s", stderr).isZero();
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            if (!line.isEmpty()) {
                rows.add(line.split("\t", -1));
            }
        }
        return rows;
    }
}

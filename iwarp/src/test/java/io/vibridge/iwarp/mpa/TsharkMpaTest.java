package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Independent decoding: our MPA, DDP and RDMAP bytes in a TCP capture, read by Wireshark's iWARP
 * dissectors (tshark), must decode into the values we meant with every CRC good and no expert warning on
 * any FPDU. Skipped only where tshark is not installed (CI installs it).
 */
class TsharkMpaTest {

    private static String tshark;

    @TempDir
    Path dir;

    @BeforeAll
    static void findTshark() {
        String path = System.getenv("PATH");
        for (String p : path == null ? new String[0] : path.split(File.pathSeparator)) {
            File f = new File(p, "tshark");
            if (f.canExecute()) {
                tshark = f.getAbsolutePath();
                return;
            }
        }
    }

    private final CRC32C crc = new CRC32C();

    private byte[] fpdu(ToIntFunction<ByteBuffer> ulpdu) {
        ByteBuffer b = ByteBuffer.allocate(Fpdu.MAX_LENGTH);
        int n = Fpdu.seal(b, 0, ulpdu.applyAsInt(b), crc);
        return Arrays.copyOf(b.array(), n);
    }

    private static int payload(ByteBuffer b, int at, int length) {
        for (int i = 0; i < length; i++) {
            b.put(at + i, (byte) (i * 7 + 1));
        }
        return length;
    }

    @Test
    void wiresharkDecodesEveryMessageWithGoodCrcs() throws Exception {
        assumeTrue(tshark != null, "tshark not installed");
        TcpPcap pcap = new TcpPcap(40001, 7174);
        // rev. 1 frames: Wireshark 4.0 predates RFC 6581 and flags revision 2 and its enhanced bit
        pcap.send(true, new MpaFrame(MpaKey.REQUEST, false, true, false, false, 1, new byte[0]).toBytes());
        pcap.send(false, new MpaFrame(MpaKey.REPLY, false, true, false, false, 1, new byte[0]).toBytes());
        pcap.send(true, fpdu(b -> {
            int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.SEND, true, 0, 1, 0);
            return h + payload(b, 2 + h, 16);
        }));
        pcap.send(true, fpdu(b -> {
            int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.SEND_SE_INVALIDATE, true, 0xABCD, 2, 0);
            return h + payload(b, 2 + h, 5);
        }));
        pcap.send(true, fpdu(b -> {
            int h = DdpSegment.writeTagged(b, 2, RdmapOpcode.RDMA_WRITE, false, 0x11223344, 0x7000L);
            return h + payload(b, 2 + h, 1000);
        }));
        pcap.send(true, fpdu(b -> {
            int h = DdpSegment.writeTagged(b, 2, RdmapOpcode.RDMA_WRITE, true, 0x11223344, 0x7000L + 1000);
            return h + payload(b, 2 + h, 3);
        }));
        pcap.send(true, fpdu(b -> {
            int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.READ_REQUEST, true, 0, 1, 0);
            new ReadRequest(0x55, 0x1000L, 64, 0x66, 0x2000L).encode(b, 2 + h);
            return h + ReadRequest.LENGTH;
        }));
        pcap.send(false, fpdu(b -> {
            int h = DdpSegment.writeTagged(b, 2, RdmapOpcode.READ_RESPONSE, true, 0x55, 0x1000L);
            return h + payload(b, 2 + h, 64);
        }));
        pcap.send(false, fpdu(b -> {
            int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.TERMINATE, true, 0, 1, 0);
            return h + Terminate.of(TerminateCode.RDMAP_UNEXPECTED_OPCODE).encode(b, 2 + h);
        }));
        Path file = dir.resolve("iwarp.pcap");
        pcap.write(file);

        List<String> rows = run(file, "-T", "fields", "-E", "separator=|",
                "-e", "iwarp_rdma.opcode", "-e", "iwarp_ddp.last_flag", "-e", "iwarp_ddp.stag",
                "-e", "iwarp_ddp.tagged_offset", "-e", "iwarp_ddp.qn", "-e", "iwarp_ddp.msn", "-e", "iwarp_ddp.mo",
                "-e", "iwarp_rdma.inval_stag", "-e", "iwarp_rdma.rdmardsz", "-e", "iwarp_rdma.term_layer",
                "-e", "iwarp_rdma.term_etype_rdma", "-e", "iwarp_rdma.term_errcode_rdma",
                "-Y", "iwarp_mpa.fpdu");
        assertThat(rows).containsExactly(
                        "0x03|1|||0|1|0|||||",
                        "0x06|1|||0|2|0|43981||||",
                        "0x00|0|0x11223344|0x0000000000007000||||||||",
                        "0x00|1|0x11223344|0x00000000000073e8||||||||",
                        "0x01|1|||1|1|0||64|||",
                        "0x02|1|0x00000055|0x0000000000001000||||||||",
                        "0x07|1|||2|1|0|||0x00|0x02|0x06");
        // packet-iwarp-mpa.c recomputes each CRC and says "Good CRC32" or "Bad CRC32, should be ..."
        List<String> tree = run(file, "-V");
        assertThat(tree.stream().filter(l -> l.contains("Good CRC32"))).hasSize(7);
        assertThat(tree).noneMatch(l -> l.contains("Bad CRC32"));
        List<String> expert = run(file, "-q", "-z", "expert,note");
        assertThat(String.join("\n", expert)).doesNotContain("Warning").doesNotContain("Error")
                .doesNotContain("Malformed");
    }

    private List<String> run(Path file, String... args) throws IOException, InterruptedException {
        // iwarp_mpa is a heuristic dissector: it recognises the stream by the MPA Request and Reply keys
        List<String> cmd = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new String(out, StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("Running as user")).toList();
    }
}

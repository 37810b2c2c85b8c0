package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * Rough single-thread throughput of the packet layer (not a test; no JMH in this module). Run:
 * {@code java -cp target/classes:target/test-classes io.vibridge.verbs.soft.wire.WireBench}.
 */
public final class WireBench {

    private static long sink;

    public static void main(String[] args) {
        int payload = args.length > 0 ? Integer.parseInt(args[0]) : 1024;
        ByteBuffer direct = ByteBuffer.allocateDirect(8192);
        PacketWriter w = new PacketWriter();
        PacketView v = new PacketView();
        Icrc icrc = new Icrc();
        int len = w.begin(direct, 0, Opcode.SEND_ONLY, false, 0xFFFF, 0x11, true, 1, payload).finish();
        icrc.sealIpv4(0x7F00_0001, 0x7F00_0002, 0xC000, 4791, direct, 0, len);
        ByteBuffer rxeLike = ByteBuffer.allocateDirect(8192);
        rxeLike.put(0, direct, 0, len);
        ByteBuffer heapCopy = ByteBuffer.allocate(len);
        Icrc.writeTrailer(rxeLike, 0, len,
            icrc.computeIpv4(0x7F00_0001, 0x7F00_0002, 59391, true, 0xC000, 4791, rxeLike, 0, len));
        heapCopy.put(0, direct, 0, len);

        for (int round = 0; round < 2; round++) {
            String tag = round == 0 ? "warm-up  " : "measured ";
            report(tag + "sealIpv4 (" + len + " B, direct)", len, () -> icrc.sealIpv4(0x7F00_0001, 0x7F00_0002,
                0xC000, 4791, direct, 0, len));
            report(tag + "verifyIpv4 ID 0 (" + len + " B)", len, () -> sink += icrc.verifyIpv4(0x7F00_0001,
                0x7F00_0002, 0xC000, 4791, direct, 0, len, true).ordinal());
            report(tag + "verifyIpv4 any-ID, cached length", len, () -> sink += icrc.verifyIpv4(0x7F00_0001,
                0x7F00_0002, 0xC000, 4791, rxeLike, 0, len, true).ordinal());
            int[] n = {0};
            report(tag + "any-ID basis rebuild only (new length each call)", 0, () -> {
                n[0]++;
                sink += icrc.verifyAnyIpId(0x7F00_0001, 0x7F00_0002, 0xC000, 4791, rxeLike, 0, 16 + (n[0] & 1) * 4);
            });
            report(tag + "PacketView.wrap + 6 fields", 0, () -> {
                v.wrap(heapCopy, 0, len);
                sink += v.psn() + v.destQp() + v.payloadLength() + v.padCount() + v.pkey() + v.opcode().code();
            });
            report(tag + "PacketWriter RDMA WRITE FIRST headers", 0, () -> sink += w.begin(direct, 0,
                Opcode.RDMA_WRITE_FIRST, false, 0xFFFF, 0x11, false, 2, 1024).reth(1, 2, 4096).finish());
            ByteBuffer mad = ByteBuffer.allocate(256);
            CmReq req = CmCodecTest.workedReqMessage();
            report(tag + "CmCodec encode+decode REQ", 0, () -> {
                CmCodec.encodeMad(req, 1, 0, mad, 0);
                sink += CmCodec.decodeMad(mad, 0).message().localCommId();
            });
        }
        System.out.println("(sink " + sink + ")");
    }

    private static void report(String name, int bytes, Runnable r) {
        long iterations = 0;
        long start = System.nanoTime();
        long end = start + 1_000_000_000L;
        long now;
        do {
            for (int i = 0; i < 1000; i++) {
                r.run();
            }
            iterations += 1000;
            now = System.nanoTime();
        } while (now < end);
        double ns = (now - start) / (double) iterations;
        System.out.printf("%-55s %9.1f ns/op%s%n", name, ns,
            bytes > 0 ? String.format("  %6.2f GB/s", bytes / ns) : "");
    }
}

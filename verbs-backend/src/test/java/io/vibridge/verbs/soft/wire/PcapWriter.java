package io.vibridge.verbs.soft.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test utility: writes RoCEv2 packets into a classic libpcap file with LINKTYPE_RAW (101), each
 * wrapped in the IPv4 + UDP headers our socket produces (ID 0, DF, TTL 64, correct header
 * checksum, UDP checksum 0 as rxe sends it).
 */
final class PcapWriter {

    static final int LINKTYPE_RAW = 101;

    private final List<byte[]> datagrams = new ArrayList<>();

    /** Adds a datagram from {@code src:srcPort} to {@code dst:4791} carrying {@code udpPayload}. */
    PcapWriter add(int srcIp, int dstIp, int srcPort, byte[] udpPayload) {
        datagrams.add(ipv4Udp(srcIp, dstIp, srcPort, Icrc.ROCE_PORT, udpPayload));
        return this;
    }

    List<byte[]> datagrams() {
        return datagrams;
    }

    /** IPv4 (20 bytes, ID 0, DF, TTL 64, checksum) + UDP (checksum 0) + payload. */
    static byte[] ipv4Udp(int srcIp, int dstIp, int srcPort, int dstPort, byte[] udpPayload) {
        byte[] d = new byte[28 + udpPayload.length];
        ByteBuffer b = ByteBuffer.wrap(d);
        b.put(0, (byte) 0x45).putShort(2, (short) d.length).putShort(4, (short) 0).put(6, (byte) 0x40)
            .put(8, (byte) 64).put(9, (byte) 17).putInt(12, srcIp).putInt(16, dstIp)
            .putShort(20, (short) srcPort).putShort(22, (short) dstPort)
            .putShort(24, (short) (8 + udpPayload.length)).putShort(26, (short) 0);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += b.getShort(i) & 0xFFFF;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        b.putShort(10, (short) ~sum);
        System.arraycopy(udpPayload, 0, d, 28, udpPayload.length);
        return d;
    }

    void write(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xA1B2_C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535)
                .putInt(LINKTYPE_RAW);
            out.write(h.array());
            int second = 1_700_000_000;
            for (byte[] d : datagrams) {
                ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                r.putInt(second++).putInt(0).putInt(d.length).putInt(d.length);
                out.write(r.array());
                out.write(d);
            }
        }
    }
}

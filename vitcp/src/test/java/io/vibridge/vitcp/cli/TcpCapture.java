package io.vibridge.vitcp.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test utility: TCP connections as a classic libpcap file (LINKTYPE_ETHERNET, IPv4), each with its
 * handshake, data in TCP segments of at most {@code mss} bytes, and FIN exchange, with sequence and
 * acknowledgement numbers kept per direction so that tshark reassembles the streams as it would a capture.
 * Addresses are RFC 5737 documentation addresses; nothing is sent anywhere.
 */
final class TcpCapture {

    private static final int CLIENT = 0xC000_0201; // 192.0.2.1
    private static final int SERVER = 0xC000_0202; // 192.0.2.2
    private static final int FIN = 0x01;
    private static final int SYN = 0x02;
    private static final int PSH = 0x08;
    private static final int ACK = 0x10;
    private static final int HEADERS = 14 + 20 + 20;

    private final int mss;
    private final List<byte[]> packets = new ArrayList<>();

    /** @param mss most payload bytes per TCP segment (the IPv4 total length must stay within 65,535) */
    TcpCapture(int mss) {
        if (mss < 1 || mss > 65_535 - 40) {
            throw new IllegalArgumentException("mss " + mss);
        }
        this.mss = mss;
    }

    /** Opens a connection (SYN, SYN-ACK, ACK) from {@code clientPort} to {@code serverPort}. */
    Connection open(int clientPort, int serverPort) {
        return new Connection(clientPort, serverPort);
    }

    final class Connection {
        private final int clientPort;
        private final int serverPort;
        private int clientSeq = 1000;
        private int serverSeq = 5000;

        private Connection(int clientPort, int serverPort) {
            this.clientPort = clientPort;
            this.serverPort = serverPort;
            packet(true, SYN, new byte[0], 0, 0);
            clientSeq++;
            packet(false, SYN | ACK, new byte[0], 0, 0);
            serverSeq++;
            packet(true, ACK, new byte[0], 0, 0);
        }

        /** Bytes from the client (true) or the server, cut into segments of at most mss bytes. */
        Connection send(boolean fromClient, byte[] data) {
            for (int at = 0; at < data.length; at += mss) {
                int n = Math.min(mss, data.length - at);
                packet(fromClient, ACK | PSH, data, at, n);
                if (fromClient) {
                    clientSeq += n;
                } else {
                    serverSeq += n;
                }
            }
            return this;
        }

        /** FIN from each side and the last ACK. */
        void close() {
            packet(true, FIN | ACK, new byte[0], 0, 0);
            clientSeq++;
            packet(false, FIN | ACK, new byte[0], 0, 0);
            serverSeq++;
            packet(true, ACK, new byte[0], 0, 0);
        }

        private void packet(boolean fromClient, int flags, byte[] data, int at, int n) {
            byte[] d = new byte[HEADERS + n];
            ByteBuffer b = ByteBuffer.wrap(d);
            b.put(0, new byte[] {2, 0, 0, 0, 0, (byte) (fromClient ? 2 : 1)}) // locally administered MACs
                    .put(6, new byte[] {2, 0, 0, 0, 0, (byte) (fromClient ? 1 : 2)}).putShort(12, (short) 0x0800);
            b.put(14, (byte) 0x45).putShort(16, (short) (20 + 20 + n)).put(20, (byte) 0x40).put(22, (byte) 64)
                    .put(23, (byte) 6).putInt(26, fromClient ? CLIENT : SERVER)
                    .putInt(30, fromClient ? SERVER : CLIENT);
            b.putShort(24, checksum(d, 14, 20));
            b.putShort(34, (short) (fromClient ? clientPort : serverPort))
                    .putShort(36, (short) (fromClient ? serverPort : clientPort))
                    .putInt(38, fromClient ? clientSeq : serverSeq)
                    .putInt(42, (flags & ACK) == 0 ? 0 : fromClient ? serverSeq : clientSeq)
                    .put(46, (byte) 0x50).put(47, (byte) flags).putShort(48, (short) 65535);
            System.arraycopy(data, at, d, HEADERS, n);
            packets.add(d);
        }
    }

    /** The IPv4 header checksum (RFC 791); the TCP checksum stays 0 (tshark does not check it by default). */
    private static short checksum(byte[] d, int off, int len) {
        int sum = 0;
        for (int i = off; i < off + len; i += 2) {
            sum += (d[i] & 0xFF) << 8 | d[i + 1] & 0xFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return (short) ~((sum & 0xFFFF) + (sum >>> 16));
    }

    void write(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xA1B2_C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262_144)
                    .putInt(1); // LINKTYPE_ETHERNET
            out.write(h.array());
            int usec = 0;
            for (byte[] p : packets) {
                ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                usec += 100;
                r.putInt(1_700_000_000 + usec / 1_000_000).putInt(usec % 1_000_000).putInt(p.length).putInt(p.length);
                out.write(r.array());
                out.write(p);
            }
        }
    }
}

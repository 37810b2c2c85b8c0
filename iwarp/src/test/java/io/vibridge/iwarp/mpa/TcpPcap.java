package io.vibridge.iwarp.mpa;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test utility: one TCP connection as a classic libpcap file (LINKTYPE_RAW, IPv4), handshake included,
 * with sequence and acknowledgement numbers kept per direction, so that tshark follows the stream as it
 * would a capture. Addresses are RFC 5737 documentation addresses; nothing is sent anywhere.
 */
final class TcpPcap {

    private static final int CLIENT = 0xC000_0201; // 192.0.2.1
    private static final int SERVER = 0xC000_0202; // 192.0.2.2
    private static final int SYN = 0x02;
    private static final int ACK = 0x10;
    private static final int PSH = 0x08;

    private final int clientPort;
    private final int serverPort;
    private final List<byte[]> packets = new ArrayList<>();
    private int clientSeq = 1000;
    private int serverSeq = 5000;

    TcpPcap(int clientPort, int serverPort) {
        this.clientPort = clientPort;
        this.serverPort = serverPort;
        packets.add(segment(true, SYN, clientSeq++, 0, new byte[0]));
        packets.add(segment(false, SYN | ACK, serverSeq++, clientSeq, new byte[0]));
        packets.add(segment(true, ACK, clientSeq, serverSeq, new byte[0]));
    }

    /** Bytes from the client (true) or the server, in one TCP segment. */
    TcpPcap send(boolean fromClient, byte[] data) {
        if (fromClient) {
            packets.add(segment(true, ACK | PSH, clientSeq, serverSeq, data));
            clientSeq += data.length;
        } else {
            packets.add(segment(false, ACK | PSH, serverSeq, clientSeq, data));
            serverSeq += data.length;
        }
        return this;
    }

    private byte[] segment(boolean fromClient, int flags, int seq, int ack, byte[] data) {
        byte[] d = new byte[40 + data.length];
        ByteBuffer b = ByteBuffer.wrap(d);
        b.put(0, (byte) 0x45).putShort(2, (short) d.length).put(6, (byte) 0x40).put(8, (byte) 64).put(9, (byte) 6)
                .putInt(12, fromClient ? CLIENT : SERVER).putInt(16, fromClient ? SERVER : CLIENT);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += b.getShort(i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        b.putShort(10, (short) ~((sum & 0xFFFF) + (sum >>> 16)));
        b.putShort(20, (short) (fromClient ? clientPort : serverPort))
                .putShort(22, (short) (fromClient ? serverPort : clientPort)).putInt(24, seq).putInt(28, ack)
                .put(32, (byte) 0x50).put(33, (byte) flags).putShort(34, (short) 65535);
        System.arraycopy(data, 0, d, 40, data.length);
        return d;
    }

    void write(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xA1B2_C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144)
                    .putInt(101);
            out.write(h.array());
            int usec = 0;
            for (byte[] p : packets) {
                ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                r.putInt(1_700_000_000).putInt(usec += 100).putInt(p.length).putInt(p.length);
                out.write(r.array());
                out.write(p);
            }
        }
    }
}

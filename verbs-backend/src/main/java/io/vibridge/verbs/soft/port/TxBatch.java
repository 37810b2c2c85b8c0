package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.Icrc;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The packets one locked section sends to one peer (a pump of the requester, a READ response stream, an
 * ACK), laid out back to back and handed to the socket in groups of equal-size datagrams: a group is what
 * one {@code UDP_SEGMENT} send can carry (equal sizes, the last one possibly shorter, at most
 * {@link UdpSocket#MAX_SEGMENTS} datagrams and {@link UdpSocket#MAX_PAYLOAD} bytes). Packets are sealed
 * (ICRC) when their group leaves, see {@link Transmitter#sendGroup}.
 *
 * <p>Borrowed with {@link PacketPort#openBatch} and given back with {@link PacketPort#closeBatch}, which
 * sends what is left: confined to its borrower meanwhile.
 */
public final class TxBatch {
    final ByteBuffer buf = ByteBuffer.allocateDirect(UdpSocket.MAX_PAYLOAD);
    final UdpSocket.Sender sender;
    final Icrc icrc = new Icrc();
    private final Transmitter transmitter;
    InetSocketAddress to;
    int toIp;
    private int fill;
    private int count;
    private int segmentSize;
    private boolean ended;

    TxBatch(Transmitter transmitter, UdpSocket.Sender sender) {
        this.transmitter = transmitter;
        this.sender = sender;
    }

    /** The buffer packets are laid out in. */
    public ByteBuffer buffer() {
        return buf;
    }

    /**
     * Reserves {@code length} bytes (a whole RoCEv2 UDP payload, ICRC placeholder included) for the next
     * packet and returns their offset in {@link #buffer()}; write the packet there before the next call.
     * Sends the current group first when the packet cannot join it.
     */
    public int reserve(int length) {
        if (count > 0 && (ended || length > segmentSize || count == UdpSocket.MAX_SEGMENTS
                || fill + length > UdpSocket.MAX_PAYLOAD)) {
            flush();
        }
        int at = fill;
        if (count == 0) {
            segmentSize = length;
        } else if (length < segmentSize) {
            ended = true;                           // a shorter datagram can only end a group
        }
        fill += length;
        count++;
        return at;
    }

    /** Sends the current group, if any. */
    void flush() {
        if (count == 0) {
            return;
        }
        try {
            transmitter.sendGroup(this, fill, segmentSize, count);
        } finally {
            fill = 0;
            count = 0;
            ended = false;
        }
    }
}

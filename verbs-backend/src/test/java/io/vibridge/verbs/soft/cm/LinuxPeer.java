package io.vibridge.verbs.soft.cm;

import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmMad;
import io.vibridge.verbs.soft.wire.CmMessage;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketView;
import io.vibridge.verbs.soft.wire.PacketWriter;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/** A peer on a plain UDP socket that builds and reads packets with the wire codecs, as Linux lays them out. */
public final class LinuxPeer implements AutoCloseable {
    private final DatagramChannel ch;
    private final InetSocketAddress device;
    private final int self;
    private final int dev;
    private final Icrc icrc = new Icrc();
    private final PacketWriter writer = new PacketWriter();
    private int udPsn;

    public LinuxPeer(VerbsDevice d) throws IOException {
        this(d, TestDevices.bindRaw(Icrc.ROCE_PORT));
    }

    /** A peer on {@code address}, port 4791: an address its test keeps for itself. */
    public LinuxPeer(VerbsDevice d, InetAddress address) throws IOException {
        this(d, DatagramChannel.open(StandardProtocolFamily.INET)
                .bind(new InetSocketAddress(address, Icrc.ROCE_PORT)));
    }

    private LinuxPeer(VerbsDevice d, DatagramChannel ch) throws IOException {
        this.ch = ch;
        ch.socket().setSoTimeout(10_000);
        device = new InetSocketAddress(d.address(), Icrc.ROCE_PORT);
        self = Gid.ipv4(address().getAddress());
        dev = Gid.ipv4(d.address().getAddress());
    }

    public InetAddress address() throws IOException {
        return ((InetSocketAddress) ch.getLocalAddress()).getAddress();
    }

    void sendCm(CmMessage m, long tid) throws IOException {
        ByteBuffer pkt = ByteBuffer.allocate(512);
        int len = CmCodec.writeGsiPacket(writer, pkt, 0, udPsn++, m, tid);
        icrc.sealIpv4(self, dev, Icrc.ROCE_PORT, Icrc.ROCE_PORT, pkt, 0, len);
        ch.send(pkt.limit(len), device);
    }

    /** An RDMA READ request (one packet with a RETH), AckReq set as rxe sets it on a request's last packet. */
    void sendRead(int destQp, int psn, long va, int rkey, int length) throws IOException {
        ByteBuffer pkt = ByteBuffer.allocate(PacketWriter.packetLength(Opcode.RDMA_READ_REQUEST, 0));
        int len = writer.begin(pkt, 0, Opcode.RDMA_READ_REQUEST, false, Bth.DEFAULT_PKEY, destQp, true, psn, 0)
                .reth(va, rkey, length).finish();
        icrc.sealIpv4(self, dev, Icrc.ROCE_PORT, Icrc.ROCE_PORT, pkt, 0, len);
        ch.send(pkt.limit(len), device);
    }

    /** An RDMA READ response packet (AETH on First/Last/Only, as rxe sends them). */
    void sendReadResponse(Opcode op, int destQp, int psn, byte[] payload) throws IOException {
        ByteBuffer pkt = ByteBuffer.allocate(PacketWriter.packetLength(op, payload.length));
        PacketWriter w = writer.begin(pkt, 0, op, false, Bth.DEFAULT_PKEY, destQp, false, psn, payload.length);
        if (op.hasAeth()) {
            w.aeth(Aeth.SYNDROME_ACK_NO_CREDIT, 0);
        }
        int len = w.payload(payload, 0).finish();
        icrc.sealIpv4(self, dev, Icrc.ROCE_PORT, Icrc.ROCE_PORT, pkt, 0, len);
        ch.send(pkt.limit(len), device);
    }

    /** A plain ACK (syndrome 0x1F) of every request up to {@code psn}, as rxe's responder sends it. */
    public void sendAck(int destQp, int psn, int msn) throws IOException {
        sendAeth(destQp, psn, Aeth.SYNDROME_ACK_NO_CREDIT, msn);
    }

    /** An ACKNOWLEDGE packet with AETH syndrome {@code syndrome}: an ACK, an RNR NAK or a NAK of {@code psn}. */
    public void sendAeth(int destQp, int psn, int syndrome, int msn) throws IOException {
        ByteBuffer pkt = ByteBuffer.allocate(PacketWriter.packetLength(Opcode.ACKNOWLEDGE, 0));
        int len = writer.begin(pkt, 0, Opcode.ACKNOWLEDGE, false, Bth.DEFAULT_PKEY, destQp, false, psn, 0)
                .aeth(syndrome, msn).finish();
        icrc.sealIpv4(self, dev, Icrc.ROCE_PORT, Icrc.ROCE_PORT, pkt, 0, len);
        ch.send(pkt.limit(len), device);
    }

    void sendRc(Opcode op, int destQp, int psn, byte[] payload) throws IOException {
        ByteBuffer pkt = ByteBuffer.allocate(PacketWriter.packetLength(op, payload.length));
        int len = writer.begin(pkt, 0, op, false, Bth.DEFAULT_PKEY, destQp, true, psn, payload.length)
                .payload(payload, 0).finish();
        icrc.sealIpv4(self, dev, Icrc.ROCE_PORT, Icrc.ROCE_PORT, pkt, 0, len);
        ch.send(pkt.limit(len), device);
    }

    /** The next CM MAD (GSI packets only). */
    CmMad receiveCm() throws IOException {
        while (true) {
            ByteBuffer in = receive();
            if (Bth.destQp(in, 0) == 1) {
                return new PacketView().wrap(in, 0, in.limit()).gsiMad();
            }
        }
    }

    /** The next RC packet (not to QP1). */
    public ByteBuffer receiveRc() throws IOException {
        while (true) {
            ByteBuffer in = receive();
            if (Bth.destQp(in, 0) != 1) {
                return in;
            }
        }
    }

    private ByteBuffer receive() throws IOException {
        ByteBuffer in = ByteBuffer.allocate(8192);
        ch.configureBlocking(true);
        var s = ch.socket();
        var p = new DatagramPacket(in.array(), in.capacity());
        try {
            s.receive(p);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("nothing received from the engine within 10 s", e);
        }
        return in.limit(p.getLength());
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}

package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.rdmatcp.FrameCheck;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Random;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A hand-driven VI/TCP peer over a plain socket, speaking the profile with the wire codecs: it lets
 * tests misbehave (over-run the read window, reset TCP mid-message) and watch the exact segments.
 * In {@code rdmatcp} framing ({@link Fixture#FRAMING} unless a factory names one) every segment it writes
 * goes in a seed-004 frame and every frame it reads is checked (CRC, Connection ID) and unwrapped
 * (VITCP-PROFILE §8).
 */
final class RawPeer implements AutoCloseable {
    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    /** How segments travel on this socket. */
    final Encapsulation framing;
    int nextMessage = 1000;
    int peerImn;
    /** The seed-004 Connection ID: chosen when connecting, learned from the first frame when accepting. */
    long connectionId = new Random().nextLong();
    private boolean connectionIdKnown;
    /** The order field of the last frame read in seed-004 framing (0 or 0xFFFF), -1 in native framing. */
    int lastOrder = -1;
    /** In seed-004 framing, the last frame {@link #read()} took, whole (header, segment, padding, CRC). */
    byte[] lastFrame;

    RawPeer(Socket s) throws IOException {
        this(s, Fixture.FRAMING);
    }

    RawPeer(Socket s, Encapsulation framing) throws IOException {
        this.socket = s;
        this.framing = framing;
        s.setTcpNoDelay(true);
        s.setSoTimeout(20_000); // tests never hang on a silent peer
        this.in = new DataInputStream(s.getInputStream());
        this.out = s.getOutputStream();
    }

    static RawPeer connect(InetSocketAddress to) throws IOException {
        return connect(to, Fixture.FRAMING);
    }

    static RawPeer connect(InetSocketAddress to, Encapsulation framing) throws IOException {
        RawPeer p = new RawPeer(new Socket(to.getAddress(), to.getPort()), framing);
        p.connectionIdKnown = true;
        return p;
    }

    /** Connects with a small receive buffer, so that the peer's writes block while we do not read. */
    static RawPeer connectSlow(InetSocketAddress to) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(to);
        RawPeer p = new RawPeer(s);
        p.connectionIdKnown = true;
        return p;
    }

    static RawPeer accept(ServerSocket server) throws IOException {
        return accept(server, Fixture.FRAMING);
    }

    static RawPeer accept(ServerSocket server, Encapsulation framing) throws IOException {
        return new RawPeer(server.accept(), framing);
    }

    static ConnectionHeader ce(ReliabilityLevel level, long mtu, int window, Discriminator calling, Discriminator called) {
        return ce(level, mtu, window, calling, called, false);
    }

    /** As {@link #ce(ReliabilityLevel, long, int, Discriminator, Discriminator)}, with attribute bit 6 (seed 002). */
    static ConnectionHeader ce(ReliabilityLevel level, long mtu, int window, Discriminator calling, Discriminator called,
            boolean unordered) {
        return ConnectionHeader.unsigned(ConnectionAttributes.of(level, true, level != ReliabilityLevel.UNRELIABLE_DELIVERY,
                false, false, unordered), calling, mtu, window, called);
    }

    void sendControl(ControlSegment c) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(c.encodedLength());
        c.encode(b, 0);
        write(b.array());
    }

    /** Connect Request; returns the answer. */
    ControlSegment request(ConnectionHeader h, int rxPosted) throws IOException {
        sendControl(new ConnectRequest(nextMessage, rxPosted, h));
        ControlSegment c = ControlSegment.decode(read().buffer(), 0, lastLength);
        if (c instanceof ConnectAccept a) {
            peerImn = a.initialMessageNumber();
        }
        return c;
    }

    /** Passive: reads a Connect Request and accepts it. */
    ConnectRequest acceptRequest(ConnectionHeader h, int rxPosted) throws IOException {
        ConnectRequest cr = (ConnectRequest) ControlSegment.decode(read().buffer(), 0, lastLength);
        peerImn = cr.initialMessageNumber();
        int ack = ConnectAccept.messageAckFor(h.attributes().reliability(), peerImn);
        sendControl(new ConnectAccept(nextMessage, ack, rxPosted, h));
        return cr;
    }

    private int lastLength;

    /** Reads one whole segment (unwrapped from its frame in seed-004 framing). */
    SegmentView read() throws IOException {
        byte[] head = new byte[4];
        in.readFully(head);
        int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
        if (framing == Encapsulation.RDMATCP) {
            return unframe(head, len);
        }
        byte[] all = new byte[len];
        System.arraycopy(head, 0, all, 0, 4);
        in.readFully(all, 4, len - 4);
        lastLength = len;
        return new SegmentView().wrap(ByteBuffer.wrap(all), 0, len);
    }

    private SegmentView unframe(byte[] head, int segmentLength) throws IOException {
        byte[] all = new byte[RdmaTcpFrame.frameLength(segmentLength)];
        System.arraycopy(head, 0, all, 0, 4);
        in.readFully(all, 4, all.length - 4);
        ByteBuffer f = ByteBuffer.wrap(all);
        FrameCheck check = RdmaTcpFrame.check(f, 0, connectionId, !connectionIdKnown);
        if (check != FrameCheck.OK) {
            throw new IOException("bad frame from the provider: " + check.description());
        }
        connectionId = RdmaTcpFrame.connectionId(f, 0);
        connectionIdKnown = true;
        lastOrder = RdmaTcpFrame.order(f, 0);
        lastFrame = all;
        int hdr = RdmaTcpFrame.headerLength(f, 0);
        lastLength = segmentLength - hdr;
        return new SegmentView().wrap(ByteBuffer.wrap(all, hdr, lastLength).slice(), 0, lastLength);
    }

    /** The bytes that carry the VI/TCP segment {@code s} in this peer's framing. */
    byte[] onWire(byte[] s) {
        return framing == Encapsulation.RDMATCP
                ? RdmaTcpFrame.frame(ByteBuffer.wrap(s), 0, s.length, connectionId).array() : s;
    }

    /** Reads one segment, or null if none arrives within {@code millis}. */
    SegmentView readWithin(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            return read();
        } catch (SocketTimeoutException e) {
            return null;
        } finally {
            socket.setSoTimeout(20_000);
        }
    }

    /**
     * The encoded Connect Request/Accept {@code c}, built with Security Type 0, re-framed with
     * {@code securityType} and {@code securityLength} bytes of Security Information (zero-padded to 4):
     * for security information the codec's constructor would not build (VITCP-PROFILE §5). When the
     * information has room for it (at least 40 bytes), bytes 0..7 get the current time and 8..39 a
     * correct HMAC-SHA256 with {@code key} at the Security Type 1 position, so only the length is wrong.
     */
    static byte[] withSecurity(ControlSegment c, int securityType, int securityLength, byte[] key) {
        ByteBuffer plain = ByteBuffer.allocate(c.encodedLength());
        c.encode(plain, 0);
        int base = plain.capacity(); // ends with Security Type 0, Security Length 0
        int len = base + ((securityLength + 3) & ~3);
        ByteBuffer b = ByteBuffer.allocate(len);
        b.put(0, plain, 0, base);
        b.putShort(2, (short) len); // Segment Length (§2)
        b.putShort(base - 4, (short) securityType);
        b.putShort(base - 2, (short) securityLength);
        for (int i = 0; i < securityLength; i++) {
            b.put(base + i, (byte) (0x40 + i));
        }
        if (key != null && securityLength >= 40) {
            b.putLong(base, System.currentTimeMillis());
            for (int i = 8; i < 40; i++) {
                b.put(base + i, (byte) 0); // the HMAC covers the segment with its own 32 bytes zeroed
            }
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
                b.put(base + 8, mac.doFinal(b.array()));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
        return b.array();
    }

    /** Sends raw segment bytes and decodes the answer. */
    ControlSegment requestRaw(byte[] segment) throws IOException {
        write(segment);
        return ControlSegment.decode(read().buffer(), 0, lastLength);
    }

    /** Passive: reads a Connect Request and answers it with raw bytes (e.g. a Connect Accept from {@link #withSecurity}). */
    ConnectRequest answerRequest(Function<ConnectRequest, byte[]> answer) throws IOException {
        ConnectRequest cr = (ConnectRequest) ControlSegment.decode(read().buffer(), 0, lastLength);
        peerImn = cr.initialMessageNumber();
        write(answer.apply(cr));
        return cr;
    }

    byte[] segment(SegmentType type, int flags, long dataOffset, int msg, int ack, int rx, byte[] rdma, byte[] payload) {
        int len = SegmentHeader.LENGTH + (rdma == null ? 0 : rdma.length) + payload.length;
        ByteBuffer b = ByteBuffer.allocate(len);
        SegmentHeader.write(b, 0, type, flags, len, dataOffset, 0, msg, ack, rx, 0, 0);
        int p = SegmentHeader.LENGTH;
        if (rdma != null) {
            b.put(p, rdma);
            p += rdma.length;
        }
        b.put(p, payload);
        return b.array();
    }

    static byte[] rdma(long address, int handle, long length) {
        ByteBuffer b = ByteBuffer.allocate(RdmaHeader.LENGTH);
        RdmaHeader.write(b, 0, address, handle, length);
        return b.array();
    }

    /** Writes VI/TCP segments (each in its frame in seed-004 framing). */
    void write(byte[]... segments) throws IOException {
        for (byte[] s : segments) {
            out.write(onWire(s));
        }
        out.flush();
    }

    /** Writes bytes as they are (fault injection: broken frames, cut segments). */
    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Fault injection: SO_LINGER 0 close sends a TCP reset. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

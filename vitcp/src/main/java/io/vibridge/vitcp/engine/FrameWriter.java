package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import java.nio.ByteBuffer;

/**
 * Seed-004 framing of the outbound stream (VITCP-PROFILE §8, §9.11): puts each VI/TCP segment the
 * engine produced into a frame. The engine writes the segment's headers into {@link #segment()}; the
 * frame header and those headers (the control data) go to the owner's header buffer, the payload
 * views stay as they are, and padding and CRC-32 follow: in the header buffer when there is no
 * payload, otherwise as one more 4..7-byte view from a preallocated ring. Allocation-free.
 */
final class FrameWriter {

    /** Trailer views in flight at once: more than the segments an owner may hold unconfirmed. */
    private static final int TRAILERS = 2 * ViConnection.MAX_UNWRITTEN;
    private static final int TRAILER = 8;
    private static final ByteBuffer ZEROS = ByteBuffer.allocate(4);

    private final long connectionId;
    private final ByteBuffer segment = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    private final ByteBuffer[] trailers = new ByteBuffer[TRAILERS];
    private int nextTrailer;

    FrameWriter(long connectionId) {
        this.connectionId = connectionId;
        ByteBuffer all = ByteBuffer.allocateDirect(TRAILERS * TRAILER);
        for (int i = 0; i < TRAILERS; i++) {
            trailers[i] = all.slice(i * TRAILER, TRAILER);
        }
    }

    long connectionId() {
        return connectionId;
    }

    /** Where the engine writes the next VI/TCP segment's headers (cleared). */
    ByteBuffer segment() {
        return segment.clear();
    }

    /**
     * Frames the segment whose headers are in {@link #segment()} (position 0, limit their length) and
     * whose payload is {@code payload[index, index + n)}: writes frame header and control data (and,
     * without payload, padding and CRC) into {@code header}, adds the trailer view after the payload
     * when there is one, and returns the owner's payload view count.
     *
     * @param security signs a Connect Request/Accept over the frame (VITCP-PROFILE §9.11), or null
     */
    int frame(ByteBuffer header, ByteBuffer[] payload, int index, int n, ConnectSecurity security) {
        int control = segment.limit();
        int bytes = 0;
        for (int i = index; i < index + n; i++) {
            bytes += payload[i].remaining();
        }
        header.clear();
        int hdr = RdmaTcpFrame.writeHeader(header, 0, segment, 0, control, bytes, connectionId);
        header.put(hdr, segment, 0, control);
        if (security != null) {
            security.sign(header, hdr, control, hdr);
        }
        int segLen = hdr + control + bytes;
        int pad = RdmaTcpFrame.padding(segLen);
        int crc = RdmaTcpCrc.update(RdmaTcpCrc.start(), header, 0, hdr + control);
        for (int i = index; i < index + n; i++) {
            ByteBuffer p = payload[i];
            crc = RdmaTcpCrc.update(crc, p, p.position(), p.remaining());
        }
        crc = RdmaTcpCrc.finish(RdmaTcpCrc.update(crc, ZEROS, 0, pad));
        if (n == 0) {
            int at = hdr + control;
            header.put(at, ZEROS, 0, pad);
            RdmaTcpFrame.putCrc(header, at + pad, crc);
            header.limit(at + pad + RdmaTcpFrame.CRC_LENGTH);
            return 0;
        }
        header.limit(hdr + control);
        ByteBuffer t = trailers[nextTrailer];
        nextTrailer = (nextTrailer + 1) % TRAILERS;
        t.clear().put(0, ZEROS, 0, pad).putInt(pad, crc).limit(pad + RdmaTcpFrame.CRC_LENGTH); // direct: big-endian
        payload[index + n] = t;
        return n + 1;
    }
}

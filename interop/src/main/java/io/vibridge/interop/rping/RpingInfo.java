package io.vibridge.interop.rping;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * rping's buffer advertisement, the payload of every rping SEND (librdmacm/examples/rping.c):
 *
 * <pre>
 * struct rping_rdma_info {
 *     __be64 buf;    // 0: virtual address of the buffer
 *     __be32 rkey;   // 8: its rkey
 *     __be32 size;   // 12: its length
 * };                 // 16 bytes, network byte order (rping_format_send: htobe64/htobe32)
 * </pre>
 *
 * <p>The client sends one naming its source buffer (the server RDMA READs it), then one naming its sink buffer
 * (the server RDMA WRITEs it). rping's server answers each step with a SEND of its own never-formatted
 * {@code send_buf}: 16 zero bytes, which the client checks for length only ({@code client_recv}).
 *
 * @param buf  virtual address (unsigned 64 bits)
 * @param rkey rkey (unsigned 32 bits)
 * @param size length in bytes (unsigned 32 bits on the wire; rping's sizes are below 64 KiB)
 */
public record RpingInfo(long buf, int rkey, int size) {
    /** {@code sizeof(struct rping_rdma_info)}: also the only SEND length rping accepts (server_recv, client_recv). */
    public static final int LENGTH = 16;

    /** The go-ahead rping's server sends: its {@code send_buf}, zeroed with the control block and never formatted. */
    public static final RpingInfo GO_AHEAD = new RpingInfo(0, 0, 0);

    /** Writes the 16 bytes at {@code offset}, big-endian whatever the buffer's order; the position is unchanged. */
    public void encode(ByteBuffer buffer, int offset) {
        ByteBuffer b = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
        b.putLong(offset, buf);
        b.putInt(offset + 8, rkey);
        b.putInt(offset + 12, size);
    }

    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        encode(ByteBuffer.wrap(out), 0);
        return out;
    }

    /** Reads the 16 bytes at {@code offset} (rping.c server_recv: be64toh, be32toh). */
    public static RpingInfo decode(ByteBuffer buffer, int offset) {
        ByteBuffer b = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
        return new RpingInfo(b.getLong(offset), b.getInt(offset + 8), b.getInt(offset + 12));
    }

    /** {@link #size()} as the unsigned value it is on the wire. */
    public long unsignedSize() {
        return Integer.toUnsignedLong(size);
    }

    @Override
    public String toString() {
        // rping.c's DEBUG_LOG format: "RDMA addr %" PRIx64 " rkey %x len %d"
        return "addr " + Long.toHexString(buf) + " rkey " + Integer.toHexString(rkey) + " len " + unsignedSize();
    }
}

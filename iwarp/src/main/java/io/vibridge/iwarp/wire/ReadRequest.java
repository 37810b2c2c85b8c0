package io.vibridge.iwarp.wire;

import java.nio.ByteBuffer;

/**
 * The RDMAP header of an RDMA Read Request (RFC 5040 §4.4), after the untagged DDP header on queue 1:
 *
 * <pre>
 *  0  Data Sink STag (u32)            where the Read Responses go (the requester's buffer)
 *  4  Data Sink Tagged Offset (u64)
 * 12  RDMA Read Message Size (u32)
 * 16  Data Source STag (u32)          what is read (the responder's buffer)
 * 20  Data Source Tagged Offset (u64)
 * </pre>
 */
public record ReadRequest(int sinkStag, long sinkOffset, int size, int sourceStag, long sourceOffset) {

    public static final int LENGTH = 28;

    /** Decodes the header at {@code off}. */
    public static ReadRequest decode(ByteBuffer buf, int off) {
        return new ReadRequest(buf.getInt(off), buf.getLong(off + 4), buf.getInt(off + 12), buf.getInt(off + 16),
                buf.getLong(off + 20));
    }

    /** Writes the header at {@code off}. */
    public void encode(ByteBuffer buf, int off) {
        buf.putInt(off, sinkStag).putLong(off + 4, sinkOffset).putInt(off + 12, size).putInt(off + 16, sourceStag)
                .putLong(off + 20, sourceOffset);
    }

    /** The message size as the unsigned number it is. */
    public long sizeUnsigned() {
        return Integer.toUnsignedLong(size);
    }
}

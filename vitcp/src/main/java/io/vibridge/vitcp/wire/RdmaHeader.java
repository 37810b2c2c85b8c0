package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/**
 * The 16-byte RDMA header that follows the segment header in every RDMA Write and RDMA Read
 * Request segment (and their unordered forms), VITCP-PROFILE §4, draft 3.2.1.
 *
 * <pre>
 *  0  RDMA Address (u64, remote virtual address of the message's first byte)
 *  8  Registered Memory Handle (the remote side's)
 * 12  RDMA Length (u32, bytes of the whole message)
 * </pre>
 *
 * <p>{@code off} is the absolute offset of the RDMA header itself (segment offset + 24).
 */
public final class RdmaHeader {

    public static final int LENGTH = 16;
    public static final int OFF_ADDRESS = 0;
    public static final int OFF_HANDLE = 8;
    public static final int OFF_LENGTH = 12;

    private RdmaHeader() {
    }

    public static long address(ByteBuffer buf, int off) {
        return Bytes.i64(buf, off + OFF_ADDRESS);
    }

    public static int handle(ByteBuffer buf, int off) {
        return Bytes.i32(buf, off + OFF_HANDLE);
    }

    /** Unsigned 32-bit RDMA Length. */
    public static long length(ByteBuffer buf, int off) {
        return Bytes.u32(buf, off + OFF_LENGTH);
    }

    /** @throws IllegalArgumentException when {@code length} is outside u32 */
    public static void write(ByteBuffer buf, int off, long address, int handle, long length) {
        if ((length >>> 32) != 0) {
            throw new IllegalArgumentException("RDMA length " + length + " outside u32");
        }
        Bytes.put64(buf, off + OFF_ADDRESS, address);
        Bytes.put32(buf, off + OFF_HANDLE, handle);
        Bytes.put32(buf, off + OFF_LENGTH, (int) length);
    }
}

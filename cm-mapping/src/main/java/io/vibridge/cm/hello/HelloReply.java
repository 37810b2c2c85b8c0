package io.vibridge.cm.hello;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * The HelloReply: the private data of the CM REP (CM-MAPPING §3; seed 001; SDP's HAH,
 * IB-WIRE-REFERENCE §7.3). 196 bytes, of which the first 24 are defined; big-endian.
 *
 * <pre>
 *  0  MID = 1            1  reserved          2  bufs (u16)        4  len = 196 (u32)
 *  8  reserved (8)      16  MajVer|MinVer    17  reserved (3)     20  ActRcvSz (u32)
 * 24  reserved (172)
 * </pre>
 *
 * <p><b>Encoding</b> writes all 196 bytes, reserved bytes zero, {@code len} = 196, MajVer 2.
 *
 * <p><b>Decoding</b> rejects with a {@link CmFormatException} exactly what CM-MAPPING §3 lists:
 * MID not 1, MajVer not 2, len below 24; and input shorter than the 24 defined bytes. The gateway
 * treats that as a failed connect (VI Connect Reject, IS code 13). Reserved bytes are ignored (an
 * SDP acceptor sends ExtMaxAdverts = 1 in byte 19), the minor version is kept as received.
 *
 * @param bufs receive buffers the target has posted (the gateway's initial send credits), 0..65535
 * @param minorVersion MinVer, 0..15 (2 when sent by us)
 * @param actualReceiveSize ActRcvSz: the target's receive buffer size = the largest Send the peer
 *     may post (u32)
 */
public record HelloReply(int bufs, int minorVersion, long actualReceiveSize) {

    /** Size of the REP private data the HelloReply fills. */
    public static final int LENGTH = 196;
    /** Bytes that carry defined fields. */
    public static final int DEFINED_LENGTH = 24;
    /** MID of a HelloReply. */
    public static final int MID = 1;

    static final String NAME = "HelloReply";

    /** Validates the ranges. */
    public HelloReply {
        Fields.requireRange("bufs", bufs, 0xFFFF);
        Fields.requireRange("minorVersion", minorVersion, 0xF);
        Fields.requireU32("actualReceiveSize", actualReceiveSize);
    }

    /** A HelloReply as we send it: version 2.2. */
    public static HelloReply of(int bufs, long actualReceiveSize) {
        return new HelloReply(bufs, Hello.MINOR_VERSION, actualReceiveSize);
    }

    /**
     * Writes the 196-byte HelloReply at the buffer's position and advances it by 196.
     *
     * @throws BufferOverflowException if fewer than 196 bytes remain (nothing is written)
     */
    public void encode(ByteBuffer buf) {
        if (buf.remaining() < LENGTH) {
            throw new BufferOverflowException();
        }
        int p = buf.position();
        CommonHeader.write(buf, p, LENGTH, MID, bufs, minorVersion);
        buf.putInt(p + 20, (int) actualReceiveSize);
        buf.position(p + LENGTH);
    }

    /** The 196 bytes of REP private data. */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        encode(ByteBuffer.wrap(out));
        return out;
    }

    /**
     * Reads a HelloReply at the buffer's position (the start of the REP private data). On success
     * the position advances by {@code min(196, remaining)}; on failure it is unchanged.
     *
     * @throws CmFormatException if fewer than 24 bytes remain or a field breaks CM-MAPPING §3
     */
    public static HelloReply decode(ByteBuffer buf) {
        CommonHeader header = CommonHeader.read(buf, NAME, MID, DEFINED_LENGTH);
        int p = buf.position();
        long actRcvSz = buf.getInt(p + 20) & 0xFFFF_FFFFL;
        buf.position(p + Math.min(LENGTH, buf.remaining()));
        return new HelloReply(header.bufs(), header.minorVersion(), actRcvSz);
    }

    /** Decodes REP private data given as an array (see {@link #decode(ByteBuffer)}). */
    public static HelloReply fromBytes(byte[] privateData) {
        return decode(ByteBuffer.wrap(privateData));
    }
}

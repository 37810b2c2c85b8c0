package io.vibridge.iwarp.mpa;

import java.nio.ByteBuffer;

/**
 * The enhanced connection setup data of MPA revision 2 (RFC 6581 §5): the first 4 bytes of the private
 * data of a Request or Reply whose "enhanced" flag is set.
 *
 * <pre>
 *  0  P | Z | IRD (14 bits)      P: peer-to-peer (an RTR message follows the Reply)
 *  2  W | R | ORD (14 bits)      Z, W, R: zero-length Send, RDMA Write, RDMA Read as RTR message
 * </pre>
 *
 * In a Request P, Z, W and R offer; in a Reply P confirms and exactly one of Z, W, R names the RTR message
 * the initiator sends (Linux siw_cm.c: Write preferred, then Read; Send is never chosen).
 *
 * @param ird inbound RDMA Read queue depth, 0..16383
 * @param ord outbound RDMA Read queue depth, 0..16383
 */
public record MpaV2Params(int ird, int ord, boolean peerToPeer, boolean sendRtr, boolean writeRtr,
                          boolean readRtr) {

    /** Bytes of private data the parameters take. */
    public static final int LENGTH = 4;
    /** Largest IRD or ORD the 14-bit fields carry. */
    public static final int MAX_DEPTH = 0x3FFF;

    private static final int FLAG_HIGH = 0x8000;
    private static final int FLAG_LOW = 0x4000;

    public MpaV2Params {
        if (ird < 0 || ird > MAX_DEPTH || ord < 0 || ord > MAX_DEPTH) {
            throw new IllegalArgumentException("IRD and ORD are 0.." + MAX_DEPTH + ": " + ird + ", " + ord);
        }
    }

    /** No peer-to-peer mode: the client/server model, in which the initiator sends first. */
    public static MpaV2Params of(int ird, int ord) {
        return new MpaV2Params(ird, ord, false, false, false, false);
    }

    /** Decodes the 4 bytes at {@code off}. */
    public static MpaV2Params decode(ByteBuffer buf, int off) {
        int ird = buf.getShort(off) & 0xFFFF;
        int ord = buf.getShort(off + 2) & 0xFFFF;
        return new MpaV2Params(ird & MAX_DEPTH, ord & MAX_DEPTH, (ird & FLAG_HIGH) != 0, (ird & FLAG_LOW) != 0,
                (ord & FLAG_HIGH) != 0, (ord & FLAG_LOW) != 0);
    }

    /** Writes the 4 bytes at {@code off}. */
    public void encode(ByteBuffer buf, int off) {
        buf.putShort(off, (short) (ird | (peerToPeer ? FLAG_HIGH : 0) | (sendRtr ? FLAG_LOW : 0)));
        buf.putShort(off + 2, (short) (ord | (writeRtr ? FLAG_HIGH : 0) | (readRtr ? FLAG_LOW : 0)));
    }

    /** Whether any RTR message type is named. */
    public boolean anyRtr() {
        return sendRtr || writeRtr || readRtr;
    }
}

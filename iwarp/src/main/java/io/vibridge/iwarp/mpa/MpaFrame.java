package io.vibridge.iwarp.mpa;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1; revision 2 per RFC 6581 §4), the first bytes each side
 * sends on the TCP stream.
 *
 * <pre>
 *  0  Key (16 bytes: "MPA ID Req Frame" / "MPA ID Rep Frame")
 * 16  M | C | R | E | res (4)    Markers, CRC, Reject, Enhanced (rev. 2); Linux siw also uses bit 0x08
 * 17  Revision                   1 or 2
 * 18  Private Data Length (u16)  0..512
 * 20  Private Data               rev. 2 with E: starts with {@link MpaV2Params}
 * </pre>
 *
 * <p>M asks the other side to send markers, C asks for CRCs (both sides use CRCs if either asks), R in a
 * Reply rejects the connection. The reserved bits are ignored on receipt and sent as zero.
 */
public record MpaFrame(MpaKey key, boolean markers, boolean crc, boolean reject, boolean enhanced, int revision,
                       byte[] privateData) {

    /** Bytes before the private data. */
    public static final int HEADER_LENGTH = 20;
    /** RFC 5044 §7.1: "The Private Data Length MUST NOT exceed 512 bytes." */
    public static final int MAX_PRIVATE_DATA = 512;

    static final int OFF_FLAGS = 16;
    static final int OFF_REVISION = 17;
    static final int OFF_PD_LENGTH = 18;
    private static final int FLAG_MARKERS = 0x80;
    private static final int FLAG_CRC = 0x40;
    private static final int FLAG_REJECT = 0x20;
    private static final int FLAG_ENHANCED = 0x10;

    public MpaFrame {
        if (revision < 0 || revision > 255) {
            throw new IllegalArgumentException("revision is a byte: " + revision);
        }
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data is at most " + MAX_PRIVATE_DATA + " bytes: "
                    + privateData.length);
        }
        privateData = privateData.clone();
    }

    /** A revision 2 frame with the enhanced flag, its private data the parameters then {@code more}. */
    public static MpaFrame enhanced(MpaKey key, boolean crc, boolean reject, MpaV2Params params, byte[] more) {
        byte[] pd = new byte[MpaV2Params.LENGTH + more.length];
        params.encode(ByteBuffer.wrap(pd), 0);
        System.arraycopy(more, 0, pd, MpaV2Params.LENGTH, more.length);
        return new MpaFrame(key, false, crc, reject, true, 2, pd);
    }

    /**
     * The frame at {@code off} if all of it is in {@code buf[off, limit)}, else null (nothing consumed):
     * the stream reader calls again with more bytes.
     *
     * @throws IwarpProtocolException a wrong key ({@code expected}), or a Private Data Length over 512
     */
    public static MpaFrame decode(ByteBuffer buf, int off, int limit, MpaKey expected) {
        int available = limit - off;
        for (int i = 0; i < Math.min(available, MpaKey.LENGTH); i++) {
            if (buf.get(off + i) != expected.at(i)) {   // refuse early: a stray client need not send 20 bytes
                throw new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "Key", off + i,
                        "expected \"" + expected.text() + "\"");
            }
        }
        if (available < HEADER_LENGTH) {
            return null;
        }
        int pdLength = buf.getShort(off + OFF_PD_LENGTH) & 0xFFFF;
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "Private Data Length",
                    off + OFF_PD_LENGTH, pdLength + " > " + MAX_PRIVATE_DATA);
        }
        if (available < HEADER_LENGTH + pdLength) {
            return null;
        }
        int flags = buf.get(off + OFF_FLAGS) & 0xFF;
        byte[] pd = new byte[pdLength];
        buf.get(off + HEADER_LENGTH, pd);
        return new MpaFrame(expected, (flags & FLAG_MARKERS) != 0, (flags & FLAG_CRC) != 0,
                (flags & FLAG_REJECT) != 0, (flags & FLAG_ENHANCED) != 0, buf.get(off + OFF_REVISION) & 0xFF, pd);
    }

    /** Bytes on the wire. */
    public int length() {
        return HEADER_LENGTH + privateData.length;
    }

    /** Writes the frame at {@code off}; returns its length. */
    public int encode(ByteBuffer buf, int off) {
        for (int i = 0; i < MpaKey.LENGTH; i++) {
            buf.put(off + i, key.at(i));
        }
        int flags = (markers ? FLAG_MARKERS : 0) | (crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0)
                | (enhanced ? FLAG_ENHANCED : 0);
        buf.put(off + OFF_FLAGS, (byte) flags).put(off + OFF_REVISION, (byte) revision)
                .putShort(off + OFF_PD_LENGTH, (short) privateData.length).put(off + HEADER_LENGTH, privateData);
        return length();
    }

    /** The frame's bytes. */
    public byte[] toBytes() {
        byte[] b = new byte[length()];
        encode(ByteBuffer.wrap(b), 0);
        return b;
    }

    /**
     * The RFC 6581 parameters, or null when the frame is not revision 2 with the enhanced flag.
     *
     * @throws IwarpProtocolException the enhanced flag with fewer than 4 bytes of private data
     */
    public MpaV2Params v2Params() {
        if (revision != 2 || !enhanced) {
            return null;
        }
        if (privateData.length < MpaV2Params.LENGTH) {
            throw new IwarpProtocolException(TerminateCode.MPA_INVALID_REQUEST_REPLY, "Private Data Length",
                    OFF_PD_LENGTH, "enhanced setup needs 4 bytes of IRD/ORD, got " + privateData.length);
        }
        return MpaV2Params.decode(ByteBuffer.wrap(privateData), 0);
    }

    /** The private data after the RFC 6581 parameters (all of it for a frame without them). */
    public byte[] ulpPrivateData() {
        return v2Params() == null ? privateData.clone()
                : Arrays.copyOfRange(privateData, MpaV2Params.LENGTH, privateData.length);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaFrame f && key == f.key && markers == f.markers && crc == f.crc && reject == f.reject
                && enhanced == f.enhanced && revision == f.revision && Arrays.equals(privateData, f.privateData);
    }

    @Override
    public int hashCode() {
        return (key.hashCode() * 31 + revision) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "MpaFrame[" + key + " rev " + revision + (markers ? " M" : "") + (crc ? " C" : "")
                + (reject ? " R" : "") + (enhanced ? " E" : "") + " pd " + HexFormat.of().formatHex(privateData) + "]";
    }
}

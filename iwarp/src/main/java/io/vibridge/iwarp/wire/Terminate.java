package io.vibridge.iwarp.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The RDMAP header of a Terminate message (RFC 5040 §4.8), after the untagged DDP header on queue 2:
 *
 * <pre>
 *  0  Layer (4) | Error Type (4) | Error Code (8) | M | D | R | reserved (13)
 *  4  with M or D: DDP Segment Length (u16) of the message that caused it, then its DDP header (D),
 *     then its RDMAP header (R): {@link #terminatedHeaders()}
 * </pre>
 *
 * Linux siw writes Layer and Error Type in each other's nibbles (a bit-field of the wrong order,
 * docs/real-rdma-peers.md): decode what arrives, log it, and never let anything depend on it.
 *
 * @param layer           the Layer nibble as received
 * @param errorType       the Error Type nibble as received
 * @param errorCode       the Error Code byte
 * @param hdrFlags        M, D, R as bits 2, 1, 0
 * @param terminatedHeaders the bytes after the control word (DDP Segment Length and the headers)
 */
public record Terminate(int layer, int errorType, int errorCode, int hdrFlags, byte[] terminatedHeaders) {

    public static final int CONTROL_LENGTH = 4;
    public static final int FLAG_M = 4;
    public static final int FLAG_D = 2;
    public static final int FLAG_R = 1;

    public Terminate {
        terminatedHeaders = terminatedHeaders.clone();
    }

    /** A Terminate for {@code code} that carries no header of the message that caused it. */
    public static Terminate of(TerminateCode code) {
        return new Terminate(code.layer().code(), code.errorType(), code.errorCode(), 0, new byte[0]);
    }

    /** Decodes the control word at {@code off} and the {@code length - 4} bytes after it. */
    public static Terminate decode(ByteBuffer buf, int off, int length) {
        int control = buf.getInt(off);
        byte[] rest = new byte[length - CONTROL_LENGTH];
        buf.get(off + CONTROL_LENGTH, rest);
        return new Terminate(control >>> 28, (control >>> 24) & 0xF, (control >>> 16) & 0xFF, (control >>> 13) & 7,
                rest);
    }

    /** Bytes of the RDMAP header. */
    public int length() {
        return CONTROL_LENGTH + terminatedHeaders.length;
    }

    /** Writes the header at {@code off}; returns its length. */
    public int encode(ByteBuffer buf, int off) {
        buf.putInt(off, layer << 28 | errorType << 24 | errorCode << 16 | hdrFlags << 13)
                .put(off + CONTROL_LENGTH, terminatedHeaders);
        return length();
    }

    /** The code as RFC 5040 lays it out, or null when the triple is none of ours (or nibble-swapped). */
    public TerminateCode code() {
        return TerminateCode.of(layer, errorType, errorCode);
    }

    @Override
    public byte[] terminatedHeaders() {
        return terminatedHeaders.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Terminate t && layer == t.layer && errorType == t.errorType && errorCode == t.errorCode
                && hdrFlags == t.hdrFlags && Arrays.equals(terminatedHeaders, t.terminatedHeaders);
    }

    @Override
    public int hashCode() {
        return ((layer * 16 + errorType) * 256 + errorCode) * 31 + Arrays.hashCode(terminatedHeaders);
    }

    @Override
    public String toString() {
        TerminateCode c = code();
        return "Terminate[layer " + layer + ", type " + errorType + ", code 0x" + Integer.toHexString(errorCode)
                + (c == null ? "" : " = " + c.name()) + ", MDR " + Integer.toBinaryString(8 | hdrFlags).substring(1)
                + (terminatedHeaders.length == 0 ? "" : ", headers " + HexFormat.of().formatHex(terminatedHeaders))
                + "]";
    }
}

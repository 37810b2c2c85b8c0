package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The connection-establishment (CE) header that follows the segment header in Connect Request and
 * Connect Accept (VITCP-PROFILE §5, draft 3.2).
 *
 * <pre>
 *  0  Attributes (u16)
 *  2  Calling Discriminator Length (u16, 0..64)
 *  4  MTU Size (u32)
 *  8  Calling Discriminator, zero-padded to a multiple of 4
 *  .  RDMA Read Window (u16)
 *  .  Called Discriminator Length (u16, 0..64)
 *  .  Called Discriminator, zero-padded to a multiple of 4
 *  .  Security Type (u16: 0 none, 1 HMAC-SHA256)
 *  .  Security Length (u16)
 *  .  Security Information, zero-padded to a multiple of 4
 * </pre>
 *
 * <p>Decoding rules (each violation is a {@link ProtocolException} naming field and offset):
 * discriminator lengths at most 64; every field and padding inside {@code limit}; padding bytes
 * zero (the profile says "zero-padded", and the Security Type 1 HMAC covers them, so non-zero
 * padding is refused rather than silently ignored). Those are framing rules. The security fields
 * themselves are not judged here: any Security Type is parsed with whatever Security Length it
 * declares, as long as the information and its padding fit in the segment, and left to the
 * security check (VITCP-PROFILE §5: Security Type 0 with length 0, or Security Type 1 with length
 * 40, see {@link #isHmacSha256()}). A passive side holding a key answers anything else Connect
 * Reject IS 11, an active side holding a key treats such an Accept as a security failure, and a
 * side without a key does not look at the security information at all; refusing it here would
 * turn a badly signed request into IS 9.
 * Attributes and MTU are never refused here: reserved bits and reliability 3 get IS 9, a small MTU
 * gets IS 10, both decided by the engine.
 *
 * <p>{@link #securityInfo()} returns a defensive copy; equality compares contents.
 */
public record ConnectionHeader(ConnectionAttributes attributes, Discriminator calling, long mtu,
        int rdmaReadWindow, Discriminator called, int securityType, byte[] securityInfo) {

    /** Smallest CE header: both discriminators and the security information empty. */
    public static final int MIN_LENGTH = 16;
    /** Largest CE header a segment can hold. */
    public static final int MAX_LENGTH = SegmentHeader.MAX_SEGMENT_LENGTH - SegmentHeader.LENGTH;
    public static final int SECURITY_NONE = 0;
    public static final int SECURITY_HMAC_SHA256 = 1;
    /** Security Length of Security Type 1: 8-byte timestamp + 32-byte HMAC (§5). */
    public static final int HMAC_SHA256_LENGTH = 40;
    /** Smallest agreed MTU (VITCP-PROFILE §5: below it, Connect Reject IS 10). */
    public static final long MIN_MTU = 32 * 1024;

    /**
     * Any Security Type and Security Information the wire can carry are accepted (a decoded header
     * holds what the peer sent, well-formed or not: {@link #isSecurityWellFormed()}); build
     * outgoing headers with {@link #unsigned} or {@link #toBeSigned}.
     *
     * @throws IllegalArgumentException on values the wire cannot carry
     */
    public ConnectionHeader {
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(calling, "calling");
        Objects.requireNonNull(called, "called");
        Objects.requireNonNull(securityInfo, "securityInfo");
        if ((mtu >>> 32) != 0) {
            throw new IllegalArgumentException("MTU " + mtu + " outside u32");
        }
        if ((rdmaReadWindow & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("RDMA read window " + rdmaReadWindow + " outside u16");
        }
        if ((securityType & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("security type " + securityType + " outside u16");
        }
        securityInfo = securityInfo.clone();
        if (encodedLength(calling.length(), called.length(), securityInfo.length) > MAX_LENGTH) {
            throw new IllegalArgumentException("CE header does not fit in one segment");
        }
    }

    /** A header with Security Type 0. */
    public static ConnectionHeader unsigned(ConnectionAttributes attributes, Discriminator calling, long mtu,
            int rdmaReadWindow, Discriminator called) {
        return new ConnectionHeader(attributes, calling, mtu, rdmaReadWindow, called, SECURITY_NONE, new byte[0]);
    }

    /**
     * A header with Security Type 1 and 40 zero bytes of Security Information, to be filled in
     * place by {@code io.vibridge.vitcp.security.ConnectSigner#sign} after encoding.
     */
    public static ConnectionHeader toBeSigned(ConnectionAttributes attributes, Discriminator calling, long mtu,
            int rdmaReadWindow, Discriminator called) {
        return new ConnectionHeader(attributes, calling, mtu, rdmaReadWindow, called, SECURITY_HMAC_SHA256,
                new byte[HMAC_SHA256_LENGTH]);
    }

    /** A copy of the Security Information (without padding). */
    @Override
    public byte[] securityInfo() {
        return securityInfo.clone();
    }

    public int securityLength() {
        return securityInfo.length;
    }

    /**
     * VITCP-PROFILE §5: Security Type 1 with its Security Length of 40 (8-byte timestamp, 32-byte
     * HMAC), the only security information a side holding a key can verify.
     */
    public boolean isHmacSha256() {
        return securityType == SECURITY_HMAC_SHA256 && securityInfo.length == HMAC_SHA256_LENGTH;
    }

    /** VITCP-PROFILE §5: Security Type 0 with Security Length 0, or {@link #isHmacSha256()}. */
    public boolean isSecurityWellFormed() {
        return securityLengthProblem(securityType, securityInfo.length) == null;
    }

    public int encodedLength() {
        return encodedLength(calling.length(), called.length(), securityInfo.length);
    }

    static int encodedLength(int callingLength, int calledLength, int securityLength) {
        return 8 + Bytes.pad4(callingLength) + 4 + Bytes.pad4(calledLength) + 4 + Bytes.pad4(securityLength);
    }

    /**
     * Writes the header at absolute offset {@code off} with zero padding.
     *
     * @return bytes written ({@link #encodedLength()})
     */
    public int encode(ByteBuffer buf, int off) {
        int p = off;
        Bytes.put16(buf, p, attributes.bits());
        Bytes.put16(buf, p + 2, calling.length());
        Bytes.put32(buf, p + 4, (int) mtu);
        p = putPadded(buf, p + 8, calling);
        Bytes.put16(buf, p, rdmaReadWindow);
        Bytes.put16(buf, p + 2, called.length());
        p = putPadded(buf, p + 4, called);
        Bytes.put16(buf, p, securityType);
        Bytes.put16(buf, p + 2, securityInfo.length);
        p += 4;
        for (byte b : securityInfo) {
            buf.put(p++, b);
        }
        while ((p - off) % 4 != 0) {
            buf.put(p++, (byte) 0);
        }
        return p - off;
    }

    private static int putPadded(ByteBuffer buf, int p, Discriminator d) {
        int n = d.length();
        for (int i = 0; i < n; i++) {
            buf.put(p + i, d.byteAt(i));
        }
        for (int i = n; i < Bytes.pad4(n); i++) {
            buf.put(p + i, (byte) 0);
        }
        return p + Bytes.pad4(n);
    }

    /**
     * Decodes a CE header starting at absolute offset {@code off} that must end at or before the
     * absolute offset {@code limit} (exclusive). Trailing bytes after the header are the caller's
     * concern ({@link SegmentView} requires none).
     *
     * @throws ProtocolException on any inconsistency (see the class comment)
     */
    public static ConnectionHeader decode(ByteBuffer buf, int off, int limit) {
        int end = off + validate(buf, off, limit);
        int callingLength = Bytes.u16(buf, off + 2);
        byte[] calling = copy(buf, off + 8, callingLength);
        int p = off + 8 + Bytes.pad4(callingLength);
        int window = Bytes.u16(buf, p);
        int calledLength = Bytes.u16(buf, p + 2);
        byte[] called = copy(buf, p + 4, calledLength);
        p += 4 + Bytes.pad4(calledLength);
        int securityType = Bytes.u16(buf, p);
        byte[] security = copy(buf, p + 4, Bytes.u16(buf, p + 2));
        assert p + 4 + Bytes.pad4(security.length) == end;
        return new ConnectionHeader(new ConnectionAttributes(Bytes.u16(buf, off)), Discriminator.wrapOwned(calling),
                Bytes.u32(buf, off + 4), window, Discriminator.wrapOwned(called), securityType, security);
    }

    /**
     * Validates a CE header in place without allocating (same rules as {@link #decode}).
     *
     * @return the header's encoded length
     * @throws ProtocolException on any inconsistency
     */
    public static int validate(ByteBuffer buf, int off, int limit) {
        Objects.checkFromToIndex(off, limit, buf.limit()); // caller bug, not bad input
        need(off, 8, limit, "Calling Discriminator Length", off);
        int callingLength = Bytes.u16(buf, off + 2);
        if (callingLength > Discriminator.MAX_LENGTH) {
            throw new ProtocolException("Calling Discriminator Length", off + 2,
                    "length " + callingLength + " exceeds 64");
        }
        int p = off + 8;
        need(p, Bytes.pad4(callingLength) + 4, limit, "Calling Discriminator", p);
        checkPadding(buf, p, callingLength, "Calling Discriminator");
        p += Bytes.pad4(callingLength);
        int calledLength = Bytes.u16(buf, p + 2);
        if (calledLength > Discriminator.MAX_LENGTH) {
            throw new ProtocolException("Called Discriminator Length", p + 2,
                    "length " + calledLength + " exceeds 64");
        }
        p += 4;
        need(p, Bytes.pad4(calledLength) + 4, limit, "Called Discriminator", p);
        checkPadding(buf, p, calledLength, "Called Discriminator");
        p += Bytes.pad4(calledLength);
        // VITCP-PROFILE §5: Security Length against Security Type is the security check's, not framing
        int securityLength = Bytes.u16(buf, p + 2);
        p += 4;
        need(p, Bytes.pad4(securityLength), limit, "Security Information", p);
        checkPadding(buf, p, securityLength, "Security Information");
        return p + Bytes.pad4(securityLength) - off;
    }

    /**
     * Absolute offset of the Security Type field of a CE header already validated at {@code off}.
     * Security Length follows at +2, Security Information at +4.
     */
    public static int securityTypeOffset(ByteBuffer buf, int off) {
        int p = off + 8 + Bytes.pad4(Bytes.u16(buf, off + 2));
        return p + 4 + Bytes.pad4(Bytes.u16(buf, p + 2));
    }

    /**
     * What is wrong with a Security Type and Security Length by VITCP-PROFILE §5, or null when they
     * are well-formed (type 0 with length 0, type 1 with length 40).
     */
    public static String securityLengthProblem(int type, int length) {
        return switch (type) {
            case SECURITY_NONE -> length == 0 ? null : "Security Type 0 requires Security Length 0, got " + length;
            case SECURITY_HMAC_SHA256 -> length == HMAC_SHA256_LENGTH ? null
                    : "Security Type 1 requires Security Length 40, got " + length;
            default -> "unknown Security Type " + type;
        };
    }

    private static void need(int at, int bytes, int limit, String field, int fieldOffset) {
        if ((long) at + bytes > limit) {
            throw new ProtocolException(field, fieldOffset,
                    "runs past the end of the segment (needs " + bytes + " bytes, " + Math.max(0, limit - at)
                            + " left)");
        }
    }

    private static void checkPadding(ByteBuffer buf, int start, int length, String field) {
        for (int i = start + length; i < start + Bytes.pad4(length); i++) {
            if (buf.get(i) != 0) {
                throw new ProtocolException(field + " padding", i, "non-zero padding byte");
            }
        }
    }

    private static byte[] copy(ByteBuffer buf, int at, int n) {
        byte[] b = new byte[n];
        buf.get(at, b);
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionHeader h && attributes.equals(h.attributes) && calling.equals(h.calling)
                && mtu == h.mtu && rdmaReadWindow == h.rdmaReadWindow && called.equals(h.called)
                && securityType == h.securityType && Arrays.equals(securityInfo, h.securityInfo);
    }

    @Override
    public int hashCode() {
        return Objects.hash(attributes, calling, mtu, rdmaReadWindow, called, securityType)
                * 31 + Arrays.hashCode(securityInfo);
    }

    @Override
    public String toString() {
        return "ConnectionHeader[" + attributes + ", calling=" + calling + ", mtu=" + mtu + ", rdmaReadWindow="
                + rdmaReadWindow + ", called=" + called + ", securityType=" + securityType + ", securityInfo="
                + HexFormat.of().formatHex(securityInfo) + "]";
    }
}

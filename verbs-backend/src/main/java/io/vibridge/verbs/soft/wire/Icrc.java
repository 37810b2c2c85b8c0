package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * RoCEv2 Invariant CRC (REF §1.5): CRC-32 (as {@link CRC32}) over 8 bytes of 0xFF, the IP header
 * with TOS/TTL/checksum (IPv4) or traffic class/flow label/hop limit (IPv6) set to all-ones, the UDP
 * header with its checksum set to all-ones, the BTH with byte 4 set to 0xFF, and the rest of the
 * UDP payload up to the trailer (pad included). The trailer is written least-significant byte first.
 *
 * <p>The IP header is rebuilt from values known to the UDP socket; for IPv4 the Identification and
 * flags are covered by the ICRC, so the sender relies on the socket sending ID 0 with DF
 * ({@code IP_DONTFRAGMENT}, see docs/roce-on-udp-sockets.md).
 *
 * <p>Receivers do not see the IPv4 ID of a datagram. {@link #verifyIpv4} checks with ID 0 first;
 * with {@code allowAnyIpId} it then asks {@link #verifyAnyIpId} whether some 16-bit ID makes the
 * ICRC valid. The CRC is affine in the message bits, so CRC(ID = x) = CRC(ID = 0) XOR L(x), where L
 * is linear in the 16 ID bits and depends only on the number of bytes t after the ID field. The
 * sixteen basis vectors L(1 << i) are x^(8t) times each bit's CRC register (mod P, from two
 * 256-entry power tables and a multiply-by-x chain), Gauss-reduced; solving L(x) = CRC(0) XOR
 * trailer is then 16 XOR steps. Cost: no second pass over the packet (the ID-0 CRC is reused), 16
 * XORs, and a basis rebuild (IcrcBench's anyIpIdBasisRebuild) whenever the packet length differs from the
 * previous fallback's. Price: the 16 ID bits absorb 16 of the 32 check bits, so a random corruption
 * passes with probability 2^-16 instead of 2^-32 (the IPv4 header checksum and, when the peer
 * sets one, the UDP checksum still apply below us; rxe sends UDP checksum 0).
 *
 * <p>An instance holds scratch state: confine it to one thread. Zero allocation per call.
 */
public final class Icrc {

    /** The trailer length. */
    public static final int LENGTH = 4;
    /** Default RoCEv2 UDP destination port (REF §1.3). */
    public static final int ROCE_PORT = 4791;

    private static final int POLY = 0xEDB8_8320; // reflected 0x04C11DB7
    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int UDP_HEADER = 8;

    /** x^(8k) mod P for k = 0..255, and x^(2048k) mod P for k = 0..255 (reflected). */
    private static final int[] X8_LO = new int[256];
    private static final int[] X8_HI = new int[256];

    static {
        X8_LO[0] = 1 << 31; // x^0
        int x8 = 1 << 31;
        for (int i = 0; i < 8; i++) {
            x8 = mulX(x8);
        }
        for (int k = 1; k < 256; k++) {
            X8_LO[k] = multModP(X8_LO[k - 1], x8);
        }
        int x2048 = multModP(X8_LO[255], x8);
        X8_HI[0] = 1 << 31;
        for (int k = 1; k < 256; k++) {
            X8_HI[k] = multModP(X8_HI[k - 1], x2048);
        }
    }

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[8 + IPV6_HEADER + UDP_HEADER + Bth.LENGTH];

    // Gauss-reduced ID contribution basis for the last trailing length (see class comment).
    private int basisTrailing = -1;
    private int basisCount;
    private final int[] basisVector = new int[16];
    private final int[] basisIdBits = new int[16];
    private final int[] basisPivot = new int[16];

    public Icrc() {
        for (int i = 0; i < 8; i++) {
            scratch[i] = (byte) 0xFF;
        }
    }

    /**
     * ICRC of an IPv4 RoCEv2 packet as our socket sends it: IP ID 0, DF set.
     *
     * @param srcIp  source IPv4 address, big-endian int
     * @param dstIp  destination IPv4 address, big-endian int
     * @param buf    holds the UDP payload (BTH first)
     * @param off    absolute offset of the BTH
     * @param length UDP payload length including the 4-byte ICRC trailer
     * @return the CRC value (not byte-swapped)
     */
    public int computeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        return computeIpv4(srcIp, dstIp, 0, true, srcPort, dstPort, buf, off, length);
    }

    /** ICRC of an IPv4 RoCEv2 packet with an explicit IP Identification and DF flag. */
    public int computeIpv4(int srcIp, int dstIp, int ipId, boolean dontFragment, int srcPort, int dstPort,
                           ByteBuffer buf, int off, int length) {
        checkLength(buf, off, length);
        byte[] s = scratch;
        int p = 8;
        int totalLength = IPV4_HEADER + UDP_HEADER + length;
        s[p] = 0x45;
        s[p + 1] = (byte) 0xFF;                 // TOS masked
        s[p + 2] = (byte) (totalLength >>> 8);
        s[p + 3] = (byte) totalLength;
        s[p + 4] = (byte) (ipId >>> 8);
        s[p + 5] = (byte) ipId;
        s[p + 6] = (byte) (dontFragment ? 0x40 : 0);
        s[p + 7] = 0;
        s[p + 8] = (byte) 0xFF;                 // TTL masked
        s[p + 9] = 17;
        s[p + 10] = (byte) 0xFF;                // header checksum masked
        s[p + 11] = (byte) 0xFF;
        putInt(s, p + 12, srcIp);
        putInt(s, p + 16, dstIp);
        return finish(p + IPV4_HEADER, srcPort, dstPort, buf, off, length);
    }

    /**
     * ICRC of an IPv6 RoCEv2 packet (traffic class, flow label and hop limit are masked, so only
     * the addresses, ports and lengths matter).
     */
    public int computeIpv6(Gid src, Gid dst, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        checkLength(buf, off, length);
        byte[] s = scratch;
        int p = 8;
        int payloadLength = UDP_HEADER + length;
        s[p] = 0x6F;
        s[p + 1] = (byte) 0xFF;
        s[p + 2] = (byte) 0xFF;
        s[p + 3] = (byte) 0xFF;
        s[p + 4] = (byte) (payloadLength >>> 8);
        s[p + 5] = (byte) payloadLength;
        s[p + 6] = 17;
        s[p + 7] = (byte) 0xFF;                 // hop limit masked
        putLong(s, p + 8, src.hi());
        putLong(s, p + 16, src.lo());
        putLong(s, p + 24, dst.hi());
        putLong(s, p + 32, dst.lo());
        return finish(p + IPV6_HEADER, srcPort, dstPort, buf, off, length);
    }

    /** Computes the IPv4 ICRC (ID 0, DF) and writes it as the trailer of the packet. */
    public void sealIpv4(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        sealIpv4(srcIp, dstIp, 0, srcPort, dstPort, buf, off, length);
    }

    /**
     * Computes the IPv4 ICRC for IP Identification {@code ipId} (DF set) and writes it as the trailer: the
     * k-th datagram of a segmented send leaves with ID k (see {@code port.Transmitter}).
     */
    public void sealIpv4(int srcIp, int dstIp, int ipId, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        writeTrailer(buf, off, length, computeIpv4(srcIp, dstIp, ipId, true, srcPort, dstPort, buf, off, length));
    }

    /** Computes the IPv6 ICRC and writes it as the trailer of the packet. */
    public void sealIpv6(Gid src, Gid dst, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        writeTrailer(buf, off, length, computeIpv6(src, dst, srcPort, dstPort, buf, off, length));
    }

    /**
     * Verifies a received IPv4 packet: first assuming IP ID 0 and DF; then, if
     * {@code allowAnyIpId}, whether any IP ID (with DF) makes it valid.
     */
    public IcrcCheck verifyIpv4(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer buf, int off,
                                int length, boolean allowAnyIpId) {
        if (length < Bth.LENGTH + LENGTH) {
            return IcrcCheck.INVALID; // too short to carry a BTH and an ICRC
        }
        int computed = computeIpv4(srcIp, dstIp, srcPort, dstPort, buf, off, length);
        int received = trailer(buf, off, length);
        if (computed == received) {
            return IcrcCheck.VALID;
        }
        if (allowAnyIpId && solveId(length, computed ^ received) >= 0) {
            return IcrcCheck.VALID_SOME_IP_ID;
        }
        return IcrcCheck.INVALID;
    }

    /**
     * The IPv4 Identification (DF set) for which the packet's ICRC is valid, or -1 if none is. A
     * result is unique: the 16 ID bits map injectively into the CRC for every packet length.
     */
    public int verifyAnyIpId(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        return ipv4Id(srcIp, dstIp, srcPort, dstPort, buf, off, length, 0);
    }

    /**
     * As {@link #verifyAnyIpId}, checking {@code likelyId} first: when the ICRC holds for it, the answer
     * costs one CRC pass and no solving. CRC(ID = x) = CRC(ID = e) XOR L(x XOR e), so any other ID follows
     * from the same pass.
     */
    public int ipv4Id(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer buf, int off, int length, int likelyId) {
        if (length < Bth.LENGTH + LENGTH) {
            return -1;
        }
        int computed = computeIpv4(srcIp, dstIp, likelyId, true, srcPort, dstPort, buf, off, length);
        int received = trailer(buf, off, length);
        if (computed == received) {
            return likelyId;
        }
        int delta = solveId(length, computed ^ received);
        return delta < 0 ? -1 : delta ^ likelyId;
    }

    /** Verifies a received IPv6 packet. */
    public IcrcCheck verifyIpv6(Gid src, Gid dst, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        if (length < Bth.LENGTH + LENGTH) {
            return IcrcCheck.INVALID;
        }
        int computed = computeIpv6(src, dst, srcPort, dstPort, buf, off, length);
        return computed == trailer(buf, off, length) ? IcrcCheck.VALID : IcrcCheck.INVALID;
    }

    /** The received trailer as a CRC value (read least-significant byte first). */
    public static int trailer(ByteBuffer buf, int off, int length) {
        return Integer.reverseBytes(buf.getInt(off + length - LENGTH));
    }

    /** Writes a CRC value as the trailer, least-significant byte first. */
    public static void writeTrailer(ByteBuffer buf, int off, int length, int crcValue) {
        buf.putInt(off + length - LENGTH, Integer.reverseBytes(crcValue));
    }

    private int finish(int p, int srcPort, int dstPort, ByteBuffer buf, int off, int length) {
        byte[] s = scratch;
        int udpLength = UDP_HEADER + length;
        s[p] = (byte) (srcPort >>> 8);
        s[p + 1] = (byte) srcPort;
        s[p + 2] = (byte) (dstPort >>> 8);
        s[p + 3] = (byte) dstPort;
        s[p + 4] = (byte) (udpLength >>> 8);
        s[p + 5] = (byte) udpLength;
        s[p + 6] = (byte) 0xFF;                 // UDP checksum masked
        s[p + 7] = (byte) 0xFF;
        p += UDP_HEADER;
        buf.get(off, s, p, Bth.LENGTH);
        s[p + 4] = (byte) 0xFF;                 // FECN, BECN, Resv6a masked
        p += Bth.LENGTH;
        CRC32 c = crc;
        c.reset();
        c.update(s, 0, p);
        int from = off + Bth.LENGTH;
        int to = off + length - LENGTH;
        if (to > from) {
            if (buf.hasArray()) {
                c.update(buf.array(), buf.arrayOffset() + from, to - from);
            } else {
                // CRC32.update(ByteBuffer) consumes position..limit; restore them afterwards.
                int pos = buf.position();
                int lim = buf.limit();
                buf.limit(to).position(from);
                c.update(buf);
                buf.limit(lim).position(pos);
            }
        }
        return (int) c.getValue();
    }

    private static void checkLength(ByteBuffer buf, int off, int length) {
        if (length < Bth.LENGTH + LENGTH || off < 0 || off + length > buf.limit() || length > 0xFFFF - 48) {
            throw new IllegalArgumentException("bad RoCE packet extent: off=" + off + " length=" + length);
        }
    }

    /** Solves L(id) = delta for the 16 ID bits, or returns -1. */
    private int solveId(int length, int delta) {
        // Bytes of the pseudo-packet after the 2 ID bytes: rest of IPv4 header, UDP, payload sans ICRC.
        int trailing = IPV4_HEADER - 6 + UDP_HEADER + length - LENGTH;
        if (trailing != basisTrailing) {
            buildBasis(trailing);
        }
        int id = 0;
        for (int i = 0; i < basisCount; i++) {
            if ((delta & basisPivot[i]) != 0) {
                delta ^= basisVector[i];
                id ^= basisIdBits[i];
            }
        }
        return delta == 0 ? id : -1;
    }

    private void buildBasis(int trailing) {
        // Contribution of ID bit 7 (the last bit fed: bytes go high then low, each LSB first):
        // its CRC register shifted through the trailing bytes. Each earlier bit carries one more
        // factor x, so the other fifteen follow by one multiply-by-x step each.
        int c = multModP(x8nModP(trailing), rawCrc2(0, 0x80));
        int count = 0;
        for (int step = 0; step < 16; step++) {
            int bit = step < 8 ? 7 - step : 23 - step; // 7..0, then 15..8
            int v = c;
            c = mulX(c);
            int ids = 1 << bit;
            for (int i = 0; i < count; i++) {      // reduce against the existing pivots
                if ((v & basisPivot[i]) != 0) {
                    v ^= basisVector[i];
                    ids ^= basisIdBits[i];
                }
            }
            if (v == 0) {
                continue;                           // dependent: impossible for CRC-32, kept safe
            }
            int pivot = Integer.highestOneBit(v);
            for (int i = 0; i < count; i++) {      // keep the basis fully reduced
                if ((basisVector[i] & pivot) != 0) {
                    basisVector[i] ^= v;
                    basisIdBits[i] ^= ids;
                }
            }
            basisVector[count] = v;
            basisIdBits[count] = ids;
            basisPivot[count] = pivot;
            count++;
        }
        basisCount = count;
        basisTrailing = trailing;
    }

    /** CRC register (zero initial value, no final XOR) after two bytes. */
    private static int rawCrc2(int b0, int b1) {
        int c = 0;
        c = rawByte(c, b0);
        return rawByte(c, b1);
    }

    private static int rawByte(int c, int b) {
        c ^= b & 0xFF;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
        }
        return c;
    }

    /** a * b mod P in the reflected representation (bit 31 = x^0). */
    static int multModP(int a, int b) {
        int m = 1 << 31;
        int p = 0;
        while (a != 0) {
            if ((a & m) != 0) {
                p ^= b;
                a ^= m;
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return p;
    }

    /** b * x mod P in the reflected representation. */
    static int mulX(int b) {
        return (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }

    /** x^(8n) mod P for 0 <= n < 65536. */
    static int x8nModP(int n) {
        return multModP(X8_LO[n & 0xFF], X8_HI[n >>> 8]);
    }

    private static void putInt(byte[] s, int p, int v) {
        s[p] = (byte) (v >>> 24);
        s[p + 1] = (byte) (v >>> 16);
        s[p + 2] = (byte) (v >>> 8);
        s[p + 3] = (byte) v;
    }

    private static void putLong(byte[] s, int p, long v) {
        putInt(s, p, (int) (v >>> 32));
        putInt(s, p + 4, (int) v);
    }
}

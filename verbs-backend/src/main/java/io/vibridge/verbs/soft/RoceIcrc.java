package io.vibridge.verbs.soft;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * ICRC of RoCEv2 packets over IPv4 (IB-WIRE-REFERENCE §1.5): CRC-32 over 8 bytes 0xFF, the masked IPv4
 * and UDP headers, the BTH with byte 4 masked, then the rest of the packet through the pad; written
 * least-significant byte first. Not thread-safe: one instance per thread or per lock.
 * (Private helper of the engine; the wire package's {@code Icrc} is the reference codec.)
 */
public final class RoceIcrc {
    private static final int PSEUDO = 8 + 20 + 8 + 12;
    private static final int ID_OFFSET = 8 + 4;
    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[PSEUDO];
    private final Map<Integer, int[]> idBasisByLength = new HashMap<>();

    public RoceIcrc() {
        for (int i = 0; i < 8; i++) {
            pseudo[i] = (byte) 0xFF;
        }
    }

    /**
     * CRC of {@code pkt[0, len)} (UDP payload without the ICRC) as sent from {@code src:srcPort} to
     * {@code dst:dstPort} with the given IP identification, DF set.
     */
    public int compute(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int len, int ipId) {
        int udpLen = 8 + len + 4;
        int totLen = 20 + udpLen;
        byte[] p = pseudo;
        p[8] = 0x45;
        p[9] = (byte) 0xFF;                       // TOS masked
        p[10] = (byte) (totLen >>> 8);
        p[11] = (byte) totLen;
        p[12] = (byte) (ipId >>> 8);
        p[13] = (byte) ipId;
        p[14] = 0x40;                              // DF
        p[15] = 0;
        p[16] = (byte) 0xFF;                       // TTL masked
        p[17] = 17;
        p[18] = (byte) 0xFF;                       // header checksum masked
        p[19] = (byte) 0xFF;
        System.arraycopy(src, 0, p, 20, 4);
        System.arraycopy(dst, 0, p, 24, 4);
        p[28] = (byte) (srcPort >>> 8);
        p[29] = (byte) srcPort;
        p[30] = (byte) (dstPort >>> 8);
        p[31] = (byte) dstPort;
        p[32] = (byte) (udpLen >>> 8);
        p[33] = (byte) udpLen;
        p[34] = (byte) 0xFF;                       // UDP checksum masked
        p[35] = (byte) 0xFF;
        for (int i = 0; i < 12; i++) {
            p[36 + i] = pkt.get(i);
        }
        p[40] = (byte) 0xFF;                       // FECN/BECN/Resv6a masked
        crc.reset();
        crc.update(p, 0, PSEUDO);
        int savedPos = pkt.position();
        int savedLim = pkt.limit();
        pkt.limit(len).position(12);
        crc.update(pkt);
        pkt.limit(savedLim).position(savedPos);
        return (int) crc.getValue();
    }

    /** Writes the ICRC for IP ID 0 (what our DF socket sends) at {@code pkt[len, len+4)}. */
    public void write(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int len) {
        int v = compute(src, srcPort, dst, dstPort, pkt, len, 0);
        pkt.put(len, (byte) v).put(len + 1, (byte) (v >>> 8)).put(len + 2, (byte) (v >>> 16)).put(len + 3, (byte) (v >>> 24));
    }

    public static int trailer(ByteBuffer pkt, int icrcOffset) {
        return (pkt.get(icrcOffset) & 0xFF) | (pkt.get(icrcOffset + 1) & 0xFF) << 8
                | (pkt.get(icrcOffset + 2) & 0xFF) << 16 | (pkt.get(icrcOffset + 3) & 0xFF) << 24;
    }

    /** Outcome of {@link #verify}. */
    public enum Result { OK_ID_ZERO, OK_SOME_ID, BAD }

    /**
     * Verifies a received packet ({@code pkt[0,total)}, ICRC last). First assumes IP ID 0; else tests whether
     * some 16-bit IP ID makes it valid (the CRC is linear: the difference depends on the ID bits only).
     */
    public Result verify(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int total) {
        int len = total - 4;
        int got = trailer(pkt, len);
        int c0 = compute(src, srcPort, dst, dstPort, pkt, len, 0);
        if (c0 == got) {
            return Result.OK_ID_ZERO;
        }
        int[] basis = idBasisByLength.computeIfAbsent(len, RoceIcrc::idBasis);
        int delta = c0 ^ got;
        for (int b : basis) {
            if (b != 0 && Integer.highestOneBit(delta) == Integer.highestOneBit(b)) {
                delta ^= b;
            }
        }
        return delta == 0 ? Result.OK_SOME_ID : Result.BAD;
    }

    /** Reduced basis (one vector per leading bit) of the CRC differences caused by each IP ID bit. */
    private static int[] idBasis(int len) {
        int n = PSEUDO + len - 12;
        byte[] zero = new byte[n];
        CRC32 c = new CRC32();
        c.update(zero);
        int z = (int) c.getValue();
        int[] rows = new int[32];
        for (int bit = 0; bit < 16; bit++) {
            byte[] m = new byte[n];
            m[ID_OFFSET + (bit >>> 3)] = (byte) (0x80 >>> (bit & 7));
            c.reset();
            c.update(m);
            int v = (int) c.getValue() ^ z;
            // Gaussian elimination keyed by the highest set bit
            for (int hb = 31; hb >= 0 && v != 0; hb--) {
                if ((v >>> hb & 1) == 0) {
                    continue;
                }
                if (rows[hb] == 0) {
                    rows[hb] = v;
                    v = 0;
                } else {
                    v ^= rows[hb];
                }
            }
        }
        int[] out = new int[32];
        for (int hb = 31; hb >= 0; hb--) {
            out[31 - hb] = rows[hb];
        }
        return out;
    }
}

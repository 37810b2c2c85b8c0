package io.vibridge.verbs.soft;

import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import java.nio.ByteBuffer;

/**
 * The engine's view of the ICRC (IB-WIRE-REFERENCE §1.5) over the wire package's {@link Icrc}: IPv4
 * addresses as byte arrays, packets at offset 0. Sending: computed for IP ID 0 + DF, what our socket
 * sends. Receiving: ID 0 first, then the any-ID fallback (see the module README). Not thread-safe.
 */
public final class RoceIcrc {
    private final Icrc icrc = new Icrc();

    private static int ip(byte[] a) {
        return (a[0] & 0xFF) << 24 | (a[1] & 0xFF) << 16 | (a[2] & 0xFF) << 8 | a[3] & 0xFF;
    }

    /** Writes the ICRC of {@code pkt[0, len)} at {@code pkt[len, len+4)}. */
    public void write(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int len) {
        icrc.sealIpv4(ip(src), ip(dst), srcPort, dstPort, pkt, 0, len + 4);
    }

    /** Verifies {@code pkt[0, total)} whose last 4 bytes are the ICRC. */
    public IcrcCheck verify(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int total,
                            boolean allowAnyIpId) {
        return icrc.verifyIpv4(ip(src), ip(dst), srcPort, dstPort, pkt, 0, total, allowAnyIpId);
    }

    /**
     * Remembers which peers send IP ID 0 (our engine, anything with DF + IP_DONTFRAGMENT semantics): once a
     * source has sent {@link #STRICT_AFTER} packets valid with ID 0 and none that needed the any-ID fallback,
     * the fallback is off for it, so it keeps the full 32-bit check. Peers such as rxe keep the fallback.
     * Allocation-free open addressing on the IPv4 address.
     */
    public static final class PeerModes {
        static final int STRICT_AFTER = 8;
        private static final int SIZE = 1024;
        private final int[] keys = new int[SIZE];
        private final int[] counts = new int[SIZE];
        private final boolean[] used = new boolean[SIZE];

        private int slot(int ip) {
            int h = (ip * 0x9E3779B9) >>> 22;
            for (int n = 0; n < SIZE; n++) {
                int i = (h + n) & (SIZE - 1);
                if (!used[i]) {
                    used[i] = true;
                    keys[i] = ip;
                    return i;
                }
                if (keys[i] == ip) {
                    return i;
                }
            }
            return -1;                                   // table full: stay permissive
        }

        /** True if the any-ID fallback may be used for packets from {@code src}. */
        public boolean allowAnyId(byte[] src) {
            int i = slot(ip(src));
            return i < 0 || counts[i] < STRICT_AFTER;
        }

        public void record(byte[] src, IcrcCheck result) {
            int i = slot(ip(src));
            if (i < 0) {
                return;
            }
            if (result == IcrcCheck.VALID) {
                if (counts[i] >= 0 && counts[i] < STRICT_AFTER) {
                    counts[i]++;
                }
            } else if (result == IcrcCheck.VALID_SOME_IP_ID) {
                counts[i] = -1;                              // a non-zero-ID sender: permissive for good
            }
        }
    }
}

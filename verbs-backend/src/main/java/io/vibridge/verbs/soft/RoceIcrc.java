package io.vibridge.verbs.soft;

import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import java.nio.ByteBuffer;

/**
 * The device's receive-side ICRC policy (IB-WIRE-REFERENCE §1.5) over the wire package's {@link Icrc}:
 * ID 0 first, then the any-ID fallback, which is switched off per source address once that source has
 * proved to send IP ID 0 (see the module README). Senders seal with their own {@link Icrc} directly.
 * Confined to the receive thread.
 */
final class RoceIcrc {
    /** Packets valid with ID 0, and none needing the fallback, after which a source gets the full check. */
    static final int STRICT_AFTER = 8;
    private static final int SIZE = 1024;
    private final Icrc icrc = new Icrc();
    // Allocation-free open addressing on the IPv4 address: count of ID-0 packets, -1 = a non-zero-ID sender.
    private final int[] keys = new int[SIZE];
    private final int[] counts = new int[SIZE];
    private final boolean[] used = new boolean[SIZE];

    /** Verifies {@code pkt[0, total)}, whose last 4 bytes are the ICRC, and updates the source's mode. */
    IcrcCheck verify(int srcIp, int srcPort, int dstIp, int dstPort, ByteBuffer pkt, int total) {
        int i = slot(srcIp);
        boolean allowAnyId = i < 0 || counts[i] < STRICT_AFTER;
        IcrcCheck result = icrc.verifyIpv4(srcIp, dstIp, srcPort, dstPort, pkt, 0, total, allowAnyId);
        if (i >= 0) {
            if (result == IcrcCheck.VALID) {
                if (counts[i] >= 0 && counts[i] < STRICT_AFTER) {
                    counts[i]++;
                }
            } else if (result == IcrcCheck.VALID_SOME_IP_ID) {
                counts[i] = -1;                              // a non-zero-ID sender: permissive for good
            }
        }
        return result;
    }

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
        return -1;                                       // table full: stay permissive
    }
}

package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import java.nio.ByteBuffer;

/**
 * The device's receive-side ICRC policy (IB-WIRE-REFERENCE §1.5) over the wire package's {@link Icrc}:
 * the IP IDs our sockets send (see {@link #verify}), then the any-ID fallback, which is switched off per
 * source address once that source has proved to send only those (see the module README). Senders seal with their own {@link Icrc} directly.
 * Confined to the receive thread.
 */
final class IcrcPolicy {
    private static final int SIZE = 1024;
    private final Icrc icrc = new Icrc();
    /** Packets valid with an expected ID, and none needing the fallback, after which a source gets the full check. */
    private final int strictAfter;
    // Allocation-free open addressing on the IPv4 address: count of expected-ID packets, -1 = another sender.
    private final int[] keys = new int[SIZE];
    private final int[] counts = new int[SIZE];
    private final boolean[] used = new boolean[SIZE];

    IcrcPolicy(int strictAfter) {
        this.strictAfter = strictAfter;
    }

    /**
     * Verifies {@code pkt[0, total)}, whose last 4 bytes are the ICRC, the {@code index}-th datagram of its
     * received group (0 when it came alone), and updates the source's mode. Expected IP IDs: {@code index}
     * (a segmented send that arrived whole) and any below {@link UdpSocket#MAX_SEGMENTS} (0 from a socket
     * like ours; k for the k-th datagram of a segmented send that was split on the way). Strict sources
     * therefore get 26 check bits instead of 32; permissive ones any ID, at 16.
     */
    IcrcCheck verify(int srcIp, int srcPort, int dstIp, int dstPort, ByteBuffer pkt, int total, int index) {
        int i = slot(srcIp);
        boolean allowAnyId = i < 0 || counts[i] < strictAfter;
        int id = icrc.ipv4Id(srcIp, dstIp, srcPort, dstPort, pkt, 0, total, index);
        IcrcCheck result = id < 0 ? IcrcCheck.INVALID
                : id == index || id < UdpSocket.MAX_SEGMENTS ? IcrcCheck.VALID
                : allowAnyId ? IcrcCheck.VALID_SOME_IP_ID : IcrcCheck.INVALID;
        if (i >= 0) {
            // Proof is ID 0 on a datagram that came alone or led its group, as our sockets send. A kernel
            // sender (rxe) numbers its IDs from a per-destination counter (Linux route.c ip_idents_reserve):
            // one that happens to run through 0..63 must not pass as ours, or the source turns strict and
            // every packet after ID 63 is dropped (seen in CI: rxe's READ requests unanswered until retry).
            // The counter meets 0 once per wrap, and every ID past 63 on the way makes the source permissive.
            if (result == IcrcCheck.VALID && id == 0 && index == 0) {
                if (counts[i] >= 0 && counts[i] < strictAfter) {
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

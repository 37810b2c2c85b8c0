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
    public IcrcCheck verify(byte[] src, int srcPort, byte[] dst, int dstPort, ByteBuffer pkt, int total) {
        return icrc.verifyIpv4(ip(src), ip(dst), srcPort, dstPort, pkt, 0, total, true);
    }
}

package io.vibridge.verbs.soft.wire;

import java.util.zip.CRC32;

/**
 * Independent, deliberately naive ICRC per the "Java recipe" of REF §1.5: copy the whole IP
 * datagram, mask the variant fields, prepend 8 x 0xFF, CRC-32 everything up to the trailer.
 */
final class ReferenceIcrc {

    private ReferenceIcrc() {
    }

    /** @param ipDatagram IPv4 (no options) or IPv6 datagram carrying UDP + RoCE incl. trailer */
    static int compute(byte[] ipDatagram) {
        byte[] m = ipDatagram.clone();
        int udp;
        if ((m[0] >> 4) == 4) {
            m[1] = (byte) 0xFF;
            m[8] = (byte) 0xFF;
            m[10] = (byte) 0xFF;
            m[11] = (byte) 0xFF;
            udp = 20;
        } else {
            m[0] = (byte) (m[0] | 0x0F);
            m[1] = (byte) 0xFF;
            m[2] = (byte) 0xFF;
            m[3] = (byte) 0xFF;
            m[7] = (byte) 0xFF;
            udp = 40;
        }
        m[udp + 6] = (byte) 0xFF;
        m[udp + 7] = (byte) 0xFF;
        m[udp + 8 + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        crc.update(m, 0, m.length - 4);
        return (int) crc.getValue();
    }

    /** The trailer of a datagram as a CRC value (LSB first on the wire). */
    static int trailer(byte[] ipDatagram) {
        int n = ipDatagram.length;
        return (ipDatagram[n - 4] & 0xFF) | (ipDatagram[n - 3] & 0xFF) << 8 | (ipDatagram[n - 2] & 0xFF) << 16
            | (ipDatagram[n - 1] & 0xFF) << 24;
    }
}

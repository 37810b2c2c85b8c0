package io.vibridge.iwarp.mpa;

/**
 * What an MPA exchange settled (RFC 5044 §7.1, RFC 6581 §5), as seen from the side that holds it.
 *
 * @param crc            FPDUs carry CRC32C both ways (either side asked)
 * @param ird            RDMA Read Requests this side accepts outstanding (its inbound depth)
 * @param ord            RDMA Read Requests this side may have outstanding at the peer
 * @param rtr            the peer-to-peer RTR message the initiator sends first, or {@link Rtr#NONE}
 * @param ulpPrivateData private data after the IRD/ORD word (for the upper layer)
 */
public record MpaSettings(boolean crc, int ird, int ord, Rtr rtr, byte[] ulpPrivateData) {

    public MpaSettings {
        ulpPrivateData = ulpPrivateData.clone();
    }

    @Override
    public byte[] ulpPrivateData() {
        return ulpPrivateData.clone();
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;

/**
 * The agreed connection parameters (VITCP-PROFILE §5).
 *
 * @param peer the peer's CE header (its attributes, discriminator, read window)
 * @param reliability the common reliability level
 * @param mtu agreed MTU (lesser of both, >= 32 KiB)
 * @param flowControl descriptor flow control in force (both asked)
 * @param localReadWindow inbound RDMA Reads we hold for the peer
 * @param peerReadWindow RDMA Reads we may have outstanding at the peer
 * @param localImn our Initial Message Number
 * @param peerImn the peer's Initial Message Number
 */
public record Negotiated(ConnectionHeader peer, ReliabilityLevel reliability, long mtu, boolean flowControl,
        int localReadWindow, int peerReadWindow, int localImn, int peerImn) {

    /**
     * The peer set attribute bit 6, "Unordered operations understood" (VITCP-PROFILE §5): only then may
     * this side send the unordered types (§9.10, seed 002). False when the peer's header is unknown.
     */
    public boolean peerUnderstandsUnordered() {
        return peer != null && peer.attributes().unordered();
    }
}

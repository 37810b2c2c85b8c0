package io.vibridge.vitcp.wire;

/**
 * The 16-bit Attributes field of the CE header (VITCP-PROFILE §5).
 *
 * <pre>
 * bits 1..0  reliability level (0 UD, 1 RD, 2 RR, 3 invalid)
 * bit 2      RDMA Write Enable
 * bit 3      RDMA Read Enable
 * bit 4      Descriptor Flow Control
 * bit 5      Peer-to-peer
 * bit 6      Unordered operations understood (seed 002)
 * bits 15..7 zero
 * </pre>
 *
 * <p>Holds the raw bits as received. Decoding never fails: reserved bits and reliability code 3 are
 * answered by the engine with Connect Reject IS 9 (§9.9), so they are exposed via
 * {@link #reservedBitsSet()}, {@link #hasValidReliability()} and {@link #conformsToProfile()}.
 * {@link #reliability()} throws {@link IllegalStateException} for code 3; check first.
 */
public record ConnectionAttributes(int bits) {

    public static final int RELIABILITY_MASK = 0x0003;
    public static final int RDMA_WRITE_ENABLE = 0x0004;
    public static final int RDMA_READ_ENABLE = 0x0008;
    public static final int DESCRIPTOR_FLOW_CONTROL = 0x0010;
    public static final int PEER_TO_PEER = 0x0020;
    public static final int UNORDERED = 0x0040;
    /** Bits 15..7, which must be zero. */
    public static final int RESERVED_MASK = 0xFF80;
    /** Reliability code 3 (invalid). */
    public static final int INVALID_RELIABILITY_CODE = 3;

    /** @throws IllegalArgumentException when {@code bits} is outside u16 */
    public ConnectionAttributes {
        if ((bits & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("attributes " + bits + " outside u16");
        }
    }

    public static ConnectionAttributes of(ReliabilityLevel reliability, boolean rdmaWrite, boolean rdmaRead,
            boolean flowControl, boolean peerToPeer, boolean unordered) {
        int b = reliability.code();
        if (rdmaWrite) {
            b |= RDMA_WRITE_ENABLE;
        }
        if (rdmaRead) {
            b |= RDMA_READ_ENABLE;
        }
        if (flowControl) {
            b |= DESCRIPTOR_FLOW_CONTROL;
        }
        if (peerToPeer) {
            b |= PEER_TO_PEER;
        }
        if (unordered) {
            b |= UNORDERED;
        }
        return new ConnectionAttributes(b);
    }

    /** Raw reliability code 0..3. */
    public int reliabilityCode() {
        return bits & RELIABILITY_MASK;
    }

    public boolean hasValidReliability() {
        return reliabilityCode() != INVALID_RELIABILITY_CODE;
    }

    /** @throws IllegalStateException when the code is 3 (see {@link #hasValidReliability()}) */
    public ReliabilityLevel reliability() {
        int c = reliabilityCode();
        if (c == INVALID_RELIABILITY_CODE) {
            throw new IllegalStateException("reliability level code 3 is invalid (VITCP-PROFILE §5)");
        }
        return ReliabilityLevel.of(c);
    }

    public boolean reservedBitsSet() {
        return (bits & RESERVED_MASK) != 0;
    }

    public boolean rdmaWrite() {
        return (bits & RDMA_WRITE_ENABLE) != 0;
    }

    public boolean rdmaRead() {
        return (bits & RDMA_READ_ENABLE) != 0;
    }

    public boolean flowControl() {
        return (bits & DESCRIPTOR_FLOW_CONTROL) != 0;
    }

    public boolean peerToPeer() {
        return (bits & PEER_TO_PEER) != 0;
    }

    public boolean unordered() {
        return (bits & UNORDERED) != 0;
    }

    /**
     * False when a passive side must answer Connect Reject IS 9 on these attributes alone: reserved
     * bits set, reliability code 3, or RDMA Read Enable at Unreliable Delivery (§9.9, VIA 2.5.1).
     * Matching against the local side's attributes is the engine's job.
     */
    public boolean conformsToProfile() {
        return !reservedBitsSet() && hasValidReliability()
                && !(rdmaRead() && reliabilityCode() == ReliabilityLevel.UNRELIABLE_DELIVERY.code());
    }

    @Override
    public String toString() {
        return "ConnectionAttributes[" + (hasValidReliability() ? reliability() : "reliability=3")
                + (rdmaWrite() ? ", rdmaWrite" : "") + (rdmaRead() ? ", rdmaRead" : "")
                + (flowControl() ? ", flowControl" : "") + (peerToPeer() ? ", peerToPeer" : "")
                + (unordered() ? ", unordered" : "")
                + (reservedBitsSet() ? ", reserved=0x" + Integer.toHexString(bits & RESERVED_MASK) : "") + "]";
    }
}

package io.vibridge.vitcp.rdmatcp;

/**
 * The outcome of {@link RdmaTcpFrame#check}: a frame is placed only when it is {@link #OK}. Every
 * other outcome is a protocol error (VITCP-PROFILE §8, §9.8): the VI goes to Error, TCP closes.
 */
public enum FrameCheck {
    OK("valid"),
    /** Byte 0 is not 1 (seed 004 §3.4). */
    VERSION("frame version is not 1"),
    /** Segment Length or CLEN cannot hold the header and a VI/TCP segment header. */
    LENGTH("segment length or CLEN too small for the header and the VI/TCP header"),
    /** The CRC-32 over header, control data, payload and padding does not match. */
    CRC("CRC-32 mismatch"),
    /** Not the connection's 64-bit Connection ID (seed 004 §3.4). */
    CONNECTION_ID("unknown connection ID"),
    /** A seed-004 field disagrees with the VI/TCP segment in the control data (VITCP-PROFILE §9.11). */
    MISMATCH("frame header disagrees with the VI/TCP header in its control data");

    private final String description;

    FrameCheck(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}

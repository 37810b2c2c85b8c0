package io.vibridge.vitcp.rdmatcp;

import io.vibridge.vitcp.wire.SegmentType;

/**
 * The 2-bit seed-004 message type and the header it selects (seed 004 §3.1-3.3): Send and RDMA Read
 * Response carry a Data Offset (24-byte header), RDMA Write and RDMA Read Request the RDMA Buffer ID,
 * Buffer Offset and RDMA Length (32-byte header).
 */
public enum FrameType {
    SEND(0, RdmaTcpFrame.SHORT_HEADER),
    RDMA_WRITE(1, RdmaTcpFrame.LONG_HEADER),
    RDMA_READ_REQUEST(2, RdmaTcpFrame.LONG_HEADER),
    RDMA_READ_RESPONSE(3, RdmaTcpFrame.SHORT_HEADER);

    private static final FrameType[] BY_CODE = values();

    private final int code;
    private final int headerLength;

    FrameType(int code, int headerLength) {
        this.code = code;
        this.headerLength = headerLength;
    }

    public int code() {
        return code;
    }

    /** Bytes of the seed-004 header before the control data. */
    public int headerLength() {
        return headerLength;
    }

    /** True for the types whose header names an RDMA buffer (RDMA Write, RDMA Read Request). */
    public boolean namesBuffer() {
        return headerLength == RdmaTcpFrame.LONG_HEADER;
    }

    /** The type of a 2-bit code (every code is defined). */
    public static FrameType of(int code) {
        return BY_CODE[code & 3];
    }

    /**
     * The frame type a VI/TCP segment travels as (VITCP-PROFILE §8, §9.11): Send, RDMA Write, RDMA Read
     * Request and Read Response as themselves, the unordered types as their ordered counterparts (the
     * order field says unordered), NOP and the connection segments as Send.
     */
    public static FrameType carrying(SegmentType t) {
        return switch (t.ordered()) {
            case RDMA_WRITE -> RDMA_WRITE;
            case RDMA_READ_REQUEST -> RDMA_READ_REQUEST;
            case RDMA_READ_RESPONSE -> RDMA_READ_RESPONSE;
            default -> SEND;
        };
    }
}

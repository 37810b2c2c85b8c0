package io.vibridge.vitcp.wire;

/**
 * The 5-bit segment Type (VITCP-PROFILE §2). Codes 12..31 are reserved: a receiver treats them as
 * a protocol error.
 */
public enum SegmentType {
    SEND(0, Extra.NONE, true),
    RDMA_WRITE(1, Extra.RDMA, true),
    RDMA_READ_REQUEST(2, Extra.RDMA, true),
    RDMA_READ_RESPONSE(3, Extra.NONE, false),
    NOP(4, Extra.NONE, false),
    CONNECT_REQUEST(5, Extra.CE, false),
    CONNECT_ACCEPT(6, Extra.CE, false),
    CONNECT_REJECT(7, Extra.NONE, false),
    CONNECT_NO_MATCH(8, Extra.NONE, false),
    /** Seed 002. */
    SEND_UNORDERED(9, Extra.NONE, true),
    /** Seed 002. */
    RDMA_WRITE_UNORDERED(10, Extra.RDMA, true),
    /** Seed 002. */
    RDMA_READ_REQUEST_UNORDERED(11, Extra.RDMA, true);

    private enum Extra { NONE, RDMA, CE }

    /** Number of distinct 5-bit type codes. */
    public static final int CODE_SPACE = 32;

    private static final SegmentType[] BY_CODE = new SegmentType[CODE_SPACE];

    static {
        for (SegmentType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final Extra extra;
    private final boolean consumesMessageNumber;

    SegmentType(int code, Extra extra, boolean consumesMessageNumber) {
        this.code = code;
        this.extra = extra;
        this.consumesMessageNumber = consumesMessageNumber;
    }

    /** The 5-bit wire code. */
    public int code() {
        return code;
    }

    /**
     * Looks a wire code up without allocating.
     *
     * @param offset absolute offset of the Type/Flags byte, for the exception
     * @throws ProtocolException for reserved codes 12..31 and anything outside 0..31
     */
    public static SegmentType of(int code, int offset) {
        SegmentType t = code >= 0 && code < CODE_SPACE ? BY_CODE[code] : null;
        if (t == null) {
            throw new ProtocolException("Type", offset, "reserved segment type " + code);
        }
        return t;
    }

    /** True when {@code code} names a defined (non-reserved) type. */
    public static boolean isDefined(int code) {
        return code >= 0 && code < CODE_SPACE && BY_CODE[code] != null;
    }

    /** Every segment of this type carries the 16-byte RDMA header (VITCP-PROFILE §4). */
    public boolean hasRdmaHeader() {
        return extra == Extra.RDMA;
    }

    /** This type carries the CE header (Connect Request / Accept, VITCP-PROFILE §5). */
    public boolean hasConnectionHeader() {
        return extra == Extra.CE;
    }

    /** The message takes a new message number (VITCP-PROFILE §2 table). */
    public boolean consumesMessageNumber() {
        return consumesMessageNumber;
    }

    /** One of the three seed-002 unordered types. */
    public boolean isUnordered() {
        return this == SEND_UNORDERED || this == RDMA_WRITE_UNORDERED || this == RDMA_READ_REQUEST_UNORDERED;
    }

    /** The ordered counterpart (VITCP-PROFILE §9.10); itself for every ordered type. */
    public SegmentType ordered() {
        return switch (this) {
            case SEND_UNORDERED -> SEND;
            case RDMA_WRITE_UNORDERED -> RDMA_WRITE;
            case RDMA_READ_REQUEST_UNORDERED -> RDMA_READ_REQUEST;
            default -> this;
        };
    }

    /** The unordered counterpart of SEND / RDMA_WRITE / RDMA_READ_REQUEST; itself for the others. */
    public SegmentType unordered() {
        return switch (this) {
            case SEND -> SEND_UNORDERED;
            case RDMA_WRITE -> RDMA_WRITE_UNORDERED;
            case RDMA_READ_REQUEST -> RDMA_READ_REQUEST_UNORDERED;
            default -> this;
        };
    }

    /** Connect Request, Accept, Reject or No Match. */
    public boolean isConnectionSetup() {
        return code >= CONNECT_REQUEST.code && code <= CONNECT_NO_MATCH.code;
    }

    /** Send or Send Unordered. */
    public boolean isSend() {
        return this == SEND || this == SEND_UNORDERED;
    }

    /** RDMA Write or RDMA Write Unordered. */
    public boolean isRdmaWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_UNORDERED;
    }

    /** RDMA Read Request or its unordered form. */
    public boolean isRdmaReadRequest() {
        return this == RDMA_READ_REQUEST || this == RDMA_READ_REQUEST_UNORDERED;
    }

    /** Types whose segments may carry payload: Send, RDMA Write, RDMA Read Response (and unordered). */
    public boolean carriesPayload() {
        return isSend() || isRdmaWrite() || this == RDMA_READ_RESPONSE;
    }

    /** Bytes of the extra header after the segment header; for CE types its minimum (16). */
    public int extraHeaderLength() {
        return switch (extra) {
            case NONE -> 0;
            case RDMA -> RdmaHeader.LENGTH;
            case CE -> ConnectionHeader.MIN_LENGTH;
        };
    }

    /** Smallest valid Segment Length for this type. */
    public int minimumSegmentLength() {
        return SegmentHeader.LENGTH + extraHeaderLength();
    }
}

package io.vibridge.iwarp.wire;

/**
 * Why a stream is terminated: the (Layer, Error Type, Error Code) triple of an RDMAP Terminate message
 * (RFC 5040 §7, with DDP's codes from RFC 5041 §7 and MPA's from RFC 5044 §8 and RFC 6581 §6). One
 * constant per error this project detects or meets; {@link #of} maps any received triple back.
 */
public enum TerminateCode {

    // RDMAP (layer 0)
    RDMAP_LOCAL_CATASTROPHIC(Layer.RDMAP, 0x0, 0xFF, "local catastrophic error"),
    RDMAP_INVALID_STAG(Layer.RDMAP, 0x1, 0x00, "invalid STag"),
    RDMAP_BASE_BOUNDS(Layer.RDMAP, 0x1, 0x01, "base or bounds violation"),
    RDMAP_ACCESS_RIGHTS(Layer.RDMAP, 0x1, 0x02, "access rights violation"),
    RDMAP_STAG_NOT_ASSOCIATED(Layer.RDMAP, 0x1, 0x03, "STag not associated with the stream"),
    RDMAP_TO_WRAP(Layer.RDMAP, 0x1, 0x04, "tagged offset wraps"),
    RDMAP_CANNOT_INVALIDATE(Layer.RDMAP, 0x1, 0x09, "STag cannot be invalidated"),
    RDMAP_VERSION(Layer.RDMAP, 0x2, 0x05, "invalid RDMAP version"),
    RDMAP_UNEXPECTED_OPCODE(Layer.RDMAP, 0x2, 0x06, "unexpected opcode"),
    RDMAP_CATASTROPHIC_STREAM(Layer.RDMAP, 0x2, 0x07, "catastrophic error, localized to the stream"),
    RDMAP_CATASTROPHIC_GLOBAL(Layer.RDMAP, 0x2, 0x08, "catastrophic error, global"),
    RDMAP_UNSPECIFIED(Layer.RDMAP, 0x2, 0xFF, "unspecified remote operation error"),

    // DDP (layer 1)
    DDP_LOCAL_CATASTROPHIC(Layer.DDP, 0x0, 0x00, "local catastrophic error"),
    DDP_TAGGED_INVALID_STAG(Layer.DDP, 0x1, 0x00, "invalid STag"),
    DDP_TAGGED_BASE_BOUNDS(Layer.DDP, 0x1, 0x01, "base or bounds violation"),
    DDP_TAGGED_STAG_NOT_ASSOCIATED(Layer.DDP, 0x1, 0x02, "STag not associated with the stream"),
    DDP_TAGGED_TO_WRAP(Layer.DDP, 0x1, 0x03, "tagged offset wraps"),
    DDP_TAGGED_VERSION(Layer.DDP, 0x1, 0x04, "invalid DDP version"),
    DDP_UNTAGGED_INVALID_QN(Layer.DDP, 0x2, 0x01, "invalid queue number"),
    DDP_UNTAGGED_NO_BUFFER(Layer.DDP, 0x2, 0x02, "invalid MSN: no buffer available"),
    DDP_UNTAGGED_MSN_RANGE(Layer.DDP, 0x2, 0x03, "invalid MSN: out of range"),
    DDP_UNTAGGED_INVALID_MO(Layer.DDP, 0x2, 0x04, "invalid message offset"),
    DDP_UNTAGGED_TOO_LONG(Layer.DDP, 0x2, 0x05, "message too long for the buffer"),
    DDP_UNTAGGED_VERSION(Layer.DDP, 0x2, 0x06, "invalid DDP version"),

    // LLP: MPA (layer 2, error type 0)
    MPA_CRC(Layer.LLP, 0x0, 0x02, "received MPA CRC does not match"),
    MPA_MARKER(Layer.LLP, 0x0, 0x03, "marker or FPDU start error"),
    MPA_INVALID_REQUEST_REPLY(Layer.LLP, 0x0, 0x04, "invalid MPA Request or Reply frame"),
    MPA_LOCAL_CATASTROPHIC(Layer.LLP, 0x0, 0x05, "local catastrophic error"),
    MPA_INSUFFICIENT_IRD(Layer.LLP, 0x0, 0x06, "insufficient IRD resources"),
    MPA_NO_MATCHING_RTR(Layer.LLP, 0x0, 0x07, "no matching RTR model");

    /** The Terminate Control's Layer nibble (RFC 5040 §4.8). */
    public enum Layer {
        RDMAP(0), DDP(1), LLP(2);

        private final int code;

        Layer(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    private static final TerminateCode[] VALUES = values();

    private final Layer layer;
    private final int errorType;
    private final int errorCode;
    private final String description;

    TerminateCode(Layer layer, int errorType, int errorCode, String description) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
        this.description = description;
    }

    public Layer layer() {
        return layer;
    }

    public int errorType() {
        return errorType;
    }

    public int errorCode() {
        return errorCode;
    }

    public String description() {
        return description;
    }

    /** The constant for a received triple, or null when it is none of ours (the raw values are still logged). */
    public static TerminateCode of(int layer, int errorType, int errorCode) {
        for (TerminateCode c : VALUES) {
            if (c.layer.code == layer && c.errorType == errorType && c.errorCode == errorCode) {
                return c;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return name() + " (" + layer + " " + errorType + "/0x" + Integer.toHexString(errorCode) + ": " + description + ")";
    }
}

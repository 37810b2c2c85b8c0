package io.vibridge.vitcp.wire;

/** VI Error Type, byte 22 of the segment header (VITCP-PROFILE §2, draft 3.1). */
public enum ViErrorType {
    NONE(0),
    RDMA_PROTECTION(1),
    DESCRIPTOR(2);

    private static final ViErrorType[] BY_CODE = values();

    private final int code;

    ViErrorType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static boolean isDefined(int code) {
        return code >= 0 && code < BY_CODE.length;
    }

    /**
     * Decoder lookup. Whether an undefined value matters depends on the reliability level (at
     * Unreliable/Reliable Delivery receivers ignore the field, draft 3.1), so the segment codec
     * does not call this; the engine does when the field is meaningful.
     *
     * @param offset absolute offset of byte 22, for the exception
     * @throws ProtocolException for values other than 0, 1, 2
     */
    public static ViErrorType of(int code, int offset) {
        if (!isDefined(code)) {
            throw new ProtocolException("VI Error Type", offset, "undefined VI Error Type " + code);
        }
        return BY_CODE[code];
    }
}

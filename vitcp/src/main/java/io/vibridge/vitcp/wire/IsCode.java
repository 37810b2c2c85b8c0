package io.vibridge.vitcp.wire;

/**
 * IS Error Codes, byte 23 of the segment header (VITCP-PROFILE §2). 0x80..0xFF are reserved for the
 * gateway's own detailed codes.
 */
public final class IsCode {

    public static final int NONE = 0;
    public static final int RECEIVE_QUEUE_EMPTY = 1;
    public static final int RECEIVE_DESCRIPTOR_TOO_SMALL = 2;
    public static final int INVALID_MEMORY_HANDLE = 3;
    public static final int ADDRESS_OUT_OF_REGION = 4;
    public static final int ACCESS_NOT_ENABLED = 5;
    public static final int PROTECTION_TAG_MISMATCH = 6;
    public static final int READ_WINDOW_EXCEEDED = 7;
    public static final int CONSUMER_REJECTED = 8;
    public static final int UNSUPPORTED_VERSION_OR_ATTRIBUTES = 9;
    public static final int MTU_TOO_SMALL = 10;
    public static final int SECURITY_REJECTED = 11;
    public static final int NO_ROUTE = 12;
    public static final int TARGET_REJECTED = 13;
    public static final int RESOURCES_EXHAUSTED = 14;
    public static final int TIMEOUT = 15;
    public static final int REMOTE_TRANSPORT_ERROR = 16;
    /** First code of the gateway's detailed range. */
    public static final int GATEWAY_DETAIL_FIRST = 0x80;
    /** Last code of the gateway's detailed range. */
    public static final int GATEWAY_DETAIL_LAST = 0xFF;

    private static final String[] DESCRIPTIONS = {
        "none",
        "receive queue empty",
        "receive descriptor too small",
        "invalid memory handle",
        "address outside the registered region",
        "access not enabled",
        "protection tag mismatch",
        "RDMA read window exceeded",
        "consumer rejected the connection",
        "unsupported version or attributes mismatch",
        "MTU below the 32 KiB minimum",
        "security information rejected",
        "no route / target unreachable",
        "target rejected the connection",
        "resources exhausted",
        "timeout",
        "remote transport error",
    };

    private IsCode() {
    }

    /** Human-readable meaning; never null. */
    public static String describe(int code) {
        if (code >= 0 && code < DESCRIPTIONS.length) {
            return DESCRIPTIONS[code];
        }
        if (isGatewayDetail(code)) {
            return "gateway detail code 0x" + Integer.toHexString(code);
        }
        return "unassigned IS code " + code;
    }

    /** A code this profile assigns (0..16). */
    public static boolean isDefined(int code) {
        return code >= 0 && code < DESCRIPTIONS.length;
    }

    public static boolean isGatewayDetail(int code) {
        return code >= GATEWAY_DETAIL_FIRST && code <= GATEWAY_DETAIL_LAST;
    }

    /**
     * The VI Error Type an IS code travels with in a data-phase error report (VITCP-PROFILE §6):
     * 1, 2 and 7 with VI Descriptor Error (2), 3..6 with RDMA Memory Protection Error (1). Other
     * codes have no pairing (they travel only in a Connect Reject): {@link ViErrorType#NONE}.
     */
    public static ViErrorType viErrorTypeFor(int code) {
        return switch (code) {
            case RECEIVE_QUEUE_EMPTY, RECEIVE_DESCRIPTOR_TOO_SMALL, READ_WINDOW_EXCEEDED -> ViErrorType.DESCRIPTOR;
            case INVALID_MEMORY_HANDLE, ADDRESS_OUT_OF_REGION, ACCESS_NOT_ENABLED, PROTECTION_TAG_MISMATCH ->
                ViErrorType.RDMA_PROTECTION;
            default -> ViErrorType.NONE;
        };
    }
}

package io.vibridge.verbs.soft.wire;

/** REJ reason codes (REF §5.5). Note 1 is "no QP", the timeout is 4. */
public enum CmRejectReason {
    NO_QP(1),
    NO_EEC(2),
    NO_RESOURCES(3),
    TIMEOUT(4),
    UNSUPPORTED_REQUEST(5),
    INVALID_COMM_ID(6),
    INVALID_COMM_INSTANCE(7),
    INVALID_SERVICE_ID(8),
    INVALID_TRANSPORT_TYPE(9),
    STALE_CONNECTION(10),
    RDC_NOT_EXIST(11),
    INVALID_PRIMARY_GID(12),
    INVALID_PRIMARY_LID(13),
    INVALID_PRIMARY_SL(14),
    INVALID_PRIMARY_TRAFFIC_CLASS(15),
    INVALID_PRIMARY_HOP_LIMIT(16),
    INVALID_PRIMARY_PACKET_RATE(17),
    INVALID_ALTERNATE_GID(18),
    INVALID_ALTERNATE_LID(19),
    INVALID_ALTERNATE_SL(20),
    INVALID_ALTERNATE_TRAFFIC_CLASS(21),
    INVALID_ALTERNATE_HOP_LIMIT(22),
    INVALID_ALTERNATE_PACKET_RATE(23),
    PORT_CM_REDIRECT(24),
    PORT_REDIRECT(25),
    INVALID_PATH_MTU(26),
    INSUFFICIENT_RESPONDER_RESOURCES(27),
    CONSUMER_REJECT(28),
    INVALID_RNR_RETRY(29),
    DUPLICATE_LOCAL_COMM_ID(30),
    INVALID_CLASS_VERSION(31),
    INVALID_PRIMARY_FLOW_LABEL(32),
    INVALID_ALTERNATE_FLOW_LABEL(33),
    VENDOR_OPTION_NOT_SUPPORTED(35);

    private static final CmRejectReason[] BY_CODE = new CmRejectReason[36];

    static {
        for (CmRejectReason r : values()) {
            BY_CODE[r.code] = r;
        }
    }

    private final int code;

    CmRejectReason(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The reason for a code, or null if the code is not listed. */
    public static CmRejectReason of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}

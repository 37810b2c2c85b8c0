package io.vibridge.iwarp.wire;

/**
 * The RDMAP messages (RFC 5040 §4.3) and what each means to DDP (RFC 5041): tagged or untagged, which
 * untagged queue, how many ULPDU bytes precede the payload. One table every path consults, as Linux's
 * {@code iwarp_pktinfo} (siw_qp.c) and rxe's opcode table do.
 */
public enum RdmapOpcode {
    RDMA_WRITE(0x0, -1, DdpSegment.TAGGED_HEADER, true),
    READ_REQUEST(0x1, 1, DdpSegment.UNTAGGED_HEADER + ReadRequest.LENGTH, false),
    READ_RESPONSE(0x2, -1, DdpSegment.TAGGED_HEADER, true),
    SEND(0x3, 0, DdpSegment.UNTAGGED_HEADER, true),
    SEND_INVALIDATE(0x4, 0, DdpSegment.UNTAGGED_HEADER, true),
    SEND_SE(0x5, 0, DdpSegment.UNTAGGED_HEADER, true),
    SEND_SE_INVALIDATE(0x6, 0, DdpSegment.UNTAGGED_HEADER, true),
    TERMINATE(0x7, 2, DdpSegment.UNTAGGED_HEADER + Terminate.CONTROL_LENGTH, false);

    /** The untagged queues (RFC 5040 §5.1). */
    public static final int QN_SEND = 0;
    public static final int QN_READ_REQUEST = 1;
    public static final int QN_TERMINATE = 2;
    public static final int QUEUES = 3;

    private static final RdmapOpcode[] BY_CODE = new RdmapOpcode[16];

    static {
        for (RdmapOpcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;
    private final int queue;
    private final int headerLength;
    private final boolean data;

    RdmapOpcode(int code, int queue, int headerLength, boolean data) {
        this.code = code;
        this.queue = queue;
        this.headerLength = headerLength;
        this.data = data;
    }

    /** The 4-bit code, or null for codes RFC 5040 leaves undefined here (8-15: RFC 7306's extensions). */
    public static RdmapOpcode of(int code) {
        return BY_CODE[code & 0xF];
    }

    public int code() {
        return code;
    }

    /** DDP's tagged buffer model (RDMA Write, Read Response) rather than untagged. */
    public boolean tagged() {
        return queue < 0;
    }

    /** The untagged queue number, or -1 for a tagged message. */
    public int queue() {
        return queue;
    }

    /** ULPDU bytes before the payload: DDP header, RDMAP control and any RDMAP header. */
    public int headerLength() {
        return headerLength;
    }

    /** Whether the message carries ULP payload (Read Request and Terminate carry only RDMAP headers). */
    public boolean carriesData() {
        return data;
    }

    /** A Send with the Solicited Event bit. */
    public boolean solicited() {
        return this == SEND_SE || this == SEND_SE_INVALIDATE;
    }

    /** A Send that names an STag for the receiver to invalidate. */
    public boolean invalidates() {
        return this == SEND_INVALIDATE || this == SEND_SE_INVALIDATE;
    }

    /** One of the four Sends. */
    public boolean isSend() {
        return queue == QN_SEND;
    }
}

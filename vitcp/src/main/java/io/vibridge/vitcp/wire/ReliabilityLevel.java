package io.vibridge.vitcp.wire;

/** VI reliability levels as coded in Attributes bits 1..0 (VITCP-PROFILE §5, VIA 2.5). */
public enum ReliabilityLevel {
    UNRELIABLE_DELIVERY(0),
    RELIABLE_DELIVERY(1),
    RELIABLE_RECEPTION(2);

    private static final ReliabilityLevel[] BY_CODE = values();

    private final int code;

    ReliabilityLevel(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for 3 (invalid per §5) and anything outside 0..2 */
    public static ReliabilityLevel of(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("invalid reliability level code " + code);
        }
        return BY_CODE[code];
    }
}

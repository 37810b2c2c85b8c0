package io.vibridge.cm.hello;

/**
 * The FlowC field of the Hello (CM-MAPPING §4, seed 001): who owns flow control on the RC
 * connection.
 */
public enum FlowControl {
    /**
     * FlowC 0: the transport owns flow control (SDP-like). Every RC Send starts with the 16-byte
     * {@link FlowControlHeader}; credits follow {@link FlowCredits}.
     */
    TRANSPORT(0),
    /** FlowC 1: the application owns flow control; RC Sends carry the payload bare. */
    APPLICATION(1);

    private final int wireValue;

    FlowControl(int wireValue) {
        this.wireValue = wireValue;
    }

    /** The 4-bit value on the wire (0 or 1). */
    public int wireValue() {
        return wireValue;
    }

    /**
     * The mode for a wire or configuration value.
     *
     * @throws IllegalArgumentException if {@code value} is neither 0 nor 1 (other values are reserved)
     */
    public static FlowControl of(int value) {
        return switch (value) {
            case 0 -> TRANSPORT;
            case 1 -> APPLICATION;
            default -> throw new IllegalArgumentException("FlowC must be 0 or 1, got " + value);
        };
    }
}

package io.vibridge.verbs.soft.wire;

/** The "Message Rejected" (REJ) / "Message MRAed" (MRA) field, 2 bits (REF §5.5). */
public enum CmTargetMessage {
    REQ, REP, OTHER;

    /** Field value 0..2. */
    public int code() {
        return ordinal();
    }

    /** Decodes the 2-bit field; 3 is reserved. */
    static CmTargetMessage of(int code, int offset) {
        return switch (code) {
            case 0 -> REQ;
            case 1 -> REP;
            case 2 -> OTHER;
            default -> throw new MalformedPacketException("cm.messageType", offset, "reserved message type " + code);
        };
    }
}

package io.vibridge.vitcp.wire;

/**
 * A received segment (or one of its headers) violates the VI/TCP wire format (VITCP-PROFILE §2-5).
 *
 * <p>The only exception any decoder of this package throws on any input. It names the offending
 * field and the absolute byte offset of that field in the decoded buffer, so a log line points at
 * the exact byte. Per VITCP-PROFILE §9.8 the engine answers it by closing TCP (or, during setup, as
 * §2 and §9.9 say).
 */
public final class ProtocolException extends RuntimeException {

    private final String field;
    private final int offset;

    public ProtocolException(String field, int offset, String reason) {
        super(field + " at offset " + offset + ": " + reason);
        this.field = field;
        this.offset = offset;
    }

    /** Name of the offending field as the profile spells it, e.g. {@code "Segment Length"}. */
    public String field() {
        return field;
    }

    /** Absolute byte offset of the field in the decoded buffer. */
    public int offset() {
        return offset;
    }

    /**
     * The Version byte was not 1. During connection setup the passive side answers this with Connect
     * Reject IS 9 instead of just closing (VITCP-PROFILE §2, §9.11); the raw type code is still
     * readable with {@link SegmentHeader#typeCode}.
     */
    public boolean isVersionMismatch() {
        return "Version".equals(field);
    }
}

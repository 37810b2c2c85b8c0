package io.vibridge.iwarp.wire;

/**
 * Received bytes violate MPA, DDP or RDMAP (RFC 5044, 5041, 5040): the only exception the decoders of
 * this module throw on any input. It names the field, its absolute offset in the decoded buffer and the
 * Terminate the stream ends with ({@link #code()}), so the engine can tell the peer why before it closes
 * (RFC 5040 §5.3: a Terminate, then the stream is torn down).
 */
public final class IwarpProtocolException extends RuntimeException {

    private final String field;
    private final int offset;
    private final TerminateCode code;

    public IwarpProtocolException(TerminateCode code, String field, int offset, String reason) {
        super(field + " at offset " + offset + ": " + reason + " [" + code.name() + "]");
        this.field = field;
        this.offset = offset;
        this.code = code;
    }

    /** The offending field as the RFC names it, e.g. {@code "DDP Version"}. */
    public String field() {
        return field;
    }

    /** Absolute byte offset of the field in the decoded buffer. */
    public int offset() {
        return offset;
    }

    /** What the Terminate message sent before closing says. */
    public TerminateCode code() {
        return code;
    }
}

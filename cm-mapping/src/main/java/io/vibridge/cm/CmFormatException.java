package io.vibridge.cm;

/**
 * The one exception every decoder of this module throws for malformed input: a Hello, HelloReply,
 * flow-control header or CMA header whose bytes break a rule of {@code docs/cm-mapping.md} or
 * {@code docs/ib-wire-reference.md}, or a FlowC 0 peer whose sequence numbers are inconsistent.
 *
 * <p>It names the {@linkplain #message() message}, the {@linkplain #field() field}, the
 * {@linkplain #offset() byte offset} of that field within the message (or {@code -1} when no single
 * offset applies) and the {@linkplain #reason() reason}. It is unchecked and extends
 * {@link IllegalArgumentException}, so it never escapes as anything else and callers can catch it
 * precisely.
 *
 * <p>A passive side that refuses a Hello or CMA header answers with a CM REJ whose reason is
 * {@link #CM_REJ_CONSUMER_REASON} (28, "consumer reject", IBA 12.6.7; {@code docs/ib-wire-reference.md}
 * §5.5), Message Rejected = REQ, and no private data (as Linux's rdma_cm does, §5.9); {@link
 * #cmRejectReason()} gives that code. An active side that receives a bad HelloReply treats the
 * connect as failed (CM-MAPPING §3: VI Connect Reject, IS code 13).
 */
public final class CmFormatException extends IllegalArgumentException {

    /** CM REJ reason "consumer reject": the reason a receiver uses to refuse malformed private data. */
    public static final int CM_REJ_CONSUMER_REASON = 28;

    private final String message;
    private final String field;
    private final int offset;
    private final String reason;

    /**
     * @param message the message type, e.g. {@code "Hello"}
     * @param field the field, e.g. {@code "MajVer"}
     * @param offset the byte offset of the field in the message, or -1
     * @param reason why the field is refused
     */
    public CmFormatException(String message, String field, int offset, String reason) {
        super(message + "." + field + (offset >= 0 ? " (offset " + offset + ")" : "") + ": " + reason);
        this.message = message;
        this.field = field;
        this.offset = offset;
        this.reason = reason;
    }

    /** The message type the bad bytes belong to, e.g. {@code "Hello"}, {@code "CmaHeader"}. */
    public String message() {
        return message;
    }

    /** The field that is malformed, named as in the spec tables (e.g. {@code "MajVer"}, {@code "len"}). */
    public String field() {
        return field;
    }

    /** Byte offset of the field within the message, or -1 when no single offset applies. */
    public int offset() {
        return offset;
    }

    /** Why the field was refused (human-readable). */
    public String reason() {
        return reason;
    }

    /** The CM REJ reason a receiver refusing this input sends: always {@value #CM_REJ_CONSUMER_REASON}. */
    public int cmRejectReason() {
        return CM_REJ_CONSUMER_REASON;
    }
}

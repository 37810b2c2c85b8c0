package io.vibridge.verbs.soft.wire;

/**
 * A received packet or MAD violates the wire format. The only exception the decoders of this
 * package throw on bad input.
 *
 * <p>No stack trace is captured: hostile peers can make decoders fail at line rate, and the field
 * name plus offset say everything needed.
 */
public final class MalformedPacketException extends RuntimeException {

    private final String field;
    private final int offset;

    /**
     * @param field  name of the offending field (e.g. {@code "bth.opcode"})
     * @param offset byte offset of that field within the UDP payload (or within the MAD for
     *               {@link CmCodec}), -1 if not tied to one field
     * @param detail what is wrong
     */
    public MalformedPacketException(String field, int offset, String detail) {
        super(field + " @" + offset + ": " + detail, null, false, false);
        this.field = field;
        this.offset = offset;
    }

    /** Name of the offending field. */
    public String field() {
        return field;
    }

    /** Byte offset of the offending field, -1 if not tied to one field. */
    public int offset() {
        return offset;
    }
}

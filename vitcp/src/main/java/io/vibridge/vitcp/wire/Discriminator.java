package io.vibridge.vitcp.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A VI discriminator: 0..64 opaque bytes (VITCP-PROFILE §1, §5). Immutable; defensive copies in
 * and out; equality by content. The one discriminator type: the wire's, the VI Provider's and the
 * gateway's routes'.
 *
 * <p>Configuration writes a discriminator as text: {@link #parse(String)} takes a string as its
 * UTF-8 bytes, or, with the prefix {@code hex:}, as hexadecimal ({@code "hex:0a0B"} = bytes 0x0A
 * 0x0B; an even number of digits, case-insensitive). A text discriminator that itself starts with
 * {@code hex:} must therefore be written in hex. {@link #toString()} writes that form.
 */
public final class Discriminator {

    /** Longest discriminator (VITCP-PROFILE §5: a one-byte length, at most 64). */
    public static final int MAX_LENGTH = 64;
    /** Prefix that marks a hexadecimal discriminator in configuration text. */
    public static final String HEX_PREFIX = "hex:";
    /** The discriminator of no bytes. */
    public static final Discriminator EMPTY = new Discriminator(new byte[0]);

    private final byte[] bytes;

    private Discriminator(byte[] owned) {
        this.bytes = owned;
    }

    /**
     * A discriminator of these bytes (copied).
     *
     * @throws IllegalArgumentException if longer than 64 bytes
     */
    public static Discriminator of(byte[] bytes) {
        if (bytes.length > MAX_LENGTH) {
            throw new IllegalArgumentException("a discriminator is at most " + MAX_LENGTH + " bytes, got "
                    + bytes.length);
        }
        return bytes.length == 0 ? EMPTY : new Discriminator(bytes.clone());
    }

    /**
     * A discriminator of the UTF-8 bytes of {@code text}.
     *
     * @throws IllegalArgumentException if they are more than 64
     */
    public static Discriminator ofUtf8(String text) {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A discriminator from its configuration text: {@code hex:...} as hexadecimal, anything else
     * as UTF-8.
     *
     * @throws IllegalArgumentException on bad hex or more than 64 bytes
     */
    public static Discriminator parse(String text) {
        Objects.requireNonNull(text, "text");
        if (startsWithHexPrefix(text)) {
            String hex = text.substring(HEX_PREFIX.length());
            try {
                return of(HexFormat.of().parseHex(hex));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad hex discriminator \"" + text
                        + "\": expected an even number of hex digits after hex:");
            }
        }
        return ofUtf8(text);
    }

    /** Package-private: takes ownership of {@code owned} (decoder use). */
    static Discriminator wrapOwned(byte[] owned) {
        return owned.length == 0 ? EMPTY : new Discriminator(owned);
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The length in bytes. */
    public int length() {
        return bytes.length;
    }

    /** Whether it has no bytes. */
    public boolean isEmpty() {
        return bytes.length == 0;
    }

    /** Copies the bytes into {@code dst} at {@code off} (no allocation). */
    public void copyTo(byte[] dst, int off) {
        System.arraycopy(bytes, 0, dst, off, bytes.length);
    }

    byte byteAt(int i) {
        return bytes[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Discriminator d && Arrays.equals(bytes, d.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /**
     * The configuration form: the text in quotes when every byte is printable ASCII and it does not
     * start with {@code hex:}, else {@code hex:...}.
     */
    @Override
    public String toString() {
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7E) {
                return HEX_PREFIX + HexFormat.of().formatHex(bytes);
            }
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        return startsWithHexPrefix(text) ? HEX_PREFIX + HexFormat.of().formatHex(bytes) : "\"" + text + "\"";
    }

    private static boolean startsWithHexPrefix(String text) {
        return text.regionMatches(true, 0, HEX_PREFIX, 0, HEX_PREFIX.length());
    }
}

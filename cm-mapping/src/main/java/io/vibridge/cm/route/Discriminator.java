package io.vibridge.cm.route;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A VI discriminator: opaque bytes, 0 to {@value #MAX_LENGTH} long for a route (the called
 * discriminator of a Connect Request is matched against these). Immutable.
 *
 * <p>Configuration writes discriminators as text: {@link #parse(String)} takes a string as its
 * UTF-8 bytes, or, with the prefix {@code hex:}, as hexadecimal ({@code "hex:0a0B"} = bytes 0x0A
 * 0x0B; an even number of digits, case-insensitive). A text discriminator that itself starts with
 * {@code hex:} must therefore be written in hex.
 */
public final class Discriminator {

    /** Longest discriminator a route may have. */
    public static final int MAX_LENGTH = 64;
    /** Prefix that marks a hexadecimal discriminator in configuration. */
    public static final String HEX_PREFIX = "hex:";

    private final byte[] bytes;

    private Discriminator(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Wraps without copying or checking the length: for lookups of called discriminators only. */
    static Discriminator wrap(byte[] bytes) {
        return new Discriminator(bytes);
    }

    /**
     * A discriminator of these bytes (copied).
     *
     * @throws IllegalArgumentException if longer than 64 bytes
     */
    public static Discriminator of(byte[] bytes) {
        if (bytes.length > MAX_LENGTH) {
            throw new IllegalArgumentException("a discriminator is at most " + MAX_LENGTH + " bytes, got " + bytes.length);
        }
        return new Discriminator(bytes.clone());
    }

    /** A discriminator of the UTF-8 bytes of {@code text}. */
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
        if (text.regionMatches(true, 0, HEX_PREFIX, 0, HEX_PREFIX.length())) {
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

    /** The length in bytes. */
    public int length() {
        return bytes.length;
    }

    /** A copy of the bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** Whether {@code called} starts with this discriminator. */
    public boolean isPrefixOf(byte[] called) {
        return called.length >= bytes.length && Arrays.equals(bytes, 0, bytes.length, called, 0, bytes.length);
    }

    /** Whether {@code called} is exactly this discriminator. */
    public boolean matchesExactly(byte[] called) {
        return Arrays.equals(bytes, called);
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
     * The configuration form: the text in quotes when the bytes are printable ASCII other than a
     * leading {@code hex:}, else {@code hex:...}.
     */
    @Override
    public String toString() {
        boolean printable = true;
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7E) {
                printable = false;
                break;
            }
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (printable && !text.regionMatches(true, 0, HEX_PREFIX, 0, HEX_PREFIX.length())) {
            return "\"" + text + "\"";
        }
        return HEX_PREFIX + HexFormat.of().formatHex(bytes);
    }
}

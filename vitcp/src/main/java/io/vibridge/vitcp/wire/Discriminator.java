package io.vibridge.vitcp.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A VI discriminator: 0..64 opaque bytes (VITCP-PROFILE §1, §5). Immutable; defensive copies in
 * and out; equality by content.
 */
public final class Discriminator {

    public static final int MAX_LENGTH = 64;
    public static final Discriminator EMPTY = new Discriminator(new byte[0]);

    private final byte[] bytes;

    private Discriminator(byte[] owned) {
        this.bytes = owned;
    }

    /** @throws IllegalArgumentException when longer than 64 bytes */
    public static Discriminator of(byte[] bytes) {
        if (bytes.length > MAX_LENGTH) {
            throw new IllegalArgumentException("discriminator of " + bytes.length + " bytes exceeds 64");
        }
        return bytes.length == 0 ? EMPTY : new Discriminator(bytes.clone());
    }

    /** UTF-8 bytes of {@code s}; @throws IllegalArgumentException when they exceed 64 bytes */
    public static Discriminator ofUtf8(String s) {
        return of(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Package-private: takes ownership of {@code owned} (decoder use). */
    static Discriminator wrapOwned(byte[] owned) {
        return owned.length == 0 ? EMPTY : new Discriminator(owned);
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    public int length() {
        return bytes.length;
    }

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

    /** Quoted text when every byte is printable ASCII, otherwise {@code 0x} + hex. */
    @Override
    public String toString() {
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7E) {
                return "0x" + HexFormat.of().formatHex(bytes);
            }
        }
        return "\"" + new String(bytes, StandardCharsets.US_ASCII) + "\"";
    }
}

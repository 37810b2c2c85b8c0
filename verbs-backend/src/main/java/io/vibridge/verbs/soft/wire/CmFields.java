package io.vibridge.verbs.soft.wire;

import java.util.Arrays;
import java.util.HexFormat;

/** Range checks and private-data handling shared by the CM message records. */
final class CmFields {

    private CmFields() {
    }

    /** Checks that an unsigned field fits in {@code bits} bits. */
    static int bits(String name, int value, int bits) {
        if (bits < 32 && (value & ~((1 << bits) - 1)) != 0) {
            throw new IllegalArgumentException(name + " does not fit in " + bits + " bits: " + value);
        }
        return value;
    }

    /** Copy of {@code data} zero-padded to exactly {@code size} bytes; longer data is refused. */
    static byte[] pad(String message, byte[] data, int size) {
        if (data == null) {
            return new byte[size];
        }
        if (data.length > size) {
            throw new IllegalArgumentException(message + " private data is " + data.length
                + " bytes, the maximum is " + size);
        }
        return Arrays.copyOf(data, size);
    }

    static String hex(byte[] data) {
        int end = data.length;
        while (end > 0 && data[end - 1] == 0) {
            end--;
        }
        return HexFormat.of().formatHex(data, 0, end) + (end < data.length ? "(+" + (data.length - end) + " zero)" : "");
    }
}

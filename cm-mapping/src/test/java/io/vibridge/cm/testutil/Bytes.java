package io.vibridge.cm.testutil;

import java.io.ByteArrayOutputStream;

/** Helpers to write hand-computed golden vectors as byte literals. */
public final class Bytes {

    private Bytes() {
    }

    /** The given values (each 0..255) as bytes. */
    public static byte[] b(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0 || values[i] > 0xFF) {
                throw new IllegalArgumentException("not a byte: " + values[i]);
            }
            out[i] = (byte) values[i];
        }
        return out;
    }

    /** {@code n} zero bytes. */
    public static byte[] zeros(int n) {
        return new byte[n];
    }

    /** The parts one after another. */
    public static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}

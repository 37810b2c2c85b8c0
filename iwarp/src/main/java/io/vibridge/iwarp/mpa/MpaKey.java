package io.vibridge.iwarp.mpa;

import java.nio.charset.StandardCharsets;

/** The 16 ASCII bytes that open an MPA Request or Reply frame (RFC 5044 §7.1). */
public enum MpaKey {
    REQUEST("MPA ID Req Frame"),
    REPLY("MPA ID Rep Frame");

    /** Key bytes on the wire. */
    public static final int LENGTH = 16;

    private final byte[] bytes;

    MpaKey(String text) {
        this.bytes = text.getBytes(StandardCharsets.US_ASCII);
    }

    byte at(int i) {
        return bytes[i];
    }

    public String text() {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}

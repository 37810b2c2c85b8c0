package io.vibridge.vitcp.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Shared HMAC keys as users write them (VITCP-PROFILE §5), in configuration files and on command
 * lines alike: {@code hex:} followed by hex digits, {@code base64:} followed by Base64, or plain
 * UTF-8 text; at least {@link ConnectSigner#MIN_KEY_LENGTH} bytes.
 */
public final class ConnectKeys {
    private ConnectKeys() {
    }

    /**
     * The key's bytes.
     *
     * @throws IllegalArgumentException with a message fit for the user: a bad encoding or a key too short
     */
    public static byte[] decode(String text) {
        byte[] b;
        try {
            if (text.startsWith("hex:")) {
                b = HexFormat.of().parseHex(text.substring(4));
            } else if (text.startsWith("base64:")) {
                b = Base64.getDecoder().decode(text.substring(7));
            } else {
                b = text.getBytes(StandardCharsets.UTF_8);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad key encoding: " + e.getMessage(), e);
        }
        if (b.length < ConnectSigner.MIN_KEY_LENGTH) {
            throw new IllegalArgumentException("a key needs at least " + ConnectSigner.MIN_KEY_LENGTH + " bytes, got "
                    + b.length);
        }
        return b;
    }
}

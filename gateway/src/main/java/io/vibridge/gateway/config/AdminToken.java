package io.vibridge.gateway.config;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The admin endpoint's bearer token: {@code admin.token} (ENV {@code VIBRIDGE_ADMIN_TOKEN}) or the
 * first line of {@code admin.token-file} (ENV {@code VIBRIDGE_ADMIN_TOKEN_FILE}, e.g. a mounted Kubernetes Secret),
 * not both. A token is RFC 6750 §2.1 b64token characters, at least 16 of them.
 */
final class AdminToken {
    static final int MIN_LENGTH = 16;
    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

    private AdminToken() {
    }

    /** The configured token, or null when neither key is set. */
    static String read(Config c) {
        String inline = c.getString("admin.token");
        String file = c.getString("admin.token-file");
        if (!inline.isEmpty() && !file.isEmpty()) {
            throw new ConfigError("admin.token-file", "set admin.token or admin.token-file, not both");
        }
        if (!file.isEmpty()) {
            String text;
            try {
                text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                throw new ConfigError("admin.token-file", "cannot read " + file + ": " + e.getMessage());
            }
            String first = text.lines().findFirst().orElse("").strip();
            return check("admin.token-file", first, "the first line of " + file);
        }
        return inline.isEmpty() ? null : check("admin.token", inline.strip(), "the token");
    }

    private static String check(String key, String token, String what) {
        if (token.length() < MIN_LENGTH) {
            throw new ConfigError(key, what + " has " + token.length() + " characters, at least " + MIN_LENGTH
                    + " are needed (e.g. openssl rand -hex 32)");
        }
        if (!B64TOKEN.matcher(token).matches()) {
            throw new ConfigError(key, what + " may hold only letters, digits and - . _ ~ + / (then = padding), "
                    + "as an HTTP bearer token (RFC 6750 §2.1)");
        }
        return token;
    }
}

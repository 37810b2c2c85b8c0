package io.vibridge.gateway.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The admin endpoint's bearer token (RFC 6750 §2.1: {@code Authorization: Bearer <token>}). Compared in constant
 * time: both sides are hashed first, so neither the content nor the length of the expected token shows in the time
 * a wrong guess takes ({@link MessageDigest#isEqual} over equal-length digests).
 */
final class BearerToken {
    private static final String SCHEME = "Bearer ";
    private final byte[] expected;

    BearerToken(String token) {
        this.expected = sha256(token);
    }

    /** Whether {@code authorization} (the header's value, null when absent) carries the token. */
    boolean admits(String authorization) {
        if (authorization == null || authorization.length() < SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        return MessageDigest.isEqual(expected, sha256(authorization.substring(SCHEME.length()).strip()));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

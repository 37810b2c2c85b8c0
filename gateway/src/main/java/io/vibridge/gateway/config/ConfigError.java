package io.vibridge.gateway.config;

/** A configuration value is missing or invalid; {@link #key()} names it (full path under {@code vibridge.gateway}). */
public final class ConfigError extends RuntimeException {
    private final String key;

    public ConfigError(String key, String reason) {
        super("configuration key vibridge.gateway." + key + ": " + reason);
        this.key = key;
    }

    /** The key relative to {@code vibridge.gateway}, e.g. {@code limits.max-connections} or {@code routes[0].port}. */
    public String key() {
        return key;
    }
}

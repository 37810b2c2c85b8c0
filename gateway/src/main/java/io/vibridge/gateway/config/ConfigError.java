package io.vibridge.gateway.config;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigOrigin;

/**
 * The configuration cannot be used. Either a value is missing or invalid, and {@link #key()} names it
 * (full path under {@code vibridge.gateway}), or the configuration could not be read at all (a file
 * missing, a syntax error, an unresolved substitution), and the message names the file and line.
 */
public final class ConfigError extends RuntimeException {
    private final String key;

    public ConfigError(String key, String reason) {
        super("configuration key vibridge.gateway." + key + ": " + reason);
        this.key = key;
    }

    private ConfigError(String message, Throwable cause) {
        super(message, cause);
        this.key = null;
    }

    /** The configuration could not be read: {@code what} failed, e.g. "configuration file not found: x.conf". */
    public static ConfigError unreadable(String what) {
        return new ConfigError(what, (Throwable) null);
    }

    /**
     * Typesafe Config could not parse or resolve the configuration: the file and line it names, then its
     * reason (its own message starts with the origin; that prefix is replaced by a readable one).
     */
    public static ConfigError unreadable(ConfigException e) {
        ConfigOrigin o = e.origin();
        String message = e.getMessage();
        if (o == null) {
            return new ConfigError("configuration: " + message, e);
        }
        String prefix = o.description() + ": ";
        String reason = message.startsWith(prefix) ? message.substring(prefix.length()) : message;
        String where = o.filename() != null ? "file " + o.filename() : o.description();
        if (o.lineNumber() > 0 && o.filename() != null) {
            where += ", line " + o.lineNumber();
        }
        return new ConfigError("configuration " + where + ": " + reason, e);
    }

    /**
     * The key relative to {@code vibridge.gateway}, e.g. {@code limits.max-connections} or
     * {@code routes[0].port}; null when the configuration could not be read.
     */
    public String key() {
        return key;
    }
}

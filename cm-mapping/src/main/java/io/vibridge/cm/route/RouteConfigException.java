package io.vibridge.cm.route;

/**
 * An invalid route or route configuration: names the configuration {@linkplain #key() key} (e.g.
 * {@code routes[2].port}, {@code direct-routes.flowc}) and why. Unchecked; extends {@link
 * IllegalArgumentException} so plain-Java construction of routes throws the same type.
 */
public final class RouteConfigException extends IllegalArgumentException {

    private final String key;
    private final String reason;

    /**
     * @param key the configuration key (path) at fault
     * @param reason why it is refused
     */
    public RouteConfigException(String key, String reason) {
        super(key + ": " + reason);
        this.key = key;
        this.reason = reason;
    }

    /** The configuration key at fault, e.g. {@code routes[2].port}. */
    public String key() {
        return key;
    }

    /** Why the value is refused. */
    public String reason() {
        return reason;
    }

    /** The same error with {@code prefix} put before the key (e.g. {@code "routes[2]."}). */
    public RouteConfigException withKeyPrefix(String prefix) {
        RouteConfigException e = new RouteConfigException(prefix + key, reason);
        e.setStackTrace(getStackTrace());
        return e;
    }
}

package io.vibridge.gateway.metrics;

/**
 * Which of the gateway's own limits refused a connection: the {@code limit} tag of
 * {@code vibridge_connections_limited_total}, beside {@code vibridge_connections_rejected_total{reason="limit"}}.
 * A target that refuses for its own budget is not one of these: that is {@code reason="target_rejected"} (IS 13).
 */
public enum Limit {
    /** {@code limits.max-connections}: bridged connections of the whole gateway. */
    GATEWAY("gateway", "gateway connection limit", "limits.max-connections"),
    /** {@code limits.max-connections-per-client}: bridged connections of one client IP address. */
    CLIENT("client", "per-client connection limit", "limits.max-connections-per-client"),
    /** The staging pool cannot reserve the connection's slots. */
    STAGING("staging", "staging slots exhausted", "staging.max-slots, limits.buffer-per-connection");

    private final String tag;
    private final String text;
    private final String keys;

    Limit(String tag, String text, String keys) {
        this.tag = tag;
        this.text = text;
        this.keys = keys;
    }

    /** The value of the {@code limit} metric tag. */
    public String tag() {
        return tag;
    }

    /** What the log line and an iWARP client's MPA Reject say, e.g. "per-client connection limit 125 (limits.max-connections-per-client)". */
    public String describe(int value) {
        return text + (value > 0 ? " " + value : "") + " (" + keys + ")";
    }
}

package io.vibridge.gateway.admission;

/**
 * Why a new TCP connection was closed at accept, before anything was read from it: the {@code reason}
 * tag of {@code vibridge_connections_refused_total}. Neither VI/TCP nor MPA has an answer to a connection
 * that has sent nothing yet (a Connect Reject or an MPA Reject Reply answers a request), so the close is
 * the refusal.
 */
public enum Refusal {
    /** {@code limits.max-pending}: as many connections as that are still in setup, over the whole gateway. */
    PENDING("pending", "pending limit"),
    /** {@code limits.max-pending-per-client}: as many from this client address are still in setup. */
    PENDING_PER_CLIENT("pending_per_client", "per-client pending limit"),
    /** {@code limits.connect-rate}: the token bucket is empty. */
    RATE("rate", "connect rate");

    private final String tag;
    private final String description;

    Refusal(String tag, String description) {
        this.tag = tag;
        this.description = description;
    }

    /** The value of the {@code reason} metric tag. */
    public String tag() {
        return tag;
    }

    /** What the summary log line calls it. */
    public String description() {
        return description;
    }
}

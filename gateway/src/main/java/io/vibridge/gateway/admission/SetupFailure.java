package io.vibridge.gateway.admission;

/**
 * How a connection that was accepted ended before its setup completed without an answer on the wire: the
 * {@code reason} tag of {@code vibridge_connections_setup_failed_total}. The refusals the protocol answers
 * (Connect Reject, No Match, MPA Reject Reply) are counted in {@code vibridge_connections_rejected_total}.
 */
public enum SetupFailure {
    /** No whole Connect Request ({@code vi.incoming-timeout}) or MPA Request ({@code iwarp.request-timeout}) in time. */
    TIMEOUT("timeout", "timed out"),
    /** TCP closed before setup completed (the client went away, or the gateway stopped). */
    CLOSED("closed", "closed during setup"),
    /** Input that is not a valid Connect Request or MPA Request (wrong protocol on the port, a bad frame). */
    PROTOCOL("protocol", "bad input");

    private final String tag;
    private final String description;

    SetupFailure(String tag, String description) {
        this.tag = tag;
        this.description = description;
    }

    public String tag() {
        return tag;
    }

    public String description() {
        return description;
    }
}

package io.vibridge.gateway.metrics;

/** Why the gateway refused a VI/TCP connection; the {@code reason} tag of the rejects counter. */
public enum RejectReason {
    /** No route for the called discriminator: Connect No Match. */
    NO_ROUTE("no_route"),
    /** The target answered the CM REQ with REJ (IS 13). */
    TARGET_REJECTED("target_rejected"),
    /** No CM answer, REJ 8 or a failed local setup (IS 12); the target disconnected during setup (IS 16). */
    TARGET_UNREACHABLE("target_unreachable"),
    /** The Connect Request's security information was refused (IS 11). */
    SECURITY("security"),
    /** Reliability level, reserved bits or version not acceptable (IS 9). */
    ATTRIBUTES("attributes"),
    /** MTU below the 32 KiB minimum (IS 10). */
    MTU("mtu"),
    /** Gateway, per-client or rate limit reached (IS 14). */
    LIMIT("limit"),
    /** The iWARP client's private data is longer than the route's CM REQ carries (MPA Reject). */
    PRIVATE_DATA("private_data"),
    /** Malformed or hostile input during connection setup. */
    PROTOCOL("protocol");

    private final String tag;

    RejectReason(String tag) {
        this.tag = tag;
    }

    /** The value of the {@code reason} metric tag. */
    public String tag() {
        return tag;
    }
}

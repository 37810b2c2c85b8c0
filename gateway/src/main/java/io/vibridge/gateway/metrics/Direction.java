package io.vibridge.gateway.metrics;

/** Which way traffic crosses the gateway. */
public enum Direction {
    /** From the VI/TCP client towards the InfiniBand target. */
    CLIENT_TO_TARGET("client_to_target"),
    /** From the InfiniBand target towards the VI/TCP client. */
    TARGET_TO_CLIENT("target_to_client");

    private final String tag;

    Direction(String tag) {
        this.tag = tag;
    }

    /** The value of the {@code direction} metric tag. */
    public String tag() {
        return tag;
    }
}

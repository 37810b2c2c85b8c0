package io.vibridge.gateway.metrics;

/** The data operations the gateway bridges (DESIGN "Operation mapping"). */
public enum Operation {
    SEND("send"),
    RDMA_WRITE("rdma_write"),
    RDMA_READ("rdma_read");

    private final String tag;

    Operation(String tag) {
        this.tag = tag;
    }

    /** The value of the {@code operation} metric tag. */
    public String tag() {
        return tag;
    }
}

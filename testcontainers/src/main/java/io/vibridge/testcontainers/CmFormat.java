package io.vibridge.testcontainers;

/** The CM REQ's private data on a route (docs/configuration.md, {@code routes[].cm-format}; CM-MAPPING §2, §5). */
public enum CmFormat {
    /** The Hello (CM-MAPPING §2): what the demo target and SDP-like services expect. */
    HELLO("hello"),
    /** librdmacm's CMA header (CM-MAPPING §5): for services that listen with rdma_cm; needs FlowC 1. */
    RDMA_CM("rdma-cm");

    private final String configName;

    CmFormat(String configName) {
        this.configName = configName;
    }

    /** As the gateway's configuration writes it. */
    public String configName() {
        return configName;
    }
}

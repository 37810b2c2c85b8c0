package io.vibridge.cm.route;

import java.util.Locale;

/** Which private data a route's CM REQ carries (CM-MAPPING §2 and §5). */
public enum CmFormat {
    /** The seed-001 Hello / HelloReply. */
    HELLO("hello"),
    /** librdmacm's CMA header (IP CM addressing); FlowC 1 semantics, {@code rdma-cm} Service IDs. */
    RDMA_CM("rdma-cm");

    private final String configName;

    CmFormat(String configName) {
        this.configName = configName;
    }

    /** {@code hello} or {@code rdma-cm}. */
    public String configName() {
        return configName;
    }

    /**
     * The format for a configuration name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static CmFormat fromConfigName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (CmFormat f : values()) {
            if (f.configName.equals(n)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown cm-format \"" + name + "\": expected hello or rdma-cm");
    }
}

package io.vibridge.cm.serviceid;

import java.util.Locale;

/**
 * How a Service ID is derived from the emulated TCP listener port P (CM-MAPPING §1).
 *
 * <ul>
 *   <li>{@link #IWARP} {@code "iwarp"} (default): {@code 0x0000000000020000 + P}, seed 001's
 *       IBTA_IWARP_PREFIX.</li>
 *   <li>{@link #SDP} {@code "sdp"}: {@code 0x0000000000010000 + P}, SDP's range.</li>
 *   <li>{@link #RDMA_CM} {@code "rdma-cm"}: {@code (port space << 16) + P}, librdmacm's layout; port
 *       space {@link RdmaPortSpace#TCP} unless told otherwise.</li>
 * </ul>
 */
public enum ServiceIdScheme {
    /** {@code 0x0000000000020000 + P}. */
    IWARP("iwarp"),
    /** {@code 0x0000000000010000 + P}. */
    SDP("sdp"),
    /** {@code (port space << 16) + P}. */
    RDMA_CM("rdma-cm");

    private final String configName;

    ServiceIdScheme(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration: {@code iwarp}, {@code sdp} or {@code rdma-cm}. */
    public String configName() {
        return configName;
    }

    /**
     * The scheme for a configuration name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the accepted values if {@code name} is none of them
     */
    public static ServiceIdScheme fromConfigName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (ServiceIdScheme s : values()) {
            if (s.configName.equals(n)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown service-id scheme \"" + name
                + "\": expected iwarp, sdp or rdma-cm");
    }
}

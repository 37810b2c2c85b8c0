package io.vibridge.cm.serviceid;

import java.util.Locale;

/**
 * librdmacm's port spaces (IB-WIRE-REFERENCE §6.1), the upper 16 bits of an {@code rdma-cm}
 * Service ID. {@code RDMA_PS_SDP} (0x0001) is not listed: it was removed from mainline and its
 * range is the {@link ServiceIdScheme#SDP sdp} scheme.
 */
public enum RdmaPortSpace {
    /** {@code RDMA_PS_IPOIB} 0x0002: UD; the same Service IDs as the {@code iwarp} scheme. */
    IPOIB(0x0002, "ipoib"),
    /** {@code RDMA_PS_TCP} 0x0106: RC, the usual one and the default. */
    TCP(0x0106, "tcp"),
    /** {@code RDMA_PS_UDP} 0x0111: UD via SIDR. */
    UDP(0x0111, "udp"),
    /** {@code RDMA_PS_IB} 0x013F: RC or UD. */
    IB(0x013F, "ib");

    private final int value;
    private final String configName;

    RdmaPortSpace(int value, String configName) {
        this.value = value;
        this.configName = configName;
    }

    /** The port space number as librdmacm has it. */
    public int value() {
        return value;
    }

    /** The name used in configuration: {@code ipoib}, {@code tcp}, {@code udp}, {@code ib}. */
    public String configName() {
        return configName;
    }

    /** The port space with this number, or {@code null} if librdmacm has none. */
    public static RdmaPortSpace ofValue(int value) {
        for (RdmaPortSpace ps : values()) {
            if (ps.value == value) {
                return ps;
            }
        }
        return null;
    }

    /**
     * The port space for a configuration name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static RdmaPortSpace fromConfigName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (RdmaPortSpace ps : values()) {
            if (ps.configName.equals(n)) {
                return ps;
            }
        }
        throw new IllegalArgumentException("unknown rdma-cm port space \"" + name
                + "\": expected ipoib, tcp, udp or ib");
    }
}

package io.vibridge.vitcp.wire;

import java.util.Locale;

/** How VI/TCP segments travel in the TCP stream, each on its own listener port. */
public enum Encapsulation {
    /** Native VI/TCP segments (VITCP-PROFILE §1-7), port 7470. */
    VITCP(7470),
    /** Each segment inside a seed-004 RDMA/TCP frame with Connection ID and CRC-32 (VITCP-PROFILE §8), port 7471. */
    RDMATCP(7471);

    private final int defaultPort;

    Encapsulation(int defaultPort) {
        this.defaultPort = defaultPort;
    }

    /** The listener port the profile gives this encapsulation. */
    public int defaultPort() {
        return defaultPort;
    }

    /** The name used on command lines and in configuration ({@code vitcp}, {@code rdmatcp}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@link #label()} (case-insensitive). */
    public static Encapsulation ofLabel(String s) {
        for (Encapsulation e : values()) {
            if (e.label().equalsIgnoreCase(s.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown framing '" + s + "' (expected vitcp or rdmatcp)");
    }
}

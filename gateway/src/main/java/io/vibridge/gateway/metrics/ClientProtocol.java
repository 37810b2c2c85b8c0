package io.vibridge.gateway.metrics;

import io.vibridge.vitcp.wire.Encapsulation;
import java.util.Locale;

/** The client-side protocol of a bridge: native VI/TCP, VI/TCP in seed-004 frames, or iWARP (RFC 5040-5044). */
public enum ClientProtocol {
    VITCP,
    RDMATCP,
    IWARP;

    /** The metrics tag value and the admin listing's name ({@code vitcp}, {@code rdmatcp}, {@code iwarp}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ClientProtocol of(Encapsulation e) {
        return switch (e) {
            case VITCP -> VITCP;
            case RDMATCP -> RDMATCP;
        };
    }
}

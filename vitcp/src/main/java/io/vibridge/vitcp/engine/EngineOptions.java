package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;

/**
 * What a passive engine needs before the Connect Request arrives; the per-connection values come later
 * with {@link LocalEndpoint} in {@link ViConnection#accept}.
 *
 * @param incomingTimeoutNanos how long draft 4.3 "Incoming" waits for the Connect Request (VITCP-PROFILE §7)
 * @param security maps the Connect Request's called discriminator to the key that must have signed it
 * @param encapsulation how segments travel: native, or in seed-004 frames (VITCP-PROFILE §8)
 */
public record EngineOptions(long incomingTimeoutNanos, SecurityResolver security, Encapsulation encapsulation) {

    /** The profile's Incoming timeout (VITCP-PROFILE §7). */
    public static final long DEFAULT_INCOMING_TIMEOUT_NANOS = 10_000_000_000L;

    /** Chooses the Security Type 1 key (VITCP-PROFILE §5) by the called discriminator. */
    @FunctionalInterface
    public interface SecurityResolver {

        /** No request is verified. */
        SecurityResolver NONE = called -> null;

        /**
         * The key that must have signed a Connect Request for {@code called}, or null: then the request
         * is not verified and goes to {@link ConnectionPeer#connectRequested} as it is (an owner that
         * does not know the discriminator answers {@link ViConnection#noMatch()}).
         */
        ConnectSecurity forCalled(Discriminator called);
    }

    public EngineOptions {
        if (incomingTimeoutNanos <= 0) {
            throw new IllegalArgumentException("incoming timeout " + incomingTimeoutNanos + " ns is not positive");
        }
        if (security == null) {
            throw new IllegalArgumentException("security resolver is null (use SecurityResolver.NONE)");
        }
        if (encapsulation == null) {
            throw new IllegalArgumentException("encapsulation is null");
        }
    }

    /** Native VI/TCP framing. */
    public EngineOptions(long incomingTimeoutNanos, SecurityResolver security) {
        this(incomingTimeoutNanos, security, Encapsulation.VITCP);
    }

    public EngineOptions withEncapsulation(Encapsulation e) {
        return new EngineOptions(incomingTimeoutNanos, security, e);
    }

    /** The profile's timeout and one key (or none, when null) for every discriminator. */
    public static EngineOptions of(ConnectSecurity security) {
        return new EngineOptions(DEFAULT_INCOMING_TIMEOUT_NANOS,
                security == null ? SecurityResolver.NONE : called -> security);
    }
}

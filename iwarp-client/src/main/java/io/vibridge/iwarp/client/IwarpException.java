package io.vibridge.iwarp.client;

import io.vibridge.iwarp.wire.TerminateCode;
import java.io.IOException;

/**
 * The stream is over or could not be set up: the MPA Request was rejected, a Terminate went either way
 * (RFC 5040 §7), or TCP ended. {@link #code()} is the Terminate's error, when there was one.
 */
public final class IwarpException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient TerminateCode code;

    public IwarpException(String message, TerminateCode code) {
        super(message);
        this.code = code;
    }

    /** The error the Terminate carried (sent or received), or null when the stream ended otherwise. */
    public TerminateCode code() {
        return code;
    }
}

package io.vibridge.interop.support;

/** Why a run failed, in words for the {@code RESULT ... FAIL} line. */
public final class InteropFailure extends Exception {
    public InteropFailure(String message) {
        super(message);
    }

    public InteropFailure(String message, Throwable cause) {
        super(message, cause);
    }
}

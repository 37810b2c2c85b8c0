package io.vibridge.verbs;

/** A verbs operation failed (bad argument, wrong state, resource exhausted, provider failure). */
public class VerbsException extends RuntimeException {
    public VerbsException(String message) {
        super(message);
    }

    public VerbsException(String message, Throwable cause) {
        super(message, cause);
    }
}

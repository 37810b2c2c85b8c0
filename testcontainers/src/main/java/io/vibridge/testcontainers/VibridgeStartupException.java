package io.vibridge.testcontainers;

import org.testcontainers.containers.ContainerLaunchException;

/**
 * A gateway or target container that could not start, with the reason in the message: its image is
 * missing, or the process exited at start (a configuration error: the gateway's own one-line message and
 * exit code are quoted), or it did not become ready in time (its last output lines are quoted).
 */
public class VibridgeStartupException extends ContainerLaunchException {
    private static final long serialVersionUID = 1L;

    public VibridgeStartupException(String message) {
        super(message);
    }

    public VibridgeStartupException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * What {@code start()} throws for {@code failure}: the {@link VibridgeStartupException} Testcontainers
     * wrapped in its generic "Container startup failed" exceptions, when there is one, else the failure
     * itself (unchecked).
     */
    static RuntimeException clearest(Exception failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof VibridgeStartupException v) {
                return v;
            }
        }
        return failure instanceof RuntimeException r ? r : new ContainerLaunchException(failure.toString(), failure);
    }
}

package io.vibridge.gateway.server;

/**
 * A service cannot start for a reason of the machine or the configuration, not of the code: a port
 * already in use, an address not on this host, a verbs device that cannot be opened. The message names
 * the address and port (or device) and the configuration key that chose it; the command line reports it
 * as one line with exit code 2.
 */
public final class StartupError extends RuntimeException {
    public StartupError(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.vibridge.interop.support;

import java.util.Objects;

/**
 * The result of one run: printed as the last line, {@code RESULT <name> PASS|FAIL <details>}, and turned into
 * the exit code (0 pass, 1 fail).
 *
 * @param name    what ran: {@code rping-server}, {@code rping-client}, {@code pingpong-server},
 *                {@code pingpong-client}, {@code vi-rping}
 * @param pass    whether it passed
 * @param details one line: counts on a pass, the reason on a failure
 */
public record Outcome(String name, boolean pass, String details) {
    public Outcome {
        Objects.requireNonNull(name, "name");
        details = details == null ? "" : details.replace('\n', ' ').replace('\r', ' ').strip();
    }

    public static Outcome pass(String name, String details) {
        return new Outcome(name, true, details);
    }

    public static Outcome fail(String name, String details) {
        return new Outcome(name, false, details);
    }

    public String line() {
        return "RESULT " + name + (pass ? " PASS" : " FAIL") + (details.isEmpty() ? "" : " " + details);
    }

    public int exitCode() {
        return pass ? 0 : 1;
    }
}

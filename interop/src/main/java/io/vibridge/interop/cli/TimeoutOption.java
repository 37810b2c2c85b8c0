package io.vibridge.interop.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/** The global time budget of a run: every wait takes what is left of it, so a silent peer ends in a FAIL. */
public final class TimeoutOption {
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "Time budget of the whole run: a peer that stops answering fails it within this "
                    + "(default: ${DEFAULT-VALUE}). A watchdog ends a run still going 15 s later.")
    double seconds;

    Duration duration() {
        if (!(seconds > 0) || seconds > 86_400) {
            throw new IllegalArgumentException("--timeout must be 0..86400 seconds, got " + seconds);
        }
        return Duration.ofMillis((long) (seconds * 1000));
    }
}

package io.vibridge.gateway.cli;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT as a request to stop a long-running command: its thread waits in {@link #await},
 * then closes what it started, in order, and returns its exit code (0 when the close went through).
 *
 * <p>Why not a shutdown hook: after a signal the JVM exits with 128 + the signal's number whatever the
 * hook does (143 for SIGTERM, which systemd counts as a failure), unless the hook halts the JVM, which
 * cuts every other hook short. Handling the signal keeps the exit status the command's. A second signal
 * while closing exits at once, with the JVM's status for that signal.
 */
final class StopSignal {
    private static final Logger log = LoggerFactory.getLogger(StopSignal.class);

    private final CountDownLatch stop = new CountDownLatch(1);

    private StopSignal() {
    }

    /** Handles SIGTERM and SIGINT from now on. */
    static StopSignal install() {
        StopSignal s = new StopSignal();
        for (String name : List.of("TERM", "INT")) {
            try {
                Signal.handle(new Signal(name), s::received);
            } catch (IllegalArgumentException e) {
                // the JVM runs with -Xrs, or the signal was ignored when it started (nohup): it keeps its default
                log.debug("SIG{} not handled: {}", name, e.getMessage());
            }
        }
        return s;
    }

    private void received(Signal signal) {
        if (stop.getCount() == 0) {
            log.warn("SIG{} again while stopping: exiting now", signal.getName());
            Runtime.getRuntime().exit(128 + signal.getNumber());
            return;
        }
        log.info("SIG{} received: stopping", signal.getName());
        stop.countDown();
    }

    /** Returns once SIGTERM or SIGINT arrived. */
    void await() throws InterruptedException {
        stop.await();
    }
}

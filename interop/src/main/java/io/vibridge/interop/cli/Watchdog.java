package io.vibridge.interop.cli;

import io.vibridge.interop.support.Outcome;
import java.io.PrintStream;
import java.time.Duration;

/**
 * The last guarantee that a run ends: if it is still going {@link #GRACE} after its budget (a wait that does not
 * honour the deadline), it prints a FAIL result and halts the JVM with exit code 1. Armed only by
 * {@link io.vibridge.interop.Main#main} (never inside a test JVM).
 */
public final class Watchdog {
    static final Duration GRACE = Duration.ofSeconds(15);
    private static volatile boolean enabled;

    private Watchdog() {
    }

    public static void enable() {
        enabled = true;
    }

    static void arm(String name, Duration budget, PrintStream out) {
        if (!enabled) {
            return;
        }
        Thread.ofPlatform().daemon().name("interop-watchdog").start(() -> {
            try {
                Thread.sleep(budget.plus(GRACE));
            } catch (InterruptedException e) {
                return;
            }
            out.println(Outcome.fail(name, "watchdog: still running " + GRACE.toSeconds() + " s after the "
                    + budget.toSeconds() + " s budget (--timeout)").line());
            out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(1);
        });
    }
}

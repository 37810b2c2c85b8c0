package io.vibridge.interop.cli;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.Outcome;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command that runs once and ends with one {@code RESULT <name> PASS|FAIL <details>} line; exit code 0 on
 * PASS, 1 on FAIL (bad options included: they are a FAIL too, with the reason).
 */
public abstract class InteropCommand implements Callable<Integer> {
    @Mixin
    TimeoutOption timeout;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    /** Where progress and the result go (System.out unless {@link #output} changed it). */
    PrintStream out = System.out;

    public void output(PrintStream stream) {
        this.out = stream;
    }

    /** The name in the RESULT line. */
    abstract String resultName();

    /** Runs with the whole budget; returns the outcome (failures as FAIL outcomes). */
    abstract Outcome execute(Deadline deadline) throws Exception;

    @Override
    public final Integer call() {
        Outcome o;
        try {
            Duration budget = timeout.duration();
            Watchdog.arm(resultName(), budget, out);
            o = execute(Deadline.after(budget));
        } catch (IllegalArgumentException | IllegalStateException e) {
            o = Outcome.fail(resultName(), e.getMessage());
        } catch (Exception e) {
            o = Outcome.fail(resultName(), e.toString());
        }
        out.println(o.line());
        out.flush();
        return o.exitCode();
    }
}

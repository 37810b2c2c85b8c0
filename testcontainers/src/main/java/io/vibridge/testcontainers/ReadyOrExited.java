package io.vibridge.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import java.time.Duration;
import java.util.function.Predicate;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.containers.wait.strategy.WaitStrategyTarget;

/**
 * Waits until {@code ready} holds, and fails at once with the container's exit code and last output when
 * its process exits first (a configuration error ends the gateway with exit code 2 and one line naming the
 * key, docs/troubleshooting.md): a clear error instead of a timeout.
 */
final class ReadyOrExited extends AbstractWaitStrategy {
    private static final Duration POLL = Duration.ofMillis(100);

    private final String what;
    private final StartupLog log;
    private final Predicate<WaitStrategyTarget> ready;

    ReadyOrExited(String what, StartupLog log, Predicate<WaitStrategyTarget> ready) {
        this.what = what;
        this.log = log;
        this.ready = ready;
    }

    @Override
    protected void waitUntilReady() {
        long deadline = System.nanoTime() + startupTimeout.toNanos();
        while (true) {
            InspectContainerResponse.ContainerState state = waitStrategyTarget.getCurrentContainerInfo().getState();
            if (!Boolean.TRUE.equals(state.getRunning())) {
                throw new VibridgeStartupException(what + " exited at start with code " + state.getExitCodeLong()
                        + "; its output:\n" + log.tail());
            }
            if (ready.test(waitStrategyTarget)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new VibridgeStartupException(what + " was not ready within " + startupTimeout
                        + "; its last output:\n" + log.tail());
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VibridgeStartupException("interrupted while waiting for " + what, e);
            }
        }
    }
}

package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.soft.port.PacketPort;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot timer on the device's timer thread whose deadline moves often (every ACK pushes the retransmit
 * deadline) without touching that thread: at most one task is scheduled, and a task that runs before the deadline
 * as it then stands schedules itself again for the rest. Under the QP's monitor, which the task takes.
 */
final class LazyTimer {
    private final PacketPort port;
    private final Runnable task;
    private boolean pending;
    /** The deadline, in {@link System#nanoTime()} terms. */
    private long at;

    LazyTimer(PacketPort port, Runnable task) {
        this.port = port;
        this.task = task;
    }

    /** Moves the deadline to {@code delayNanos} from now; a task already scheduled finds it when it runs. */
    void postpone(long delayNanos) {
        at = System.nanoTime() + delayNanos;
    }

    /** Schedules the task {@code delayNanos} from now unless one is pending (whose deadline then stays). */
    void startIfIdle(long delayNanos) {
        if (!pending) {
            postpone(delayNanos);
            schedule(delayNanos);
        }
    }

    /** Moves the deadline to {@code delayNanos} from now and schedules the task unless one is pending. */
    void restart(long delayNanos) {
        postpone(delayNanos);
        if (!pending) {
            schedule(delayNanos);
        }
    }

    /** The task's first step: no task is pending any more. */
    void fired() {
        pending = false;
    }

    /** When the deadline has not come yet, schedules the task again for the rest of it and returns true. */
    boolean early() {
        long left = at - System.nanoTime();
        if (left > 0) {
            schedule(left);
            return true;
        }
        return false;
    }

    private void schedule(long delayNanos) {
        pending = true;
        port.timers().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
}

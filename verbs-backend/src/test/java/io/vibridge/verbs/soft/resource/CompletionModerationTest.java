package io.vibridge.verbs.soft.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftCompletionQueue#moderate}: an armed notification waits for its count or the end of its period, an
 * error does not wait, and a timer left from an earlier arm never cuts a later period short. The period timer is
 * captured and run by hand, so nothing here depends on how fast the machine is.
 */
class CompletionModerationTest {
    private final Timers timers = new Timers();
    private final SoftCompletionQueue cq = new SoftCompletionQueue(Runnable::run, 64, null, timers);
    private int fired;

    CompletionModerationTest() {
        cq.onNotify(() -> fired++, Runnable::run);
    }

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void withoutModerationEveryCompletionNotifies() {
        cq.requestNotify(false);
        push(WcStatus.SUCCESS);
        assertThat(fired).isEqualTo(1);
        assertThat(timers.tasks).isEmpty();
    }

    @Test
    void notifiesOnceCountCompletionsWait() {
        cq.moderate(3, 100);
        cq.requestNotify(false);
        push(WcStatus.SUCCESS);
        push(WcStatus.SUCCESS);
        assertThat(fired).isZero();
        assertThat(timers.delays).containsExactly(TimeUnit.MICROSECONDS.toNanos(100));   // one period, from the first
        push(WcStatus.SUCCESS);
        assertThat(fired).isEqualTo(1);
        push(WcStatus.SUCCESS);
        assertThat(fired).isEqualTo(1);                                   // once per arm
    }

    @Test
    void theEndOfThePeriodNotifiesFewerThanCount() throws Exception {
        cq.moderate(3, 1);
        cq.requestNotify(false);
        push(WcStatus.SUCCESS);
        Thread.sleep(1);                                                  // the 1 us period is over
        timers.runAll();
        assertThat(fired).isEqualTo(1);
        timers.runAll();
        assertThat(fired).isEqualTo(1);
    }

    @Test
    void anErrorCompletionNotifiesAtOnce() {
        cq.moderate(8, 65_535);
        cq.requestNotify(false);
        push(WcStatus.WR_FLUSH_ERROR);
        assertThat(fired).isEqualTo(1);
    }

    @Test
    void armingWithCompletionsWaitingCountsThem() {
        cq.moderate(3, 100);
        push(WcStatus.SUCCESS);
        push(WcStatus.SUCCESS);
        cq.requestNotify(false);                                          // two wait: the period starts now
        assertThat(fired).isZero();
        assertThat(timers.tasks).hasSize(1);
        push(WcStatus.SUCCESS);
        assertThat(fired).isEqualTo(1);
        cq.requestNotify(false);                                          // three wait: at once
        assertThat(fired).isEqualTo(2);
    }

    @Test
    void aTimerLeftFromAnEarlierArmWaitsOutTheNextPeriod() {
        cq.moderate(2, 65_535);
        cq.requestNotify(false);
        push(WcStatus.SUCCESS);
        push(WcStatus.SUCCESS);                                           // the count notifies; its timer stays
        assertThat(fired).isEqualTo(1);
        assertThat(cq.poll(completions(2))).isEqualTo(2);
        cq.requestNotify(false);
        long due = System.nanoTime();
        push(WcStatus.SUCCESS);
        assertThat(timers.tasks).hasSize(1);                              // one timer at a time
        timers.runAll();                                                  // the earlier arm's timer
        if (fired == 2) {
            assertThat(System.nanoTime() - due).isGreaterThanOrEqualTo(TimeUnit.MICROSECONDS.toNanos(65_535));
        } else {
            assertThat(timers.tasks).hasSize(1);                          // rescheduled for the rest of the period
            assertThat(timers.delays.getLast()).isPositive().isLessThanOrEqualTo(TimeUnit.MICROSECONDS.toNanos(65_535));
        }
    }

    @Test
    void onlyTheVerbsRangesAreAccepted() {
        assertThatThrownBy(() -> cq.moderate(0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.moderate(65_536, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.moderate(2, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.moderate(2, 65_536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.moderate(2, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a period");
        cq.moderate(1, 0);                                                // back to the default
        cq.moderate(65_535, 65_535);
    }

    @Test
    void aQueueWithoutTimersCannotModerate() {
        SoftCompletionQueue plain = new SoftCompletionQueue(Runnable::run, 4);
        assertThatThrownBy(() -> plain.moderate(2, 10)).isInstanceOf(UnsupportedOperationException.class);
        plain.moderate(1, 0);
    }

    @Test
    void aProviderWithoutModerationSaysSo() {
        CompletionQueue none = new CompletionQueue() {
            @Override
            public int poll(WorkCompletion[] out) {
                return 0;
            }

            @Override
            public void requestNotify(boolean solicitedOnly) {
            }

            @Override
            public void onNotify(Runnable handler, Executor executor) {
            }

            @Override
            public int capacity() {
                return 1;
            }

            @Override
            public void close() {
            }
        };
        assertThatThrownBy(() -> none.moderate(2, 10)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("CQ_MODERATION");
    }

    private void push(WcStatus status) {
        cq.push(1, status, WcOpcode.RECV, 8, SoftCompletionQueue.Value.NONE, 0, 7, false);
    }

    private static WorkCompletion[] completions(int n) {
        WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    /** Keeps what the queue schedules, for the test to run when it chooses. */
    private static final class Timers extends ScheduledThreadPoolExecutor {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        Timers() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            tasks.add(task);
            delays.add(unit.toNanos(delay));
            return null;
        }

        void runAll() {
            List<Runnable> now = new ArrayList<>(tasks);
            tasks.clear();
            now.forEach(Runnable::run);
        }
    }
}

package io.vibridge.verbs.soft.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.VerbsException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The receive queue posters fill without the QP's monitor: order, room, and no receive lost to a flush. */
class ReceiveQueueTest {
    /** The receives here name no memory region: their protection domain is never consulted. */
    private static final ProtectionDomain PD = null;

    @Test
    void takesInPostOrderAndRefusesWhenFull() {
        ReceiveQueue rq = new ReceiveQueue(7, 3);
        ReceiveWorkRequest wr = new ReceiveWorkRequest();
        for (int i = 0; i < 3; i++) {
            assertThat(rq.post(wr.set(100 + i, null, 0, 0), PD)).isTrue();
        }
        assertThatThrownBy(() -> rq.post(wr.set(103, null, 0, 0), PD))
                .isInstanceOf(VerbsException.class).hasMessageContaining("receive queue of QP 7 is full (3)");

        ReceiveQueue.Rwqe first = rq.peek();
        assertThat(first.wrId).isEqualTo(100);
        rq.remove(first);
        assertThat(rq.post(wr.set(103, null, 0, 0), PD)).isTrue();      // the slot is free again
        List<Long> taken = new ArrayList<>();
        while (!rq.isEmpty()) {
            ReceiveQueue.Rwqe r = rq.peek();
            taken.add(r.wrId);
            rq.remove(r);
        }
        assertThat(taken).containsExactly(101L, 102L, 103L);
    }

    @Test
    void aFlushCompletesWhatWaitsAndEveryLaterPostIsRefused() {
        ReceiveQueue rq = new ReceiveQueue(1, 4);
        ReceiveWorkRequest wr = new ReceiveWorkRequest();
        rq.post(wr.set(1, null, 0, 0), PD);
        rq.post(wr.set(2, null, 0, 0), PD);
        List<Long> flushed = new ArrayList<>();
        rq.flush(flushed::add);
        assertThat(flushed).containsExactly(1L, 2L);
        assertThat(rq.isEmpty()).isTrue();
        assertThat(rq.post(wr.set(3, null, 0, 0), PD)).isFalse();
    }

    @Test
    void badRegionIsRefusedBeforeTheQueueChanges() {
        ReceiveQueue rq = new ReceiveQueue(1, 4);
        assertThatThrownBy(() -> rq.post(new ReceiveWorkRequest().set(1, null, 0, 64), PD))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memory region missing");
        assertThat(rq.isEmpty()).isTrue();
    }

    /**
     * Two posters race a receive path (which takes under a lock, as the QP's monitor) and then a flush: every
     * receive is taken, flushed or refused exactly once, and the receive path sees them in each poster's order.
     */
    @Test
    void concurrentPostersLoseNothingToTheReceivePathOrAFlush() throws Exception {
        int perPoster = 200_000;
        ReceiveQueue rq = new ReceiveQueue(1, 64);
        Object qpMonitor = new Object();
        BitSet seen = new BitSet(2 * perPoster);
        long[] lastOfPoster = {-1, -1};
        boolean[] outOfOrder = {false};
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> posters = new ArrayList<>();
        BitSet refused = new BitSet(2 * perPoster);
        for (int p = 0; p < 2; p++) {
            int poster = p;
            Thread t = new Thread(() -> {
                ReceiveWorkRequest wr = new ReceiveWorkRequest();
                awaitQuietly(start);
                for (int i = 0; i < perPoster; i++) {
                    int id = poster * perPoster + i;
                    while (true) {
                        try {
                            if (!rq.post(wr.set(id, null, 0, 0), PD)) {
                                synchronized (refused) {
                                    refused.set(id);
                                }
                            }
                            break;
                        } catch (VerbsException full) {
                            Thread.onSpinWait();
                        }
                    }
                }
            });
            t.start();
            posters.add(t);
        }
        start.countDown();
        int taken = 0;
        while (taken < perPoster) {                      // the receive path: a third of the traffic, then flush
            synchronized (qpMonitor) {
                if (!rq.isEmpty()) {
                    ReceiveQueue.Rwqe r = rq.peek();
                    int id = (int) r.wrId;
                    rq.remove(r);
                    int poster = id / perPoster;
                    if (id <= lastOfPoster[poster]) {
                        outOfOrder[0] = true;
                    }
                    lastOfPoster[poster] = id;
                    seen.set(id);
                    taken++;
                }
            }
        }
        BitSet flushed = new BitSet(2 * perPoster);
        synchronized (qpMonitor) {
            rq.flush(id -> flushed.set((int) id));
        }
        for (Thread t : posters) {
            t.join(30_000);
        }
        assertThat(outOfOrder[0]).as("receives taken out of their poster's order").isFalse();
        assertThat(seen.intersects(flushed)).isFalse();
        assertThat(seen.intersects(refused) || flushed.intersects(refused)).isFalse();
        BitSet all = (BitSet) seen.clone();
        all.or(flushed);
        all.or(refused);
        assertThat(all.cardinality()).isEqualTo(2 * perPoster);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

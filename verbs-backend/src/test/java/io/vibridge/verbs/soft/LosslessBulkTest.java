package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bulk SEND and RDMA WRITE on four connections of one device pair, no injected loss: nothing is lost (no
 * sequence NAK, no out-of-sequence packet), and a retransmit timeout caused only by a late ACK (a stalled
 * thread on a loaded host) costs one probe packet, not a window: retransmissions never exceed timeouts.
 */
class LosslessBulkTest {
    private static final int QPS = 4;
    private static final int SIZE = 256 * 1024;
    private static final int MESSAGES = 128;     // per QP and operation: 4 x 2 x 32 MiB
    private static final int DEPTH = 16;

    @Test
    void bulkTransferWithoutLossRetransmitsNothingButProbes() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(QPS);
        try (VerbsDevice devA = TestDevices.open(); VerbsDevice devB = TestDevices.open()) {
            List<Endpoint[]> pairs = new ArrayList<>();
            BlockingQueue<CmEvent> ea = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> eb = new LinkedBlockingQueue<>();
            try (var l = devB.connectionManager().listen(Connected.SID, eb::add, null)) {
                for (int i = 0; i < QPS; i++) {
                    Endpoint a = new Endpoint(devA, DEPTH * SIZE, DEPTH);
                    Endpoint b = new Endpoint(devB, DEPTH * SIZE, DEPTH);
                    // rdma_cm's ACK timeout (17, 537 ms)
                    devA.connectionManager().connect(Connected.params(devB, null).withTimeouts(17, 14, 5), a.qp,
                            ea::add, null);
                    ((CmEvent.ConnectRequest) Connected.take(eb)).id().accept(b.qp, AcceptParams.defaults(null));
                    assertThat(Connected.take(ea)).isInstanceOf(CmEvent.Established.class);
                    assertThat(Connected.take(eb)).isInstanceOf(CmEvent.Established.class);
                    pairs.add(new Endpoint[] {a, b});
                }
            }
            DeviceCounters before = devA.counters();
            DeviceCounters beforeB = devB.counters();
            List<Future<?>> runs = new ArrayList<>();
            for (Endpoint[] p : pairs) {
                runs.add(pool.submit(() -> {
                    stream(p[0], p[1], WrOpcode.SEND);
                    stream(p[0], p[1], WrOpcode.RDMA_WRITE);
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get(300, TimeUnit.SECONDS);
            }
            DeviceCounters a = devA.counters();
            DeviceCounters b = devB.counters();
            long retransmissions = a.retransmissions() - before.retransmissions();
            long timeouts = a.timeouts() - before.timeouts();
            assertThat(b.outOfSequenceReceived() - beforeB.outOfSequenceReceived()).isZero();
            assertThat(a.naksReceivedSequence() - before.naksReceivedSequence()).isZero();
            assertThat(a.rnrNaksReceived() - before.rnrNaksReceived()).isZero();
            assertThat(retransmissions).isLessThanOrEqualTo(timeouts);
            for (Endpoint[] p : pairs) {
                p[0].close();
                p[1].close();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStalledResponderCostsProbesNotAWindow() throws Exception {
        // ACK timeout 14 (67 ms); the responder device's receive thread is held on the QP lock until the
        // requester has timed out: nothing is lost, the ACKs are only late
        try (Connected c = new Connected(2 << 20, 32, null, null)) {
            DeviceCounters before = c.devA.counters();
            CountDownLatch locked = new CountDownLatch(1);
            Thread staller = new Thread(() -> {
                synchronized (c.b.qp) {
                    locked.countDown();
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (c.devA.counters().timeouts() == before.timeouts() && System.nanoTime() < end) {
                        Thread.onSpinWait();
                        Thread.yield();
                    }
                }
            });
            staller.start();
            locked.await();
            for (int i = 0; i < 16; i++) {              // 256 packets of 4 KiB: two windows
                c.a.post(new SendWorkRequest().set(i, WrOpcode.RDMA_WRITE, c.a.mr, i * 65536, 65536)
                        .remote(c.b.mr.address() + i * 65536L, c.b.mr.rkey()));
            }
            for (int i = 0; i < 16; i++) {
                assertThat(c.a.next(120).status).isEqualTo(WcStatus.SUCCESS);
            }
            staller.join();
            DeviceCounters a = c.devA.counters();
            assertThat(a.timeouts() - before.timeouts()).isPositive();
            // go-back-N would resend the whole window (128 packets) per timeout; a probe resends one, plus
            // at most one more per late ACK that arrives while probing
            assertThat(a.retransmissions() - before.retransmissions()).isLessThan(64);
            assertThat(c.b.mr.buffer().slice(0, 1 << 20)).isEqualTo(c.a.mr.buffer().slice(0, 1 << 20));
        }
    }

    @Test
    void aReceiverWithoutReceivesCostsOnePacketPerRnrWaitNotAWindow() throws Exception {
        // the passive side answers RNR with timer code 1 (10 us): the requester retries very often
        try (Connected c = new Connected(2 << 20, 32, null, null)) {
            DeviceCounters before = c.devA.counters();
            for (int i = 0; i < 16; i++) {              // 256 packets: the first window is in flight at the first RNR NAK
                c.a.post(new SendWorkRequest().set(i, WrOpcode.SEND, c.a.mr, i * 65536, 65536));
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.devA.counters().rnrWaits() - before.rnrWaits() < 8 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            long waits = c.devA.counters().rnrWaits() - before.rnrWaits();
            assertThat(waits).isGreaterThanOrEqualTo(8);
            for (int i = 0; i < 16; i++) {
                c.b.postRecv(i, i * 65536, 65536);
            }
            for (int i = 0; i < 16; i++) {
                assertThat(c.a.next(120).status).isEqualTo(WcStatus.SUCCESS);
                assertThat(c.b.next(120).byteLength).isEqualTo(65536);
            }
            DeviceCounters a = c.devA.counters();
            long rnr = a.rnrWaits() - before.rnrWaits();
            // the window dropped behind the first RNR NAK is resent once (< 128), then one packet per wait
            assertThat(a.retransmissions() - before.retransmissions()).isLessThanOrEqualTo(128 + rnr);
            assertThat(c.b.mr.buffer().slice(0, 1 << 20)).isEqualTo(c.a.mr.buffer().slice(0, 1 << 20));
        }
    }

    /** {@code MESSAGES} messages of {@code SIZE}, {@code DEPTH} outstanding; the receiver reposts as it goes. */
    private static void stream(Endpoint a, Endpoint b, WrOpcode op) throws InterruptedException {
        boolean send = op == WrOpcode.SEND;
        if (send) {
            for (int i = 0; i < DEPTH; i++) {
                b.postRecv(i, i * SIZE, SIZE);
            }
        }
        SendWorkRequest wr = new SendWorkRequest();
        int posted = 0;
        int done = 0;
        int received = 0;
        while (done < MESSAGES || send && received < MESSAGES) {
            // the receiver keeps DEPTH receives posted: with DEPTH sends outstanding, no RNR NAK can happen
            while (posted < MESSAGES && posted - done < DEPTH && (!send || posted - received < DEPTH)) {
                int slot = posted % DEPTH;
                a.post(wr.set(posted, op, a.mr, slot * SIZE, SIZE).remote(b.mr.address() + (long) slot * SIZE,
                        b.mr.rkey()));
                posted++;
            }
            if (done < MESSAGES) {
                WorkCompletion wc = a.next(120);
                assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                done++;
            }
            if (send && received < done) {
                WorkCompletion r = b.next(120);
                assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
                assertThat(r.byteLength).isEqualTo(SIZE);
                received++;
                if (received + DEPTH <= MESSAGES) {
                    b.postRecv(r.wrId, (int) r.wrId * SIZE, SIZE);
                }
            }
        }
    }
}

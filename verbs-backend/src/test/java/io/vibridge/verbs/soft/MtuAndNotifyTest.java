package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Small path MTUs (with padding), CQ notification on the caller's executor (moderated too), CM events on it too.
 */
class MtuAndNotifyTest {
    @Test
    void everyOperationAtPathMtu256() throws Exception {
        try (Connected c = new Connected(1 << 20, 32, b -> ConnectParams.defaults(b.address(), Connected.SID, null)
                .withTimeouts(14, 14, 5).withPathMtu(256), null)) {
            assertThat(c.a.qp.pathMtu()).isEqualTo(256);
            assertThat(c.b.qp.pathMtu()).isEqualTo(256);
            for (int size : new int[] {1, 255, 256, 257, 1023, 5001}) {
                for (int i = 0; i < size; i++) {
                    c.a.mr.buffer().put(i, (byte) (i * 13 + size));
                }
                c.b.postRecv(1, 0, 8192);
                c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND_WITH_IMM, c.a.mr, 0, size).immediate(size));
                c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, size)
                        .remote(c.b.mr.address() + 10_000, c.b.mr.rkey()));
                c.a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_READ, c.a.mr, 20_000, size)
                        .remote(c.b.mr.address() + 10_000, c.b.mr.rkey()));
                for (int k = 1; k <= 3; k++) {
                    WorkCompletion wc = c.a.next();
                    assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.wrId).isEqualTo(k);
                }
                WorkCompletion r = c.b.next();
                assertThat(r.byteLength).isEqualTo(size);
                assertThat(r.immediate).isEqualTo(size);
                assertThat(c.b.mr.buffer().slice(0, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
                assertThat(c.b.mr.buffer().slice(10_000, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
                assertThat(c.a.mr.buffer().slice(20_000, size)).isEqualTo(c.a.mr.buffer().slice(0, size));
            }
        }
    }

    @Test
    void notificationsRunOnTheCallersExecutorOncePerArm() throws Exception {
        ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-loop"));
        try (Connected c = new Connected(1 << 20, 32, null,
                AcceptParams.defaults(null))) {
            BlockingQueue<String> fired = new ArrayBlockingQueue<>(10);
            c.b.cq.onNotify(() -> fired.add(Thread.currentThread().getName()), mine);
            c.b.cq.requestNotify(true);                       // solicited only
            c.b.postRecv(1, 0, 100);
            c.b.postRecv(2, 0, 100);
            c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 10));
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(fired.poll(200, TimeUnit.MILLISECONDS)).isNull();   // unsolicited: no event
            SendWorkRequest se = new SendWorkRequest().set(2, WrOpcode.SEND, c.a.mr, 0, 10);
            se.solicited = true;
            c.a.post(se);
            assertThat(fired.poll(30, TimeUnit.SECONDS)).isEqualTo("caller-loop");
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
            assertThat(c.b.cq.poll(wcs)).isEqualTo(2);
            assertThat(wcs[1].solicited).isTrue();
            assertThat(fired).isEmpty();                      // one event per arm
        } finally {
            mine.shutdownNow();
        }
    }

    @Test
    void aModeratedQueueNotifiesWhenItsCountHasArrived() throws Exception {
        try (Connected c = new Connected(1 << 20, 32, null, AcceptParams.defaults(null))) {
            assertThat(c.b.device.capabilities()).contains(Capability.CQ_MODERATION);
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            BlockingQueue<Integer> found = new ArrayBlockingQueue<>(10);
            c.b.cq.onNotify(() -> found.add(c.b.cq.poll(wcs)), null);        // how many the notification found
            c.b.cq.moderate(3, 65_535);
            c.b.cq.requestNotify(false);
            for (int i = 1; i <= 3; i++) {
                c.b.postRecv(i, 0, 100);
            }
            for (int i = 1; i <= 3; i++) {                                   // one burst: well inside 65 ms
                c.a.post(new SendWorkRequest().set(i, WrOpcode.SEND, c.a.mr, 0, 10));
            }
            assertThat(found.poll(30, TimeUnit.SECONDS)).isEqualTo(3);
            for (int i = 1; i <= 3; i++) {
                assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            }
            c.b.cq.moderate(1, 0);                                           // unmoderated again: one is enough
            c.b.cq.requestNotify(false);
            c.b.postRecv(4, 0, 100);
            c.a.post(new SendWorkRequest().set(4, WrOpcode.SEND, c.a.mr, 0, 10));
            assertThat(found.poll(30, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void cmEventsRunOnTheCallersExecutor() throws Exception {
        ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "cm-caller"));
        try (var dev = TestDevices.open()) {
            BlockingQueue<String> threads = new ArrayBlockingQueue<>(4);
            var qp = dev.allocateProtectionDomain().createQueuePair(
                    QpInitAttributes.of(dev.createCompletionQueue(8), 4));
            dev.connectionManager().connect(ConnectParams.defaults(dev.address(), 77, null)
                    .withTimeouts(14, 14, 2), qp, e -> {
                        if (e instanceof CmEvent.Rejected) {
                            threads.add(Thread.currentThread().getName());
                        }
                    }, mine);
            assertThat(threads.poll(30, TimeUnit.SECONDS)).isEqualTo("cm-caller");   // REJ 8 from ourselves
        } finally {
            mine.shutdownNow();
        }
    }
}

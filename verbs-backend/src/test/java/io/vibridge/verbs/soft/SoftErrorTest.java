package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RNR, access errors, length errors, retry exhaustion and flushing. */
class SoftErrorTest {
    private Connected c;

    @AfterEach
    void close() {
        if (c != null) {
            c.close();
        }
    }

    private Connected connect(int rnrRetry) throws Exception {
        return new Connected(1 << 20, 32, null,
                AcceptParams.defaults(new byte[0]).withRnr(rnrRetry, 1));
    }

    @Test
    void sendWithoutReceiveWaitsOnRnrAndSucceedsOncePosted() throws Exception {
        c = connect(7);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 100));
        // wait until the responder has answered with RNR NAKs, then post the receive
        long end = System.nanoTime() + 30_000_000_000L;
        while (c.devB.counters().rnrNaksSent() < 3 && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(c.devB.counters().rnrNaksSent()).isGreaterThanOrEqualTo(3);
        WorkCompletion[] none = {new WorkCompletion()};
        assertThat(c.a.cq.poll(none)).isZero();
        c.b.postRecv(7, 0, 100);
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = c.b.next();
        assertThat(r.wrId).isEqualTo(7);
        assertThat(r.byteLength).isEqualTo(100);
        assertThat(c.devA.counters().rnrWaits()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void finiteRnrRetryFailsWithRnrStatusAndFlushesTheRest() throws Exception {
        c = connect(2);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 10));
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, 10).remote(c.b.mr.address(), c.b.mr.rkey()));
        WorkCompletion wc = c.a.next();
        assertThat(wc.wrId).isEqualTo(1);
        assertThat(wc.status).isEqualTo(WcStatus.RNR_RETRY_EXCEEDED);
        WorkCompletion f = c.a.next();
        assertThat(f.wrId).isEqualTo(2);
        assertThat(f.status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        assertThat(c.a.qp.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void badRkeyGivesRemoteAccessErrorQpErrorAndFlush() throws Exception {
        c = connect(7);
        BlockingQueue<AsyncEvent> eventsA = new LinkedBlockingQueue<>();
        BlockingQueue<AsyncEvent> eventsB = new LinkedBlockingQueue<>();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        c.devA.onAsyncEvent(eventsA::add, executor);
        c.devB.onAsyncEvent(eventsB::add, executor);
        c.b.postRecv(1, 0, 100);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 64)
                .remote(c.b.mr.address(), c.b.mr.rkey() ^ 0x100));
        c.a.post(new SendWorkRequest().set(2, WrOpcode.SEND, c.a.mr, 0, 8));
        c.a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_READ, c.a.mr, 0, 8).remote(c.b.mr.address(), c.b.mr.rkey()));
        WorkCompletion e = c.a.next();
        assertThat(e.wrId).isEqualTo(1);
        assertThat(e.status).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
        WorkCompletion f2 = c.a.next();
        WorkCompletion f3 = c.a.next();
        assertThat(f2.status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        assertThat(f3.status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        assertThat(f3.wrId).isEqualTo(3);
        assertThat(c.a.qp.state()).isEqualTo(QpState.ERROR);
        // the responder moved to ERROR too and flushed its receive
        WorkCompletion r = c.b.next();
        assertThat(r.status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        assertThat(c.devB.counters().naksSentAccess()).isEqualTo(1);
        assertThat(c.devA.counters().naksReceivedAccess()).isEqualTo(1);
        // the responder's ERROR is an async event (IBV_EVENT_QP_ACCESS_ERR), the requester's is its completion
        assertThat(eventsB.poll(10, TimeUnit.SECONDS))
                .isEqualTo(new AsyncEvent.QueuePairError(c.b.qp.qpNum(), AsyncEvent.QpErrorCause.ACCESS_VIOLATION));
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(eventsA).isEmpty();
        assertThat(eventsB).isEmpty();
        // posting in ERROR completes at once as flushed
        c.a.post(new SendWorkRequest().set(4, WrOpcode.SEND, c.a.mr, 0, 8));
        assertThat(c.a.next().status).isEqualTo(WcStatus.WR_FLUSH_ERROR);
    }

    @Test
    void readOutOfBoundsIsARemoteAccessError() throws Exception {
        c = connect(7);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 4096)
                .remote(c.b.mr.address() + c.b.mr.length() - 100, c.b.mr.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void receiveTooSmallGivesLocalLengthErrorAndRemoteInvalidRequest() throws Exception {
        c = connect(7);
        c.b.postRecv(1, 0, 10);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 100));
        assertThat(c.b.next().status).isEqualTo(WcStatus.LOCAL_LENGTH_ERROR);
        assertThat(c.a.next().status).isEqualTo(WcStatus.REMOTE_INVALID_REQUEST);
    }

    @Test
    void silentPeerGivesRetryExceeded() throws Exception {
        c = new Connected(1 << 20, 32,
                b -> ConnectParams.defaults(b.address(), Connected.SID, new byte[0])
                        .withTimeouts(10, 14, 5).withRetries(2, 7), null);
        c.b.postRecv(1, 0, 100);
        ((SoftDevice) c.devB).setFaults(new FaultConfig(1.0, 0, 0, 0, 1));   // B's ACKs never arrive
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 10));
        assertThat(c.a.next().status).isEqualTo(WcStatus.RETRY_EXCEEDED);
        assertThat(c.devA.counters().timeouts()).isEqualTo(3);
        assertThat(c.devA.counters().retransmissions()).isEqualTo(2);
        assertThat(c.a.qp.state()).isEqualTo(QpState.ERROR);
    }
}

package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.RemoteAccessHandler;
import io.vibridge.verbs.RemoteAccessRegion;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Handler-answered regions (the gateway's cut-through). */
class CutThroughTest {
    static final long BASE = 0x7000_0000_0000L;
    private Connected c;
    private final ByteBuffer store = ByteBuffer.allocate(1 << 20);
    private final List<String> segments = new CopyOnWriteArrayList<>();
    private final AtomicInteger refuse = new AtomicInteger();
    private final AtomicBoolean failReads = new AtomicBoolean();
    private final ExecutorService other = Executors.newSingleThreadExecutor();
    private RemoteAccessRegion region;

    @BeforeEach
    void setUp() throws Exception {
        c = new Connected(1 << 20, 32, null, null);
        assertThat(c.devB.capabilities()).contains(Capability.REMOTE_ACCESS_HANDLER);
        region = c.b.pd.registerRemoteAccessHandler(BASE, 1 << 20, EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ),
                new RemoteAccessHandler() {
                    @Override
                    public boolean onWrite(long va, ByteBuffer payload, boolean first, boolean last, boolean hasImm,
                                           int immediate) {
                        if (refuse.get() > 0) {
                            refuse.decrementAndGet();
                            return false;
                        }
                        segments.add((first ? "F" : "") + (last ? "L" : "") + (hasImm ? "I" : "") + payload.remaining());
                        store.put((int) (va - BASE), payload, payload.position(), payload.remaining());
                        return true;
                    }

                    @Override
                    public void onRead(long va, int length, ReadResponder responder) {
                        other.execute(() -> {
                            if (failReads.get()) {
                                responder.fail();
                            } else {
                                responder.complete(store.slice((int) (va - BASE), length));
                            }
                        });
                    }
                });
    }

    @AfterEach
    void tearDown() {
        region.close();
        other.shutdownNow();
        c.close();
    }

    private void fill(int n) {
        for (int i = 0; i < n; i++) {
            c.a.mr.buffer().put(i, (byte) (i * 7 + 3));
        }
    }

    @Test
    void writesAreHandedToTheHandlerSegmentBySegment() throws Exception {
        fill(10_000);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 10_000).remote(BASE + 100, region.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(segments).containsExactly("F4096", "4096", "L1808");
        assertThat(store.slice(100, 10_000)).isEqualTo(c.a.mr.buffer().slice(0, 10_000));

        c.b.postRecv(5, 0, 0);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE_WITH_IMM, c.a.mr, 0, 50)
                .remote(BASE, region.rkey()).immediate(0x1234));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = c.b.next();
        assertThat(r.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r.immediate).isEqualTo(0x1234);
        assertThat(segments).last().isEqualTo("FLI50");
    }

    @Test
    void refusedSegmentsAreRetransmittedUntilAccepted() throws Exception {
        fill(9000);
        refuse.set(4);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 9000).remote(BASE, region.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(store.slice(0, 9000)).isEqualTo(c.a.mr.buffer().slice(0, 9000));
        assertThat(c.devA.counters().retransmissions()).isPositive();
    }

    @Test
    void readsAreAnsweredLaterFromAnotherThread() throws Exception {
        for (int i = 0; i < 9000; i++) {
            store.put(5000 + i, (byte) (i ^ 0x55));
        }
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 9000).remote(BASE + 5000, region.rkey()));
        // a SEND behind the READ: its ACK arrives before the READ's response and must not be lost
        c.b.postRecv(9, 0, 100);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.SEND, c.a.mr, 20_000, 10));
        WorkCompletion rd = c.a.next();
        assertThat(rd.wrId).isEqualTo(1);
        assertThat(rd.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.a.mr.buffer().slice(0, 9000)).isEqualTo(store.slice(5000, 9000));
        assertThat(c.a.next().wrId).isEqualTo(2);
    }

    @Test
    void aFailedReadIsARemoteAccessError() throws Exception {
        failReads.set(true);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 100).remote(BASE, region.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void accessOutsideTheRangeIsRefused() throws Exception {
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 100)
                .remote(BASE + (1 << 20) - 50, region.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
    }
}

package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReadResponder;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A queue-pair access handler (the gateway's cut-through): every inbound RDMA WRITE/READ on the QP
 * goes to the handler with its address and rkey, whatever the rkey; no memory region is reachable.
 */
class QueuePairAccessHandlerTest {
    static final long VA = 0x5000_0000_1000L;
    static final int RKEY = 0x00C0FFEE;
    private Connected c;
    private final ByteBuffer store = ByteBuffer.allocate(1 << 20);
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger refuse = new AtomicInteger();
    private final AtomicBoolean failReads = new AtomicBoolean();
    private final AtomicInteger readDelayMillis = new AtomicInteger();
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp() throws Exception {
        c = new Connected(1 << 20, 32, null, null);
        c.b.qp.setAccessHandler(new QueuePairAccessHandler() {
            @Override
            public boolean onWrite(long va, int rkey, ByteBuffer payload, boolean first, boolean last, boolean hasImm,
                                   int immediate) {
                if (refuse.get() > 0) {
                    refuse.decrementAndGet();
                    return false;
                }
                seen.add(Integer.toHexString(rkey) + ":" + (first ? "F" : "") + (last ? "L" : "")
                        + (hasImm ? "I" + Integer.toHexString(immediate) : "") + payload.remaining());
                if (va >= VA && va - VA + payload.remaining() <= store.capacity()) {
                    store.put((int) (va - VA), payload, payload.position(), payload.remaining());
                }
                return true;
            }

            @Override
            public void onRead(long va, int rkey, int length, ReadResponder responder) {
                seen.add("R" + Integer.toHexString(rkey) + ":" + length);
                other.execute(() -> {
                    try {
                        Thread.sleep(readDelayMillis.get());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (failReads.get()) {
                        responder.fail();
                    } else {
                        responder.complete(store.slice((int) (va - VA), length));
                    }
                });
            }

            @Override
            public void onReceiveQueued() {
                seen.add("S");
            }
        });
    }

    @AfterEach
    void tearDown() {
        other.shutdownNow();
        c.close();
    }

    private void fill(int n) {
        for (int i = 0; i < n; i++) {
            c.a.mr.buffer().put(i, (byte) (i * 13 + 1));
        }
    }

    @Test
    void writesWithAnyRkeyGoToTheHandlerNotToMemory() throws Exception {
        fill(10_000);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 10_000).remote(VA, RKEY));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(seen).containsExactly("c0ffee:F4096", "c0ffee:4096", "c0ffee:L1808");
        assertThat(store.slice(0, 10_000)).isEqualTo(c.a.mr.buffer().slice(0, 10_000));

        // the peer's own registered region is not reachable through this QP: the handler gets that too
        int before = c.b.mr.buffer().get(0);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, 10).remote(c.b.mr.address(), c.b.mr.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(seen).last().isEqualTo(Integer.toHexString(c.b.mr.rkey()) + ":FL10");
        assertThat((int) c.b.mr.buffer().get(0)).isEqualTo(before);

        c.b.postRecv(5, 0, 0);
        c.a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_WRITE_WITH_IMM, c.a.mr, 0, 0).remote(VA, RKEY)
                .immediate(0x77));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = c.b.next();
        assertThat(r.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(seen).endsWith("c0ffee:FLI770", "S"); // the data, then the receive its immediate completes
    }

    @Test
    void refusedPacketsAreRetransmitted() throws Exception {
        fill(9000);
        refuse.set(3);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_WRITE, c.a.mr, 0, 9000).remote(VA, RKEY));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(store.slice(0, 9000)).isEqualTo(c.a.mr.buffer().slice(0, 9000));
        assertThat(c.devA.counters().retransmissions()).isPositive();
    }

    @Test
    void readsAreAnsweredByTheHandlerOrFailed() throws Exception {
        for (int i = 0; i < 9000; i++) {
            store.put(100 + i, (byte) (i ^ 0x3C));
        }
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 9000).remote(VA + 100, RKEY));
        WorkCompletion rd = c.a.next();
        assertThat(rd.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.a.mr.buffer().slice(0, 9000)).isEqualTo(store.slice(100, 9000));
        assertThat(seen).contains("Rc0ffee:9000");

        failReads.set(true);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_READ, c.a.mr, 0, 100).remote(VA, RKEY));
        assertThat(c.a.next().status).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
    }

    /**
     * A SEND behind a READ the handler answers later (from another thread): the SEND's ACK arrives before the
     * READ's response and must not be lost, and the READ still completes first (ported from the region-level
     * CutThroughTest).
     */
    @Test
    void aSendBehindAReadAnsweredLaterCompletesAfterIt() throws Exception {
        for (int i = 0; i < 9000; i++) {
            store.put(5000 + i, (byte) (i ^ 0x55));
        }
        readDelayMillis.set(20);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 9000).remote(VA + 5000, RKEY));
        c.b.postRecv(9, 0, 100);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.SEND, c.a.mr, 20_000, 10));
        WorkCompletion rd = c.a.next();
        assertThat(rd.wrId).isEqualTo(1);
        assertThat(rd.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.a.mr.buffer().slice(0, 9000)).isEqualTo(store.slice(5000, 9000));
        WorkCompletion send = c.a.next();
        assertThat(send.wrId).isEqualTo(2);
        assertThat(send.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.b.next().wrId).isEqualTo(9);
    }

    /**
     * IB-WIRE-REFERENCE §4.6 / rxe duplicate_request: a READ retransmitted while the handler still answers the first
     * one is not handed over again (the gateway would read the VI client twice); the one answer, from the
     * READ's first PSN, completes the requester's READ.
     */
    @Test
    void aDuplicateReadWhileTheHandlerAnswersIsNotHandedOverAgain() throws Exception {
        for (int i = 0; i < 5000; i++) {
            store.put(i, (byte) (i * 7));
        }
        readDelayMillis.set(400);                 // > 5 ACK timeouts of 67 ms: the requester retransmits the READ
        c.a.post(new SendWorkRequest().set(1, WrOpcode.RDMA_READ, c.a.mr, 0, 5000).remote(VA, RKEY));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.a.mr.buffer().slice(0, 5000)).isEqualTo(store.slice(0, 5000));
        assertThat(c.devB.counters().duplicatesReceived()).as("the READ was retransmitted").isPositive();
        assertThat(seen).containsExactly("Rc0ffee:5000");
    }

    /** The handler learns of each target message in order with the RDMA around it (IBA 9.5). */
    @Test
    void receiveCompletionsAreAnnouncedInOrderWithTheRdma() throws Exception {
        c.b.postRecv(10, 0, 4096);
        c.b.postRecv(11, 0, 4096);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 16));
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, 16).remote(VA, RKEY));
        c.a.post(new SendWorkRequest().set(3, WrOpcode.RDMA_READ, c.a.mr, 0, 16).remote(VA, RKEY));
        c.a.post(new SendWorkRequest().set(4, WrOpcode.RDMA_WRITE_WITH_IMM, c.a.mr, 0, 16).remote(VA, RKEY)
                .immediate(5));
        for (int i = 0; i < 4; i++) {
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(seen).containsExactly("S", "c0ffee:FL16", "Rc0ffee:16", "c0ffee:FLI516", "S");
    }
}

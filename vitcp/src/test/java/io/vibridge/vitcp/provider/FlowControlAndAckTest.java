package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Acceptance 2: sender held back without credits and released by a NOP; Reliable Reception completion. */
class FlowControlAndAckTest {

    @Test
    void senderHeldBackWithoutCredits_releasedByNop() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withFlowControl(true),
                    f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withFlowControl(true));
            assertThat(f.clientVi.negotiated().flowControl()).isTrue();
            MemoryRegion src = f.clientRegion(64);
            MemoryRegion dst = f.serverRegion(64);
            Descriptor first = Descriptor.send().data(src, 0, 8).immediate(1);
            Descriptor second = Descriptor.send().data(src, 8, 8).immediate(2);
            f.clientVi.postSend(first);
            f.clientVi.postSend(second);
            // no credits: nothing may leave (a Send without a receive would break a Reliable Delivery VI)
            Thread.sleep(300);
            assertThat(first.isDone()).isFalse();
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);

            f.serverVi.postRecv(Descriptor.receive().data(dst, 0, 8)); // one credit, announced by a NOP
            assertThat(f.clientVi.sendWait(T)).isSameAs(first);
            assertThat(f.serverVi.recvWait(T).immediateData()).isEqualTo(1);
            Thread.sleep(300);
            assertThat(second.isDone()).isFalse(); // the credit is used up

            f.serverVi.postRecv(Descriptor.receive().data(dst, 8, 8));
            assertThat(f.clientVi.sendWait(T)).isSameAs(second);
            assertThat(f.serverVi.recvWait(T).immediateData()).isEqualTo(2);
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @Test
    void flowControlOnlyWhenBothAsk() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withFlowControl(false),
                    f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withFlowControl(true));
            assertThat(f.clientVi.negotiated().flowControl()).isFalse();
            assertThat(f.serverVi.negotiated().flowControl()).isFalse();
        }
    }

    @Test
    void reliableReception_sendCompletesOnlyAfterPeerCompletedItsReceive() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.RELIABLE_RECEPTION);
            MemoryRegion src = f.clientRegion(64);
            MemoryRegion dst = f.serverRegion(64);
            f.serverVi.postRecv(Descriptor.receive().data(dst, 0, 64));
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean receiveCompleted = new AtomicBoolean();
            // the receive completes on the provider's thread; hold it there
            f.serverVi.recvNotify(d -> {
                receiveCompleted.set(true);
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Descriptor send = Descriptor.send().data(src, 0, 64);
            f.clientVi.postSend(send);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!receiveCompleted.get() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertThat(receiveCompleted).isTrue();
            Thread.sleep(300);
            assertThat(send.isDone()).isFalse(); // no Message ACK before the receive completed
            release.countDown();
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_SEND);
        }
    }

    @Test
    void completionQueue_collectsSendAndReceiveNotices() throws Exception {
        try (Fixture f = new Fixture()) {
            CompletionQueue scq = f.client.createCq(1024);
            CompletionQueue rcq = f.server.createCq(1024);
            f.serverVi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, rcq);
            f.clientVi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), scq, null);
            f.connectExisting();
            MemoryRegion src = f.clientRegion(8);
            MemoryRegion dst = f.serverRegion(8);
            f.serverVi.postRecv(Descriptor.receive().data(dst, 0, 8));
            f.clientVi.postSend(Descriptor.send().data(src, 0, 8));
            CompletionQueue.Entry s = scq.await(T);
            assertThat(s.vi()).isSameAs(f.clientVi);
            assertThat(s.recvQueue()).isFalse();
            assertThat(f.clientVi.sendDone().status()).isEqualTo(Status.DONE);
            CompletionQueue.Entry r = rcq.await(T);
            assertThat(r.vi()).isSameAs(f.serverVi);
            assertThat(r.recvQueue()).isTrue();
            assertThat(f.serverVi.recvDone().status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
            rcq.resize(2048);
            assertThat(rcq.capacity()).isEqualTo(2048);
            assertThat(rcq.done()).isNull();
        }
    }
}

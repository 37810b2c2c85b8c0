package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NICs in polling mode ({@link NicConfig#idle}): round trips, a stream large enough to fill the socket (the
 * writer waits for room), a pause long enough for backoff to block on its selector, then traffic again and a
 * clean close.
 */
class PollingModeTest {

    /** A server and a client NIC, both with the idle strategy {@code idle}. */
    private static Fixture polling(String idle) throws IOException {
        IdleStrategy strategy = IdleStrategy.parse(idle);
        return new Fixture(Fixture.loopback("server").withIdle(strategy), Fixture.loopback("client").withIdle(strategy));
    }

    @ParameterizedTest
    @ValueSource(strings = {"spin", "backoff"})
    void roundTripsStreamsAndQuietSpells(String idle) throws Exception {
        try (Fixture f = polling(idle)) {
            f.connect(ReliabilityLevel.RELIABLE_RECEPTION);
            MemoryRegion c = f.clientRegion(64);
            MemoryRegion s = f.serverRegion(64);
            for (int i = 0; i < 200; i++) {                    // 8-byte ping-pong, each side waiting in recvWait
                f.serverVi.postRecv(Descriptor.receive().data(s, 0, 64));
                f.clientVi.postRecv(Descriptor.receive().data(c, 0, 64));
                c.buffer().putLong(0, i);
                f.clientVi.postSend(Descriptor.send().data(c, 0, 8));
                assertThat(f.serverVi.recvWait(T).length()).isEqualTo(8);
                f.serverVi.postSend(Descriptor.send().data(s, 0, 8));
                assertThat(f.clientVi.recvWait(T).length()).isEqualTo(8);
                assertThat(s.buffer().getLong(0)).isEqualTo(i);
                f.clientVi.sendWait(T);
                f.serverVi.sendWait(T);
            }
            int mtu = 1 << 20;
            int len = 16 * mtu;                                 // 16 writes of the NIC's MTU, all posted at once
            MemoryRegion src = f.clientRegion(len);
            MemoryRegion dst = f.serverRegion(len);
            Fixture.fill(src, 0, len, 5);
            f.serverVi.postRecv(Descriptor.receive());
            for (int off = 0; off < len; off += mtu) {
                Descriptor w = Descriptor.rdmaWrite(dst.address(off), dst.handle()).data(src, off, mtu);
                f.clientVi.postSend(off + mtu == len ? w.immediate(1) : w);
            }
            for (int off = 0; off < len; off += mtu) {
                assertThat(f.clientVi.sendWait(T).status() & ~Status.IMMEDIATE).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
            }
            assertThat(f.serverVi.recvWait(T).immediateData()).isEqualTo(1);
            assertThat(Fixture.bytes(dst, len - 4096, 4096)).isEqualTo(Arrays.copyOfRange(
                    Fixture.expected(len, 5), len - 4096, len));
            Thread.sleep(50);                                   // backoff: past spin and yield, threads block
            f.serverVi.postRecv(Descriptor.receive().data(s, 0, 64));
            f.clientVi.postSend(Descriptor.send().data(c, 0, 8));
            assertThat(f.serverVi.recvWait(T).length()).isEqualTo(8);
        }
    }

    /**
     * A waiter that leaves with its completion does not wake the reader thread (it would poll again soon); the
     * reader takes the socket back by itself, so input nobody polls for (a notification handler's) still arrives.
     */
    @ParameterizedTest
    @ValueSource(strings = {"spin", "backoff"})
    void theReaderTakesTheSocketBackAfterAPollingWaiterLeft(String idle) throws Exception {
        try (Fixture f = polling(idle)) {
            f.connect(ReliabilityLevel.RELIABLE_DELIVERY);
            MemoryRegion c = f.clientRegion(64);
            MemoryRegion s = f.serverRegion(64);
            f.clientVi.postRecv(Descriptor.receive().data(c, 0, 64));
            CompletableFuture<Descriptor> polled = CompletableFuture.supplyAsync(() -> {
                try {
                    return f.clientVi.recvWait(T);                   // polls, and reads the socket itself
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);                                       // (so that it is polling when the Send comes)
            f.serverVi.postSend(Descriptor.send().data(s, 0, 8));
            assertThat(polled.get(10, TimeUnit.SECONDS).length()).isEqualTo(8);
            CompletableFuture<Descriptor> notified = new CompletableFuture<>();
            f.clientVi.postRecv(Descriptor.receive().data(c, 0, 64));
            f.clientVi.recvNotify(notified::complete);
            f.serverVi.postSend(Descriptor.send().data(s, 0, 8));     // nobody polls: only the reader delivers it
            assertThat(notified.get(10, TimeUnit.SECONDS).length()).isEqualTo(8);
            f.clientVi.postRecv(Descriptor.receive().data(c, 0, 64));
            f.clientVi.postRecv(Descriptor.receive().data(c, 0, 64));
            f.serverVi.postSend(Descriptor.send().data(s, 0, 8));
            f.serverVi.postSend(Descriptor.send().data(s, 0, 8));
            assertThat(f.clientVi.recvWait(T).length()).isEqualTo(8);
            assertThat(f.clientVi.recvWait(T).length()).isEqualTo(8);
        }
    }
}

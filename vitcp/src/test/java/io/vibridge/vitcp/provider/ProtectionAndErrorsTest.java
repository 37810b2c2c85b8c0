package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Acceptance 2: every protection failure and receive-side error at each reliability level gives the
 * status bits and VI states of VIA 2.5 / 7 / 10.2 and VITCP-PROFILE §6.
 */
class ProtectionAndErrorsTest {

    enum Fault { BAD_HANDLE, OUT_OF_BOUNDS, TAG_MISMATCH, RDMA_DISABLED }

    static Stream<Arguments> faultsAtEachLevel() {
        return Stream.of(ReliabilityLevel.values())
                .flatMap(l -> Stream.of(Fault.values()).map(f -> Arguments.of(l, f)));
    }

    static int isCodeOf(Fault f) {
        return switch (f) {
            case BAD_HANDLE -> IsCode.INVALID_MEMORY_HANDLE;
            case OUT_OF_BOUNDS -> IsCode.ADDRESS_OUT_OF_REGION;
            case TAG_MISMATCH -> IsCode.PROTECTION_TAG_MISMATCH;
            case RDMA_DISABLED -> IsCode.ACCESS_NOT_ENABLED;
        };
    }

    /** A remote target for the fault: address and handle at the server. */
    static long[] target(Fixture f, Fault fault, int len, boolean write) {
        MemoryRegion ok = f.serverRegion(4096);
        return switch (fault) {
            case BAD_HANDLE -> new long[] {ok.address(), ok.handle() ^ 0x0005_5000};
            case OUT_OF_BOUNDS -> new long[] {ok.address(4096 - len / 2), ok.handle()};
            case TAG_MISMATCH -> {
                MemoryRegion other = Fixture.region(f.server, f.server.createPtag(), 4096, true, true);
                yield new long[] {other.address(), other.handle()};
            }
            case RDMA_DISABLED -> {
                MemoryRegion off = Fixture.region(f.server, f.serverTag, 4096, !write, write);
                yield new long[] {off.address(), off.handle()};
            }
        };
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("faultsAtEachLevel")
    void rdmaWriteProtectionFailure(ReliabilityLevel level, Fault fault) throws Exception {
        try (Fixture f = new Fixture()) {
            List<ErrorDescriptor> serverErrors = new CopyOnWriteArrayList<>();
            f.server.errorCallback(serverErrors::add);
            f.connect(level);
            MemoryRegion src = f.clientRegion(1000);
            long[] t = target(f, fault, 1000, true);
            f.clientVi.postSend(Descriptor.rdmaWrite(t[0], (int) t[1]).data(src, 0, 1000));
            Descriptor d = f.clientVi.sendWait(T);
            switch (level) {
                case UNRELIABLE_DELIVERY -> {
                    // VIA Table 1: in flight; error dropped at the receiver; connection stays (VIA 2.5.1)
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
                    awaitDropped(f.serverVi, 1);
                    assertStillConnected(f);
                }
                case RELIABLE_DELIVERY -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitState(f.clientVi, ViState.ERROR);
                    awaitErrors(serverErrors);
                    assertThat(serverErrors).anySatisfy(e -> assertThat(e.isCode()).isEqualTo(isCodeOf(fault)));
                }
                case RELIABLE_RECEPTION -> {
                    // VIA 10.2 bit 7 on the RDMA Write descriptor; both VIs in Error
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.RDMA_PROT_ERROR | Status.OP_RDMA_WRITE);
                    awaitState(f.clientVi, ViState.ERROR);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitErrors(serverErrors);
                    assertThat(serverErrors).anySatisfy(e -> assertThat(e.isCode()).isEqualTo(isCodeOf(fault)));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("faultsAtEachLevel")
    void rdmaReadProtectionFailure(ReliabilityLevel level, Fault fault) throws Exception {
        if (level == ReliabilityLevel.UNRELIABLE_DELIVERY) {
            return; // no RDMA Read at Unreliable Delivery: DataTransferTest.rdmaRead_onUnreliableVi_isLocalFormatError
        }
        try (Fixture f = new Fixture()) {
            f.connect(level);
            MemoryRegion dst = f.clientRegion(1000);
            dst.buffer().put(0, (byte) 99);
            long[] t = target(f, fault, 1000, false);
            Descriptor posted = Descriptor.rdmaRead(t[0], (int) t[1]).data(dst, 0, 1000);
            Descriptor after = Descriptor.send().data(dst, 0, 10);
            f.clientVi.postSend(posted);
            f.clientVi.postSend(after);
            Descriptor d = f.clientVi.sendWait(T);
            assertThat(d).isSameAs(posted);
            if (level == ReliabilityLevel.RELIABLE_RECEPTION) {
                assertThat(d.status()).isEqualTo(Status.DONE | Status.RDMA_PROT_ERROR | Status.OP_RDMA_READ);
            } else {
                // Reliable Delivery: the responder closes without report (VITCP-PROFILE §6): the Read in flight
                // is flushed with a transport error
                assertThat(d.status())
                        .isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.TRANSPORT_ERROR | Status.OP_RDMA_READ);
            }
            assertThat(dst.buffer().get(0)).isEqualTo((byte) 99); // nothing placed
            awaitState(f.clientVi, ViState.ERROR);
            awaitState(f.serverVi, ViState.ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void receiveQueueEmpty(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            List<ErrorDescriptor> serverErrors = new CopyOnWriteArrayList<>();
            f.server.errorCallback(serverErrors::add);
            f.connect(level);
            MemoryRegion src = f.clientRegion(100);
            f.clientVi.postSend(Descriptor.send().data(src, 0, 100));
            Descriptor d = f.clientVi.sendWait(T);
            switch (level) {
                case UNRELIABLE_DELIVERY -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_SEND);
                    awaitDropped(f.serverVi, 1);
                    assertStillConnected(f); // the message was dropped; the next one arrives
                }
                case RELIABLE_DELIVERY -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_SEND);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitState(f.clientVi, ViState.ERROR);
                    awaitErrors(serverErrors);
                    assertThat(serverErrors).anySatisfy(e -> {
                        assertThat(e.errorCode()).isEqualTo(ErrorDescriptor.ErrorCode.RECVQ_EMPTY);
                        assertThat(e.isCode()).isEqualTo(IsCode.RECEIVE_QUEUE_EMPTY);
                    });
                }
                case RELIABLE_RECEPTION -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.REMOTE_DESC_ERROR | Status.OP_SEND);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitState(f.clientVi, ViState.ERROR);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void receiveTooSmall(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(level);
            MemoryRegion src = f.clientRegion(100);
            MemoryRegion dst = f.serverRegion(100);
            Descriptor small = Descriptor.receive().data(dst, 0, 50);
            Descriptor next = Descriptor.receive().data(dst, 50, 50);
            f.serverVi.postRecv(small);
            f.serverVi.postRecv(next);
            f.clientVi.postSend(Descriptor.send().data(src, 0, 100));
            Descriptor d = f.clientVi.sendWait(T);
            Descriptor r = f.serverVi.recvWait(T);
            assertThat(r).isSameAs(small);
            assertThat(r.status()).isEqualTo(Status.DONE | Status.LENGTH_ERROR | Status.OP_RECEIVE);
            switch (level) {
                case UNRELIABLE_DELIVERY -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_SEND);
                    f.clientVi.postSend(Descriptor.send().data(src, 0, 10));
                    assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE);
                    assertThat(f.serverVi.recvWait(T).status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
                    assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
                }
                case RELIABLE_DELIVERY -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_SEND);
                    assertThat(f.serverVi.recvWait(T).status())
                            .isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitState(f.clientVi, ViState.ERROR);
                }
                case RELIABLE_RECEPTION -> {
                    assertThat(d.status()).isEqualTo(Status.DONE | Status.REMOTE_DESC_ERROR | Status.OP_SEND);
                    assertThat(f.serverVi.recvWait(T).status())
                            .isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
                    awaitState(f.serverVi, ViState.ERROR);
                    awaitState(f.clientVi, ViState.ERROR);
                }
            }
        }
    }

    /** The connection survived: a Send still arrives. */
    static void assertStillConnected(Fixture f) throws Exception {
        MemoryRegion src = f.clientRegion(16);
        MemoryRegion dst = f.serverRegion(16);
        f.serverVi.postRecv(Descriptor.receive().data(dst, 0, 16));
        f.clientVi.postSend(Descriptor.send().data(src, 0, 16).immediate(1));
        assertThat(f.clientVi.sendWait(T).isError()).isFalse();
        Descriptor r = f.serverVi.recvWait(T);
        assertThat(r.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
        assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
        assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
    }

    static void awaitState(Vi vi, ViState s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (vi.state() != s && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(vi.state()).isEqualTo(s);
    }

    /** The error callback runs on the provider's thread after the state change: wait for it. */
    static void awaitErrors(List<ErrorDescriptor> errors) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (errors.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
    }

    static void awaitDropped(Vi vi, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (vi.droppedMessages() < n && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertThat(vi.droppedMessages()).isEqualTo(n);
    }

    static final Duration SHORT = Duration.ofMillis(300);
}

package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Acceptance 2: disconnect and TCP reset mid-message flush posted descriptors with the flushed status. */
class DisconnectAndResetTest {

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void disconnect_flushesBothSides(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            List<ErrorDescriptor> serverErrors = new CopyOnWriteArrayList<>();
            f.server.errorCallback(serverErrors::add);
            f.connect(level);
            MemoryRegion c = f.clientRegion(64);
            MemoryRegion s = f.serverRegion(64);
            f.clientVi.postRecv(Descriptor.receive().data(c, 0, 32));
            f.clientVi.postRecv(Descriptor.receive().data(c, 32, 32));
            f.serverVi.postRecv(Descriptor.receive().data(s, 0, 64));

            f.clientVi.disconnect();
            assertThat(f.clientVi.state()).isEqualTo(ViState.IDLE); // VIA 5.3
            for (int i = 0; i < 2; i++) {
                assertThat(f.clientVi.recvWait(T).status()).isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
            }
            assertThat(f.serverVi.recvWait(T).status()).isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
            assertThat(f.serverVi.state()).isEqualTo(ViState.ERROR);
            ProtectionAndErrorsTest.awaitErrors(serverErrors);
            assertThat(serverErrors).anySatisfy(e -> assertThat(e.errorCode()).isEqualTo(ErrorDescriptor.ErrorCode.CONN_LOST));
            // posts after the break complete in error (VIA 5.4) and a disconnect brings the VI back to Idle
            f.serverVi.postSend(Descriptor.send().data(s, 0, 8));
            assertThat(f.serverVi.sendWait(T).status() & Status.DESC_FLUSHED_ERROR).isNotZero();
            f.serverVi.disconnect();
            assertThat(f.serverVi.state()).isEqualTo(ViState.IDLE);
            f.serverVi.destroy();
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void tcpResetMidMessage_flushesPostedReceives(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.server.createVi(f.serverAttributes(level), null, null);
            MemoryRegion s = f.serverRegion(100_000);
            Descriptor big = Descriptor.receive().data(s, 0, 60_000);
            Descriptor other = Descriptor.receive().data(s, 60_000, 40_000);
            vi.postRecv(big);
            vi.postRecv(other);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            try (RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
                var answer = raw.request(RawPeer.ce(level, 1 << 20, 0, Discriminator.ofUtf8("raw"), SERVER), 0);
                assertThat(answer).isInstanceOf(ConnectAccept.class);
                accepted.get(20, TimeUnit.SECONDS);
                // first segment of a 50,000-byte Send, then a TCP reset
                raw.write(raw.segment(SegmentType.SEND, 0, 0, raw.nextMessage, 0, 0, null, new byte[20_000]));
                Thread.sleep(100);
                raw.reset();
            }
            Descriptor d1 = vi.recvWait(T);
            assertThat(d1).isSameAs(big);
            assertThat(d1.status() & (Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_MASK))
                    .isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
            assertThat(vi.recvWait(T).status()).isEqualTo(Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE);
            ProtectionAndErrorsTest.awaitState(vi, ViState.ERROR);
        }
    }
}

package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * VITCP-PROFILE §9.5 through the provider: a requester that keeps its peer's whole RDMA Read window
 * outstanding (a new Read posted the moment one completes) never gets IS 7, although the responder's
 * writer thread confirms each response to the engine only after TCP may already have delivered it.
 */
class ReadWindowStressTest {

    static final int WINDOW = 4;
    static final int READS = 3000;
    static final int SIZE = 64;

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void fullReadWindowKeptOutstanding_manyIterations_noError(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(f.serverAttributes(level).withReadWindow(WINDOW), f.clientAttributes(level).withReadWindow(WINDOW));
            assertThat(f.clientVi.negotiated().peerReadWindow()).isEqualTo(WINDOW);
            MemoryRegion remote = f.serverRegion(WINDOW * SIZE);
            Fixture.fill(remote, 0, WINDOW * SIZE, 3);
            MemoryRegion local = f.clientRegion(WINDOW * SIZE);
            int posted = 0;
            for (; posted < WINDOW; posted++) {
                f.clientVi.postSend(read(remote, local, posted));
            }
            for (int done = 0; done < READS; done++) {
                Descriptor d = f.clientVi.sendWait(T);
                assertThat(d.status()).as("read %d", done).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
                if (posted < READS) {
                    f.clientVi.postSend(read(remote, local, posted++)); // refill the window at once
                }
            }
            assertThat(Fixture.bytes(local, 0, WINDOW * SIZE)).isEqualTo(Fixture.expected(WINDOW * SIZE, 3));
            assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    private static Descriptor read(MemoryRegion remote, MemoryRegion local, int n) {
        int slot = n % WINDOW;
        return Descriptor.rdmaRead(remote.address() + (long) slot * SIZE, remote.handle()).data(local, slot * SIZE, SIZE);
    }
}

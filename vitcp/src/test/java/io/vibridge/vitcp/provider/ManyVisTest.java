package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Acceptance 4: one NIC with 1,024 connected VIs (heap per idle VI: ViBench --idle-vis 1024). */
class ManyVisTest {

    @Test
    void oneNicHolds1024ConnectedVis_allUsable() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(Fixture.SERVER)) {
            int n = 1024;
            List<Vi> serverVis = new ArrayList<>(n);
            List<Vi> clientVis = new ArrayList<>(n);
            MemoryRegion dst = f.serverRegion(8 * n);
            MemoryRegion src = f.clientRegion(8);
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        Vi sv = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
                        sv.postRecv(Descriptor.receive().data(dst, 8 * i, 8));
                        l.connectWait(T).accept(sv);
                        synchronized (serverVis) {
                            serverVis.add(sv);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < n; i++) {
                Vi cv = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
                cv.connectRequest(Discriminator.ofUtf8("c" + i), f.serverAddress(Fixture.SERVER), T);
                clientVis.add(cv);
            }
            acceptor.join();
            assertThat(serverVis).hasSize(n);
            assertThat(serverVis).allMatch(v -> v.state() == ViState.CONNECTED);
            assertThat(f.server.viCount()).isEqualTo(n);
            // every 128th pair still moves data
            for (int i = 0; i < n; i += 128) {
                clientVis.get(i).postSend(Descriptor.send().data(src, 0, 8).immediate(i));
                assertThat(clientVis.get(i).sendWait(T).status()).isEqualTo(Status.DONE);
            }
            for (Vi sv : serverVis) {
                Descriptor r = sv.recvDone();
                if (r == null && serverVis.indexOf(sv) % 128 == 0) {
                    r = sv.recvWait(T);
                }
                if (r != null) {
                    assertThat(r.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
                }
            }
        }
    }
}

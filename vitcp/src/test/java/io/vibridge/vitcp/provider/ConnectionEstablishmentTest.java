package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.CLIENT;
import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Acceptance 2: connect/accept, reject, no match, connect timeout, reliability mismatch, MTU rules. */
class ConnectionEstablishmentTest {

    @Test
    void connectAccept_bothVisConnected_withAgreedParameters() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.RELIABLE_DELIVERY);
            assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
            assertThat(f.clientVi.negotiated().reliability()).isEqualTo(ReliabilityLevel.RELIABLE_DELIVERY);
            assertThat(f.clientVi.negotiated().peer().calling()).isEqualTo(SERVER);
            assertThat(f.serverVi.negotiated().peer().calling()).isEqualTo(CLIENT);
            assertThat(f.clientVi.negotiated().peerImn()).isEqualTo(f.serverVi.negotiated().localImn());
        }
    }

    @Test
    void reject_consumerRefuses_requesterGetsIsCode8_andStaysIdle() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).reject();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, f.serverAddress(SERVER), T))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.CONSUMER_REJECTED);
                    });
            server.get(20, TimeUnit.SECONDS);
            assertThat(vi.state()).isEqualTo(ViState.IDLE);
        }
    }

    @Test
    void noMatch_unknownDiscriminator_requesterGetsNoMatch() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, f.serverAddress(Discriminator.ofUtf8("nobody")), T))
                    .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.code()).isEqualTo(ViException.Code.NO_MATCH));
            assertThat(vi.state()).isEqualTo(ViState.IDLE);
        }
    }

    @Test
    void connectTimeout_peerNeverAnswers_requestTimesOutAndViIsIdle() throws Exception {
        try (Fixture f = new Fixture(); ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            ViNetAddress mute = new ViNetAddress(new InetSocketAddress(silent.getInetAddress(), silent.getLocalPort()),
                    SERVER, Fixture.FRAMING);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, mute, Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.code()).isEqualTo(ViException.Code.TIMEOUT));
            assertThat(vi.state()).isEqualTo(ViState.IDLE);
        }
    }

    @Test
    void reliabilityMismatch_acceptRejectsWithIs9() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            Vi serverVi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_RECEPTION), null, null);
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            CompletableFuture<ViException> server = CompletableFuture.supplyAsync(() -> {
                try {
                    l.connectWait(T).accept(serverVi);
                    return null;
                } catch (ViException e) {
                    return e;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, f.serverAddress(SERVER), T))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES);
                    });
            assertThat(server.get(20, TimeUnit.SECONDS).code()).isEqualTo(ViException.Code.INVALID_RELIABILITY_LEVEL);
            assertThat(serverVi.state()).isEqualTo(ViState.IDLE);
        }
    }

    @Test
    void mtuAgreement_lesserOfBoth() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withMtu(48 * 1024),
                    f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY).withMtu(256 * 1024));
            assertThat(f.clientVi.negotiated().mtu()).isEqualTo(48 * 1024);
            assertThat(f.serverVi.negotiated().mtu()).isEqualTo(48 * 1024);
        }
    }
}

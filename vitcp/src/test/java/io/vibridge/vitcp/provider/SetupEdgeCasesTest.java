package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.CLIENT;
import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.vitcp.engine.Negotiated;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Acceptance 2: MTU below the minimum, reserved attributes, peer-to-peer collision, Security Type 1, NIC minimums. */
class SetupEdgeCasesTest {

    @Test
    void mtuBelowMinimum_rejectedWithIs10() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            var answer = raw.request(RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 16 * 1024, 0, CLIENT, SERVER), 0);
            assertThat(answer).isEqualTo(new ConnectReject(IsCode.MTU_TOO_SMALL));
            assertThat(OrderingAndReadWindowTest.closedAfter(raw)).isTrue();
        }
    }

    @Test
    void reservedAttributeBits_rejectedWithIs9() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            ConnectionHeader h = ConnectionHeader.unsigned(new ConnectionAttributes(0x0081), CLIENT, 1 << 20, 0, SERVER);
            assertThat(raw.request(h, 0)).isEqualTo(new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES));
        }
    }

    @Test
    void rdmaReadAtUnreliableDelivery_rejectedWithIs9() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            ConnectionHeader h = ConnectionHeader.unsigned(
                    ConnectionAttributes.of(ReliabilityLevel.UNRELIABLE_DELIVERY, true, true, false, false, false), CLIENT,
                    1 << 20, 0, SERVER);
            assertThat(raw.request(h, 0)).isEqualTo(new ConnectReject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES));
        }
    }

    @Test
    void peerToPeerCollision_bothConnectToEachOther() throws Exception {
        try (Fixture f = new Fixture()) {
            Discriminator a = Discriminator.ofUtf8("peer-a");
            Discriminator b = Discriminator.ofUtf8("peer-b");
            Vi va = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            Vi vb = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            CompletableFuture<Negotiated> fa = CompletableFuture.supplyAsync(() -> peer(f.server, va, a, Fixture.address(f.client, b)), OWN_THREAD);
            CompletableFuture<Negotiated> fb = CompletableFuture.supplyAsync(() -> peer(f.client, vb, b, f.serverAddress(a)), OWN_THREAD);
            Negotiated na = fa.get(30, TimeUnit.SECONDS);
            Negotiated nb = fb.get(30, TimeUnit.SECONDS);
            assertThat(na.peer().calling()).isEqualTo(b);
            assertThat(nb.peer().calling()).isEqualTo(a);
            assertThat(va.state()).isEqualTo(ViState.CONNECTED);
            assertThat(vb.state()).isEqualTo(ViState.CONNECTED);
            // one TCP connection: the collision's other one is closed by its loser, asynchronously (it raced once in CI)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (f.server.connectionCount() + f.client.connectionCount() > 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(f.server.connectionCount() + f.client.connectionCount()).isEqualTo(2);
            MemoryRegion src = f.serverRegion(8);
            MemoryRegion dst = f.clientRegion(8);
            vb.postRecv(Descriptor.receive().data(dst, 0, 8));
            va.postSend(Descriptor.send().data(src, 0, 8).immediate(9));
            assertThat(vb.recvWait(T).immediateData()).isEqualTo(9);
        }
    }

    /** Each side on its own thread (the common pool may have a single worker on a small machine). */
    static final Executor OWN_THREAD = r -> Thread.ofVirtual().start(r);

    private static Negotiated peer(ViNic nic, Vi vi, Discriminator local, ViNetAddress remote) {
        try {
            return nic.connectPeer(vi, local, remote, T);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @Test
    void securityType1_signedRequestAccepted() throws Exception {
        try (Fixture f = new Fixture(Fixture.loopback("server").withKey(KEY), Fixture.loopback("client").withKey(KEY))) {
            f.connect(ReliabilityLevel.RELIABLE_DELIVERY);
            assertThat(f.clientVi.negotiated().peer().securityType()).isEqualTo(ConnectionHeader.SECURITY_HMAC_SHA256);
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @Test
    void securityType1_unsignedRequestRejectedWithIs11() throws Exception {
        try (Fixture f = new Fixture(Fixture.loopback("server").withKey(KEY), Fixture.loopback("client"));
                ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, f.serverAddress(SERVER), T))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.SECURITY_REJECTED);
                    });
        }
    }

    @Test
    void securityType1_wronglySignedRequestRejectedWithIs11() throws Exception {
        byte[] other = KEY.clone();
        other[0] ^= 1;
        try (Fixture f = new Fixture(Fixture.loopback("server").withKey(KEY), Fixture.loopback("client").withKey(other));
                ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, f.serverAddress(SERVER), T))
                    .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.isCode()).isEqualTo(IsCode.SECURITY_REJECTED));
        }
    }

    /**
     * VITCP-PROFILE §5: a Security Type 1 request whose Security Length is not 40 is not
     * validly signed. A passive side holding a key answers Connect Reject IS 11 (security information
     * rejected), not IS 9, even when the 40 bytes at the usual place carry a correct HMAC (44).
     */
    @ParameterizedTest
    @ValueSource(ints = {36, 44, 0})
    void securityType1_withSecurityLengthOtherThan40_rejectedWithIs11(int length) throws Exception {
        try (Fixture f = new Fixture(Fixture.loopback("server").withKey(KEY), Fixture.loopback("client"));
                ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            ConnectRequest cr = new ConnectRequest(raw.nextMessage, 0,
                    RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, 0, CLIENT, SERVER));
            byte[] seg = RawPeer.withSecurity(cr, ConnectionHeader.SECURITY_HMAC_SHA256, length, KEY);
            assertThat(raw.requestRaw(seg)).isEqualTo(new ConnectReject(IsCode.SECURITY_REJECTED));
            assertThat(OrderingAndReadWindowTest.closedAfter(raw)).isTrue();
        }
    }

    /** Security Type 0 with Security Information at a keyed passive side: unsigned, IS 11 (§5). */
    @Test
    void securityType0_withSecurityInformation_rejectedWithIs11ByAKeyedSide() throws Exception {
        try (Fixture f = new Fixture(Fixture.loopback("server").withKey(KEY), Fixture.loopback("client"));
                ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            ConnectRequest cr = new ConnectRequest(raw.nextMessage, 0,
                    RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, 0, CLIENT, SERVER));
            byte[] seg = RawPeer.withSecurity(cr, ConnectionHeader.SECURITY_NONE, 8, null);
            assertThat(raw.requestRaw(seg)).isEqualTo(new ConnectReject(IsCode.SECURITY_REJECTED));
        }
    }

    /**
     * A passive side without a key does not check security information (as for a valid Security Type 1
     * request, §5): a request with Security Type 1 and Security Length 36 or 44 is accepted.
     */
    @ParameterizedTest
    @ValueSource(ints = {36, 44})
    void securityType1_withSecurityLengthOtherThan40_acceptedBySideWithoutAKey(int length) throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER);
                RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
            Vi vi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, OWN_THREAD);
            ConnectRequest cr = new ConnectRequest(raw.nextMessage, 0,
                    RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, 0, CLIENT, SERVER));
            assertThat(raw.requestRaw(RawPeer.withSecurity(cr, ConnectionHeader.SECURITY_HMAC_SHA256, length, KEY)))
                    .isInstanceOf(ConnectAccept.class);
            accepted.get(20, TimeUnit.SECONDS);
            assertThat(vi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    /**
     * An active side holding a key that gets a Connect Accept with Security Type 1 and Security Length 36:
     * not validly signed, a security failure (§5), not a protocol error.
     */
    @ParameterizedTest
    @ValueSource(ints = {36, 44})
    void securityType1_acceptWithSecurityLengthOtherThan40_isASecurityFailureAtAKeyedActiveSide(int length)
            throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ViNic client = ViNic.open(NicConfig.loopback().withListen(null).withKey(KEY))) {
            Vi vi = client.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, client.createPtag()), null, null);
            CompletableFuture<Void> passive = CompletableFuture.runAsync(() -> {
                try (RawPeer raw = RawPeer.accept(ss)) {
                    raw.answerRequest(cr -> RawPeer.withSecurity(new ConnectAccept(raw.nextMessage, 0, 4,
                            RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, 0, SERVER, CLIENT)),
                            ConnectionHeader.SECURITY_HMAC_SHA256, length, KEY));
                    OrderingAndReadWindowTest.closedAfter(raw);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, OWN_THREAD);
            ViNetAddress at = new ViNetAddress((InetSocketAddress) ss.getLocalSocketAddress(), SERVER, Fixture.FRAMING);
            assertThatThrownBy(() -> vi.connectRequest(CLIENT, at, T))
                    .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.code()).isEqualTo(ViException.Code.SECURITY));
            passive.get(30, TimeUnit.SECONDS);
            assertThat(vi.state()).isEqualTo(ViState.IDLE);
        }
    }

    @Test
    void nicAttributes_atLeastViaMinimums() throws Exception {
        try (Fixture f = new Fixture()) {
            NicAttributes a = f.server.query();
            assertThat(a.maxTransferSize()).isGreaterThanOrEqualTo(32 * 1024);
            assertThat(a.maxSegmentsPerDesc()).isGreaterThanOrEqualTo(252);
            assertThat(a.maxCqEntries()).isGreaterThanOrEqualTo(1024);
            assertThat(a.maxVi()).isGreaterThanOrEqualTo(1024);
            assertThat(a.maxDiscriminatorLen()).isEqualTo(64);
        }
    }

    @Test
    void localDescriptorErrors_formatProtectionLength() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.RELIABLE_DELIVERY);
            MemoryRegion r = f.clientRegion(64);
            MemoryRegion foreign = Fixture.region(f.client, f.client.createPtag(), 64, true, true);
            f.clientVi.postSend(Descriptor.send().data(r, 0, 8).control(0x0040)); // reserved control bit (4, 5: seed 002)
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE | Status.FORMAT_ERROR);
            f.clientVi.postSend(Descriptor.send().data(foreign, 0, 8)); // tag mismatch
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE | Status.PROTECTION_ERROR);
            f.clientVi.postSend(Descriptor.send().data(r, 60, 8)); // out of the region
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE | Status.PROTECTION_ERROR);
            f.clientVi.postSend(Descriptor.send().data(r, 0, 8).length(9)); // length field disagrees
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE | Status.LENGTH_ERROR);
            f.clientVi.postRecv(Descriptor.rdmaWrite(0, 0)); // RDMA op on the receive queue
            assertThat(f.clientVi.recvWait(T).status()).isEqualTo(Status.DONE | Status.FORMAT_ERROR | Status.OP_RECEIVE);
            assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @Test
    void sendOnIdleVi_completesInError() throws Exception {
        try (Fixture f = new Fixture()) {
            Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
            MemoryRegion r = f.clientRegion(8);
            vi.postSend(Descriptor.send().data(r, 0, 8));
            assertThat(vi.sendWait(T).isError()).isTrue(); // VIA 5.1
            vi.destroy(); // Idle with empty work queues (VIA 3.3)
            assertThat(f.client.viCount()).isZero();
        }
    }
}

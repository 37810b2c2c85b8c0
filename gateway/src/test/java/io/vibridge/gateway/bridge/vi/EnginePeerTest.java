package io.vibridge.gateway.bridge.vi;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.BridgedConnection;
import io.vibridge.gateway.bridge.FakeVerbs;
import io.vibridge.gateway.bridge.Phase;
import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.bridge.staging.StagingPool;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectionPeer;
import io.vibridge.vitcp.engine.EngineOptions;
import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine peer between a real VI engine (fed the bytes of a client engine, no socket) and a
 * recording host: admission is the backpressure, client Sends land in staging slots and are staged
 * for the target from there, a freed slot gives the client its credit back.
 */
class EnginePeerTest {
    private static final int SLOTS = 4;
    private static final int RECV_SLOTS = 1;
    private static final int CLIENT_SLOTS = SLOTS - RECV_SLOTS;

    private final List<String> lifecycle = new ArrayList<>();
    /** Slots handed to the host for the target, in order. */
    private final List<Integer> staged = new ArrayList<>();
    private int slotsFreed;
    private boolean draining;
    private EnginePeer peer;
    private ViConnection gateway;
    private ViConnection client;
    private StagingSlots slots;

    private void connect() {
        connect(false);
    }

    /** With {@code flowControl} descriptor flow control is in force (VITCP-PROFILE §6): credits, NOPs. */
    private void connect(boolean flowControl) {
        StagingPool pool = new StagingPool(FakeVerbs.protectionDomain(), 70_000, 16, 16, 2);
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        peer = new EnginePeer(metrics, new Lifecycle());
        gateway = ViConnection.incoming(peer, EngineOptions.of(null), 0);
        peer.engine(gateway);
        ConnectionAttributes rd = ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, true, true, flowControl,
                false, false);
        client = ViConnection.active(new ClientPeer(), new LocalEndpoint(rd, Discriminator.ofUtf8("client"), 65536, 0,
                100, 32768, 2, null), Discriminator.ofUtf8("demo"), 4, 0, 10_000_000_000L);
        transfer(client, gateway);
        assertThat(lifecycle).containsExactly("connect requested");
        slots = StagingSlots.reserve(pool, SLOTS, RECV_SLOTS, false);
        peer.attach(slots, new RecordingHost());
        assertThat(gateway.accept(new LocalEndpoint(rd, Discriminator.ofUtf8("demo"), 65536, 0, 7, 32768, CLIENT_SLOTS, null),
                CLIENT_SLOTS)).isTrue();
        peer.accepted(false);
        transfer(gateway, client);
        assertThat(client.state()).isEqualTo(ViConnection.State.CONNECTED);
    }

    /** Moves everything {@code from} has to write into {@code to}, as TCP would; returns bytes left unread. */
    private static int transfer(ViConnection from, ViConnection to) {
        ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
        ByteBuffer[] io = new ByteBuffer[4];
        ByteBuffer wire = ByteBuffer.allocate(1 << 20);
        while (from.hasOutput()) {
            int n = from.produce(header, io, 0);
            if (n < 0) {
                break;
            }
            wire.put(header);
            for (int i = 0; i < n; i++) {
                wire.put(io[i]);
            }
            from.written();
        }
        wire.flip();
        to.receive(wire);
        return wire.remaining();
    }

    private static OutboundWork send(int length) {
        return new ClientSend(new byte[length]);
    }

    @Test
    void aClientSendLandsInAStagingSlotAndGoesToTheTargetFromThere() {
        connect();
        byte[] payload = "hello, target".getBytes();
        client.post(new ClientSend(payload));
        assertThat(transfer(client, gateway)).isZero();
        assertThat(staged).singleElement().satisfies(l -> {
            assertThat(slots.op(l)).isEqualTo(Op.SEND);
            assertThat(slots.length(l)).isEqualTo(payload.length);
            byte[] got = new byte[payload.length];
            slots.buffer(l).get(slots.payloadOffset(l), got);
            assertThat(got).isEqualTo(payload);
        });
    }

    @Test
    void aMessageWithoutAFreeSlotWaitsUnreadAndGoesOnWhenASlotIsFreed() {
        connect();
        for (int i = 0; i < CLIENT_SLOTS + 1; i++) {
            client.post(send(100 + i));
        }
        int unread = transfer(client, gateway);
        assertThat(unread).as("the fourth Send's payload stays in the input").isEqualTo(103);
        assertThat(gateway.awaitingAdmission()).isTrue();
        assertThat(staged).hasSize(CLIENT_SLOTS);

        peer.clientMessageDone(firstBusySlot()); // the target completed a Send
        assertThat(slotsFreed).isEqualTo(1);
        gateway.receive(ByteBuffer.allocate(0)); // what the client channel does when a slot comes back
        assertThat(gateway.awaitingAdmission()).isFalse();
    }

    @Test
    void aFreedSlotGivesTheClientItsCreditBack() {
        connect(true);
        client.post(send(10));
        transfer(client, gateway);
        transfer(gateway, client);
        int l = firstBusySlot();
        assertThat(slots.op(l)).isEqualTo(Op.SEND);
        assertThat(client.peerCredits()).isEqualTo(CLIENT_SLOTS - 1);
        peer.clientMessageDone(l);
        transfer(gateway, client);
        assertThat(client.peerCredits()).as("VITCP-PROFILE §6: the receive is posted again").isEqualTo(CLIENT_SLOTS);
    }

    @Test
    void noNewMessageIsAdmittedWhileDraining() {
        connect();
        draining = true;
        client.post(send(10));
        transfer(client, gateway);
        assertThat(gateway.awaitingAdmission()).isTrue();
        assertThat(staged).isEmpty();
    }

    private int firstBusySlot() {
        for (int l = RECV_SLOTS; l < SLOTS; l++) {
            if (slots.op(l) != Op.NONE) {
                return l;
            }
        }
        throw new AssertionError("no client slot holds a message");
    }

    private final class Lifecycle implements EnginePeer.Lifecycle {
        @Override
        public void connectRequested() {
            lifecycle.add("connect requested");
        }

        @Override
        public void connectFailed(ConnectFailure failure, int isCode) {
            lifecycle.add("connect failed " + failure);
        }

        @Override
        public void broken(BreakCause cause, int viErrorType, int isCode) {
            lifecycle.add("broken " + cause);
        }
    }

    /** The connection's side as the peer uses it: what it stages is recorded. */
    private final class RecordingHost implements FrontEnd.Host {
        private final Logger log = LoggerFactory.getLogger(EnginePeerTest.class);

        @Override
        public boolean admit() {
            return !draining && slots.admit();
        }

        @Override
        public void stage(int slot) {
            staged.add(slot);
        }

        @Override
        public void slotFreed() {
            slotsFreed++;
        }

        @Override
        public StagingSlots slots() {
            return slots;
        }

        @Override
        public long id() {
            return 1;
        }

        @Override
        public InetAddress clientAddress() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public int clientPort() {
            return 1;
        }

        @Override
        public Phase phase() {
            return draining ? Phase.DRAINING : Phase.CONNECTED;
        }

        // not used by the peer

        @Override
        public ClientSocket socket() {
            throw new UnsupportedOperationException();
        }

        @Override
        public GatewayConfig config() {
            throw new UnsupportedOperationException();
        }

        @Override
        public GatewayMetrics metrics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setupFailed(SetupFailure failure, String what) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void connect(Route route, FrontEnd.ClientRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void delivered(int slot) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void splitTargetReads(long length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void clientEnded(String why) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void fail(String why) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void schedule(Duration delay, Runnable action) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void pump() {
            throw new UnsupportedOperationException();
        }
    }

    /** The client engine's owner: it only sends here. */
    private static final class ClientPeer implements ConnectionPeer {
        @Override
        public InboundReceive takeReceive() {
            return null;
        }

        @Override
        public int checkRemoteAccess(long address, int handle, long length, boolean write) {
            return 0;
        }

        @Override
        public void rdmaPlace(long address, int handle, ByteBuffer src) {
        }

        @Override
        public ByteBuffer rdmaSource(long address, int handle, int length) {
            return null;
        }

        @Override
        public void connectRequested(ViConnection connection) {
        }

        @Override
        public void connected(ViConnection connection) {
        }

        @Override
        public void connectFailed(ViConnection connection, ConnectFailure failure, int isCode) {
        }

        @Override
        public void workCompleted(OutboundWork work, int status, long length) {
        }

        @Override
        public void receiveCompleted(InboundReceive receive, int status, long length, int immediate) {
        }

        @Override
        public void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode) {
        }
    }

    /** A client Send of {@code payload}. */
    private static final class ClientSend implements OutboundWork {
        private final byte[] payload;
        private int number;

        ClientSend(byte[] payload) {
            this.payload = payload;
        }

        @Override
        public int operation() {
            return OP_SEND;
        }

        @Override
        public boolean hasImmediate() {
            return false;
        }

        @Override
        public int immediateData() {
            return 0;
        }

        @Override
        public boolean queueFence() {
            return false;
        }

        @Override
        public long length() {
            return payload.length;
        }

        @Override
        public long remoteAddress() {
            return 0;
        }

        @Override
        public int remoteHandle() {
            return 0;
        }

        @Override
        public int gather(long offset, int n, ByteBuffer[] out, int index) {
            out[index] = ByteBuffer.wrap(payload, (int) offset, n);
            return 1;
        }

        @Override
        public void scatter(long offset, ByteBuffer src) {
            throw new IllegalStateException();
        }

        @Override
        public void messageNumber(int n) {
            number = n;
        }

        @Override
        public int messageNumber() {
            return number;
        }
    }
}

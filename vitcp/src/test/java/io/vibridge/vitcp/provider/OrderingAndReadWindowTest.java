package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.CLIENT;
import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import io.vibridge.vitcp.wire.ViErrorType;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: queue fence waits for RDMA Reads (VIA 6.3.1.2); RDMA Read window enforced on both
 * sides (VITCP-PROFILE §5, §9.5). The far end is a raw socket so the test sees the exact segments.
 */
class OrderingAndReadWindowTest {

    /** Client provider VI connected to a raw passive peer that announces {@code window}. */
    private record Setup(Fixture f, ServerSocket ss, RawPeer raw, Vi vi) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            raw.close();
            ss.close();
            f.close();
        }
    }

    private static Setup rawServer(int window) throws Exception {
        Fixture f = new Fixture();
        ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Vi vi = f.client.createVi(f.clientAttributes(ReliabilityLevel.RELIABLE_DELIVERY), null, null);
        CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> {
            try {
                vi.connectRequest(CLIENT, new ViNetAddress(new InetSocketAddress(ss.getInetAddress(), ss.getLocalPort()),
                        SERVER, Fixture.FRAMING), T);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, Fixture.OWN_THREAD);
        RawPeer raw = RawPeer.accept(ss);
        raw.acceptRequest(RawPeer.ce(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20, window, SERVER, CLIENT), 0);
        connected.get(20, TimeUnit.SECONDS);
        return new Setup(f, ss, raw, vi);
    }

    private static void respond(RawPeer raw, SegmentView req, byte fill) throws IOException {
        byte[] data = new byte[(int) req.rdmaLength()];
        Arrays.fill(data, fill);
        raw.write(raw.segment(SegmentType.RDMA_READ_RESPONSE, SegmentHeader.FLAG_END_OF_MESSAGE, 0, req.messageNumber(),
                0, 0, null, data));
    }

    @Test
    void queueFence_sendWaitsForEarlierRdmaRead() throws Exception {
        try (Setup s = rawServer(4)) {
            MemoryRegion local = s.f.clientRegion(256);
            s.vi.postSend(Descriptor.rdmaRead(0x1000, 7).data(local, 0, 128));
            s.vi.postSend(Descriptor.send().data(local, 128, 16).fence());
            SegmentView req = s.raw.read();
            assertThat(req.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST);
            assertThat(s.raw.readWithin(300)).isNull(); // fenced Send held back while the Read is outstanding
            respond(s.raw, req, (byte) 5);
            SegmentView send = s.raw.read();
            assertThat(send.type()).isEqualTo(SegmentType.SEND);
            assertThat(s.vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
            assertThat(s.vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_SEND);
            assertThat(local.buffer().get(127)).isEqualTo((byte) 5);
        }
    }

    @Test
    void withoutFence_sendPassesRdmaRead() throws Exception {
        try (Setup s = rawServer(4)) {
            MemoryRegion local = s.f.clientRegion(256);
            Descriptor read = Descriptor.rdmaRead(0x1000, 7).data(local, 0, 128);
            Descriptor send = Descriptor.send().data(local, 128, 16);
            s.vi.postSend(read);
            s.vi.postSend(send);
            SegmentView req = s.raw.read();
            SegmentView next = s.raw.read(); // VIA 6.3.1.1: Sends can pass RDMA Reads
            assertThat(next.type()).isEqualTo(SegmentType.SEND);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!send.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertThat(send.isDone()).isTrue(); // completed while the Read is still outstanding
            assertThat(read.isDone()).isFalse();
            assertThat(s.vi.sendDone()).isNull(); // dequeued in FIFO order: the Read is the head
            respond(s.raw, req, (byte) 1);
            assertThat(s.vi.sendWait(T)).isSameAs(read);
            assertThat(s.vi.sendWait(T)).isSameAs(send);
        }
    }

    @Test
    void requesterNeverExceedsPeersReadWindow() throws Exception {
        try (Setup s = rawServer(1)) {
            MemoryRegion local = s.f.clientRegion(256);
            s.vi.postSend(Descriptor.rdmaRead(0x1000, 7).data(local, 0, 100));
            s.vi.postSend(Descriptor.rdmaRead(0x2000, 7).data(local, 100, 100));
            SegmentView first = s.raw.read();
            assertThat(first.rdmaAddress()).isEqualTo(0x1000);
            assertThat(s.raw.readWithin(300)).isNull(); // window 1: the second Read waits
            respond(s.raw, first, (byte) 1);
            SegmentView second = s.raw.read();
            assertThat(second.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST);
            assertThat(second.rdmaAddress()).isEqualTo(0x2000);
            respond(s.raw, second, (byte) 2);
            assertThat(s.vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
            assertThat(s.vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
        }
    }

    @Test
    void responderRefusesReadsBeyondItsWindow_isCode7_atReliableReception() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            int big = 16 << 20; // a response that cannot be handed to TCP before the second request is read
            Vi vi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_RECEPTION).withReadWindow(1)
                    .withMtu(big), null, null);
            MemoryRegion region = f.serverRegion(big);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            try (RawPeer raw = RawPeer.connectSlow(Fixture.port(f.server))) {
                var answer = raw.request(RawPeer.ce(ReliabilityLevel.RELIABLE_RECEPTION, big, 4, CLIENT, SERVER), 0);
                assertThat(answer).isInstanceOf(ConnectAccept.class);
                assertThat(((ConnectAccept) answer).header().rdmaReadWindow()).isEqualTo(1);
                accepted.get(20, TimeUnit.SECONDS);
                int m = raw.nextMessage;
                byte[] r = RawPeer.rdma(region.address(), region.handle(), big);
                // both requests in one write: the second exceeds the window of 1
                raw.write(raw.segment(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0, m, 0, 0, r,
                        new byte[0]), raw.segment(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                        m + 1, 0, 0, r, new byte[0]));
                SegmentView report = null;
                for (int i = 0; i < 1000 && report == null; i++) {
                    SegmentView v = raw.read();
                    if (v.viErrorType() != 0) {
                        report = v;
                    }
                }
                assertThat(report).isNotNull();
                assertThat(report.viErrorType()).isEqualTo(ViErrorType.DESCRIPTOR.code());
                assertThat(report.isErrorCode()).isEqualTo(IsCode.READ_WINDOW_EXCEEDED);
                assertThat(report.messageAck()).isEqualTo(m + 1);
                assertThat(closedAfter(raw)).isTrue(); // then Error and close (VITCP-PROFILE §6)
            }
            ProtectionAndErrorsTest.awaitState(vi, ViState.ERROR);
        }
    }

    @Test
    void reliableReception_sendThatBypassedARead_completesAfterTheReadDataWentOut() throws Exception {
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            int big = 16 << 20; // a response the requester will not read for a while
            Vi vi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_RECEPTION).withMtu(big), null, null);
            MemoryRegion region = f.serverRegion(big);
            MemoryRegion inbox = f.serverRegion(64);
            Descriptor recv = Descriptor.receive().data(inbox, 0, 64);
            vi.postRecv(recv);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            try (RawPeer raw = RawPeer.connectSlow(Fixture.port(f.server))) {
                raw.request(RawPeer.ce(ReliabilityLevel.RELIABLE_RECEPTION, big, 4, CLIENT, SERVER), 0);
                accepted.get(20, TimeUnit.SECONDS);
                int m = raw.nextMessage;
                raw.write(raw.segment(SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, 0, m, 0, 0,
                        RawPeer.rdma(region.address(), region.handle(), big), new byte[0]),
                        raw.segment(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 0, m + 1, 0, 0, null, new byte[8]));
                Thread.sleep(300);
                assertThat(recv.isDone()).isFalse(); // VIA 6.3.1.1: not before the Read data went out
                long got = 0;
                while (got < big) {
                    SegmentView v = raw.read();
                    if (v.type() == SegmentType.RDMA_READ_RESPONSE) {
                        got += v.payloadLength();
                    }
                }
                assertThat(vi.recvWait(T).status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
            }
        }
    }

    static boolean closedAfter(RawPeer raw) throws IOException {
        try {
            for (int i = 0; i < 100; i++) {
                raw.read();
            }
            return false;
        } catch (EOFException | SocketException e) {
            return true;
        }
    }
}

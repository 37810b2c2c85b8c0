package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.CLIENT;
import static io.vibridge.vitcp.provider.Fixture.SERVER;
import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.OrderingHint;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.testing.TeeRelay;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.rdmatcp.RdmaTcpFrame;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seed 002 through the provider library: the un-ordered and half-ordered descriptor bits, attribute bit 6 on
 * every connection, the types 9/10/11 on the wire when the sender rule allows them (VITCP-PROFILE §9.10) and
 * 0/1/2 otherwise, and the guarantees that stay (data, completion in posting order, format errors). Runs in
 * both framings of the provider suite ({@link Fixture#FRAMING}); in seed-004 framing the raw peer also checks
 * each frame's order field, and the provider-to-provider tests check the data but not the tapped types.
 */
class UnorderedOperationsTest {

    /** The {@link TeeRelay} reads native segment headers: in seed-004 framing the client connects directly. */
    static final boolean TAPPED = Fixture.FRAMING == Encapsulation.VITCP;

    static Stream<Arguments> levelsAndFlowControl() {
        List<Arguments> l = new ArrayList<>();
        for (ReliabilityLevel level : ReliabilityLevel.values()) {
            l.add(Arguments.of(level, false));
            l.add(Arguments.of(level, true));
        }
        return l.stream();
    }

    /**
     * Creates both VIs, the server pre-posting {@code receives}, and connects the client through {@code tap} in
     * native framing, directly to the server's port in seed-004 framing.
     */
    private static void connectThrough(Fixture f, TeeRelay tap, ViAttributes server, ViAttributes client,
            List<Descriptor> receives) throws Exception {
        f.serverVi = f.server.createVi(server, null, null);
        f.clientVi = f.client.createVi(client, null, null);
        for (Descriptor r : receives) {
            f.serverVi.postRecv(r);
        }
        try (ConnectListener l = f.server.listen(SERVER)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(f.serverVi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            ViNetAddress to = TAPPED ? new ViNetAddress(tap.address(), SERVER) : f.serverAddress(SERVER);
            f.clientVi.connectRequest(CLIENT, to, T);
            accepted.get(T.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** The Send, RDMA Write and RDMA Read Request types (ordered or not) among {@code types}. */
    private static List<SegmentType> messages(List<SegmentType> types) {
        return types.stream().filter(t -> t.isSend() || t.isRdmaWrite() || t.isRdmaReadRequest()).toList();
    }

    @ParameterizedTest(name = "{0}, flow control {1}")
    @MethodSource("levelsAndFlowControl")
    void unorderedSendWriteAndRead_crossAsTypes9to11_andArriveIntact(ReliabilityLevel level, boolean flowControl)
            throws Exception {
        try (Fixture f = new Fixture(); TeeRelay tap = new TeeRelay(Fixture.port(f.server))) {
            MemoryRegion sr = f.serverRegion(1 << 20);
            MemoryRegion cr = f.clientRegion(1 << 20);
            Descriptor rxSend = Descriptor.receive().data(sr, 0, 100_000);
            Descriptor rxImm = Descriptor.receive().data(sr, 100_000, 16);
            connectThrough(f, tap, f.serverAttributes(level).withFlowControl(flowControl),
                    f.clientAttributes(level).withFlowControl(flowControl), List.of(rxSend, rxImm));
            assertThat(f.clientVi.negotiated().peerUnderstandsUnordered()).as("the server set bit 6").isTrue();
            assertThat(f.serverVi.negotiated().peerUnderstandsUnordered()).as("the client set bit 6").isTrue();
            assertThat(f.clientVi.negotiated().flowControl()).isEqualTo(flowControl);
            boolean reads = level != ReliabilityLevel.UNRELIABLE_DELIVERY;

            Fixture.fill(cr, 0, 70_000, 1); // three segments of 32 KiB
            Fixture.fill(cr, 100_000, 5_000, 2);
            Fixture.fill(cr, 110_000, 3_000, 3);
            Fixture.fill(sr, 500_000, 6_000, 4);
            List<Descriptor> posted = new ArrayList<>();
            posted.add(Descriptor.send().data(cr, 0, 70_000).unordered());
            posted.add(Descriptor.rdmaWrite(sr.address(300_000), sr.handle()).data(cr, 100_000, 5_000).unordered());
            posted.add(Descriptor.rdmaWrite(sr.address(400_000), sr.handle()).data(cr, 110_000, 3_000)
                    .immediate(0xABC).unordered());
            if (reads) {
                posted.add(Descriptor.rdmaRead(sr.address(500_000), sr.handle()).data(cr, 200_000, 6_000).unordered());
            }
            for (Descriptor d : posted) {
                assertThat(d.orderingHint()).isEqualTo(OrderingHint.UNORDERED);
                f.clientVi.postSend(d);
            }
            int[] ops = {Status.OP_SEND, Status.OP_RDMA_WRITE, Status.OP_RDMA_WRITE, Status.OP_RDMA_READ};
            for (int i = 0; i < posted.size(); i++) {
                Descriptor done = f.clientVi.sendWait(T);
                assertThat(done).isSameAs(posted.get(i)); // VIA 6.4.2: posting order
                assertThat(done.status()).as(Status.describe(done.status())).isEqualTo(Status.DONE | ops[i]);
            }

            Descriptor r1 = f.serverVi.recvWait(T);
            assertThat(r1).isSameAs(rxSend);
            assertThat(r1.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
            assertThat(r1.length()).isEqualTo(70_000);
            assertThat(Fixture.bytes(sr, 0, 70_000)).isEqualTo(Fixture.expected(70_000, 1));
            Descriptor r2 = f.serverVi.recvWait(T);
            assertThat(r2.status()).isEqualTo(Status.DONE | Status.OP_REMOTE_RDMA_WRITE | Status.IMMEDIATE);
            assertThat(r2.immediateData()).isEqualTo(0xABC);
            assertThat(Fixture.bytes(sr, 300_000, 5_000)).isEqualTo(Fixture.expected(5_000, 2));
            assertThat(Fixture.bytes(sr, 400_000, 3_000)).isEqualTo(Fixture.expected(3_000, 3));
            if (reads) {
                assertThat(Fixture.bytes(cr, 200_000, 6_000)).isEqualTo(Fixture.expected(6_000, 4));
            }

            List<SegmentType> expected = new ArrayList<>(List.of(SegmentType.SEND_UNORDERED, SegmentType.SEND_UNORDERED,
                    SegmentType.SEND_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED, SegmentType.RDMA_WRITE_UNORDERED));
            if (reads) {
                expected.add(SegmentType.RDMA_READ_REQUEST_UNORDERED);
            }
            if (TAPPED) {
                assertThat(messages(tap.segmentTypes(true))).isEqualTo(expected);
            }
            assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
            assertThat(f.serverVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void completionsAtTheSender_stayInPostingOrder_whenTypesMix(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture(); TeeRelay tap = new TeeRelay(Fixture.port(f.server))) {
            MemoryRegion sr = f.serverRegion(1 << 20);
            MemoryRegion cr = f.clientRegion(1 << 20);
            List<Descriptor> receives = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                receives.add(Descriptor.receive().data(sr, i * 10_000, 10_000));
            }
            connectThrough(f, tap, f.serverAttributes(level).withFlowControl(true),
                    f.clientAttributes(level).withFlowControl(true), receives);
            boolean reads = level != ReliabilityLevel.UNRELIABLE_DELIVERY;
            for (int i = 0; i < 4; i++) {
                Fixture.fill(cr, i * 10_000, 1_000 + i, 10 + i);
            }
            Fixture.fill(sr, 500_000, 2_000, 20);
            List<Descriptor> posted = new ArrayList<>();
            List<Integer> ops = new ArrayList<>();
            posted.add(Descriptor.send().data(cr, 0, 1_000)); // fully ordered
            ops.add(Status.OP_SEND);
            posted.add(Descriptor.rdmaWrite(sr.address(300_000), sr.handle()).data(cr, 40_000, 500).unordered());
            ops.add(Status.OP_RDMA_WRITE);
            posted.add(Descriptor.send().data(cr, 10_000, 1_001).halfOrdered());
            ops.add(Status.OP_SEND);
            if (reads) {
                posted.add(Descriptor.rdmaRead(sr.address(500_000), sr.handle()).data(cr, 200_000, 2_000).unordered());
                ops.add(Status.OP_RDMA_READ);
            }
            posted.add(Descriptor.send().data(cr, 20_000, 1_002).unordered());
            ops.add(Status.OP_SEND);
            posted.add(Descriptor.send().data(cr, 30_000, 1_003).immediate(5).unordered());
            ops.add(Status.OP_SEND);
            for (Descriptor d : posted) {
                f.clientVi.postSend(d);
            }
            for (int i = 0; i < posted.size(); i++) {
                Descriptor done = f.clientVi.sendWait(T);
                assertThat(done).as("completion %d", i).isSameAs(posted.get(i));
                assertThat(done.status()).as(Status.describe(done.status())).isEqualTo(Status.DONE | ops.get(i));
            }
            // this provider keeps the order at the receiver (seed 002 permits, never requires, reordering)
            for (int i = 0; i < 4; i++) {
                Descriptor r = f.serverVi.recvWait(T);
                assertThat(r.length()).isEqualTo(1_000 + i);
                assertThat(Fixture.bytes(sr, i * 10_000, 1_000 + i)).isEqualTo(Fixture.expected(1_000 + i, 10 + i));
            }
            if (reads) {
                assertThat(Fixture.bytes(cr, 200_000, 2_000)).isEqualTo(Fixture.expected(2_000, 20));
            }
            if (TAPPED && level != ReliabilityLevel.RELIABLE_RECEPTION) {
                // no Message ACK at these levels: after the first (ordered) Send, everything goes ordered
                List<SegmentType> types = messages(tap.segmentTypes(true));
                assertThat(types).first().isEqualTo(SegmentType.SEND);
                assertThat(types).noneMatch(SegmentType::isUnordered);
            }
        }
    }

    // ------------------------------------------------------------------ exact segments, with a raw peer

    /** A client VI at {@code level} connected to a raw passive peer that sets bit 6 or not. */
    private record Raw(Fixture f, ServerSocket ss, RawPeer raw, Vi vi, ConnectRequest request) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            raw.close();
            ss.close();
            f.close();
        }

        /**
         * The next segment; in seed-004 framing also checks its frame's order field: 0xFFFF exactly for the
         * unordered types (VITCP-PROFILE §8, seed 004).
         */
        SegmentView read() throws IOException {
            SegmentView v = raw.read();
            if (Fixture.FRAMING == Encapsulation.RDMATCP && v.type().consumesMessageNumber()) {
                assertThat(raw.lastOrder).as("order field of a %s frame", v.type())
                        .isEqualTo(v.type().isUnordered() ? RdmaTcpFrame.UNORDERED : RdmaTcpFrame.ORDERED);
            }
            return v;
        }

        SegmentType next() throws IOException {
            return read().type();
        }

        /** A NOP whose Message ACK is {@code ack} (Reliable Reception). */
        void ack(int ack) throws IOException {
            raw.write(raw.segment(SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, 0, raw.nextMessage - 1, ack, 0,
                    null, new byte[0]));
        }
    }

    private static Raw rawServer(ReliabilityLevel level, boolean bit6) throws Exception {
        Fixture f = new Fixture();
        ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Vi vi = f.client.createVi(f.clientAttributes(level), null, null);
        CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> {
            try {
                vi.connectRequest(CLIENT, new ViNetAddress(new InetSocketAddress(ss.getInetAddress(), ss.getLocalPort()),
                        SERVER, Fixture.FRAMING), T);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, Fixture.OWN_THREAD);
        RawPeer raw = RawPeer.accept(ss);
        int window = level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 0 : 4;
        ConnectRequest cr = raw.acceptRequest(RawPeer.ce(level, 1 << 20, window, SERVER, CLIENT, bit6), 0);
        connected.get(20, TimeUnit.SECONDS);
        return new Raw(f, ss, raw, vi, cr);
    }

    @Test
    void everyConnectRequestAndAcceptOfTheProvider_setsBit6() throws Exception {
        try (Raw r = rawServer(ReliabilityLevel.RELIABLE_DELIVERY, false)) {
            assertThat(r.request().header().attributes().unordered()).as("Connect Request").isTrue();
            assertThat(r.request().header().attributes().conformsToProfile()).isTrue();
            assertThat(r.vi().negotiated().peerUnderstandsUnordered()).isFalse();
        }
        try (Fixture f = new Fixture(); ConnectListener l = f.server.listen(SERVER)) {
            Vi vi = f.server.createVi(f.serverAttributes(ReliabilityLevel.RELIABLE_RECEPTION), null, null);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(vi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, Fixture.OWN_THREAD);
            try (RawPeer raw = RawPeer.connect(Fixture.port(f.server))) {
                var answer = raw.request(RawPeer.ce(ReliabilityLevel.RELIABLE_RECEPTION, 1 << 20, 4,
                        Discriminator.ofUtf8("raw"), SERVER, true), 0);
                assertThat(answer).isInstanceOfSatisfying(ConnectAccept.class,
                        a -> assertThat(a.header().attributes().unordered()).as("Connect Accept").isTrue());
                accepted.get(20, TimeUnit.SECONDS);
                assertThat(vi.negotiated().peerUnderstandsUnordered()).isTrue();
            }
        }
    }

    @Test
    void aPeerWithoutBit6_getsTheOrderedTypes() throws Exception {
        try (Raw r = rawServer(ReliabilityLevel.RELIABLE_DELIVERY, false)) {
            MemoryRegion local = r.f().clientRegion(4096);
            r.vi().postSend(Descriptor.send().data(local, 0, 10).unordered());
            r.vi().postSend(Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered());
            r.vi().postSend(Descriptor.rdmaRead(0x1000, 7).data(local, 100, 10).unordered());
            assertThat(r.next()).isEqualTo(SegmentType.SEND);
            assertThat(r.next()).isEqualTo(SegmentType.RDMA_WRITE);
            SegmentView read = r.read();
            assertThat(read.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST);
            r.raw().write(r.raw().segment(SegmentType.RDMA_READ_RESPONSE, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                    read.messageNumber(), 0, 0, null, new byte[10]));
            for (int i = 0; i < 3; i++) {
                assertThat(r.vi().sendWait(T).isError()).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"UNRELIABLE_DELIVERY", "RELIABLE_DELIVERY"})
    void atTheDeliveryLevels_anOrderedMessageHoldsEveryLaterUnorderedWorkBack(ReliabilityLevel level)
            throws Exception {
        try (Raw r = rawServer(level, true)) {
            MemoryRegion local = r.f().clientRegion(4096);
            r.vi().postSend(Descriptor.send().data(local, 0, 10).unordered());
            assertThat(r.next()).isEqualTo(SegmentType.SEND_UNORDERED);
            r.vi().postSend(Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered());
            assertThat(r.next()).isEqualTo(SegmentType.RDMA_WRITE_UNORDERED);
            r.vi().postSend(Descriptor.send().data(local, 0, 10)); // fully ordered: nothing will acknowledge it
            assertThat(r.next()).isEqualTo(SegmentType.SEND);
            for (int i = 0; i < 3; i++) {
                assertThat(r.vi().sendWait(T).isError()).isFalse(); // complete = handed to TCP, not acknowledged
            }
            r.vi().postSend(Descriptor.send().data(local, 0, 10).unordered());
            assertThat(r.next()).isEqualTo(SegmentType.SEND);
            r.vi().postSend(Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered());
            assertThat(r.next()).isEqualTo(SegmentType.RDMA_WRITE);
        }
    }

    @Test
    void atReliableReception_theMessageAckCoveringTheOrderedMessage_makesLaterWorkUnorderedAgain() throws Exception {
        try (Raw r = rawServer(ReliabilityLevel.RELIABLE_RECEPTION, true)) {
            MemoryRegion local = r.f().clientRegion(4096);
            Descriptor ordered = Descriptor.send().data(local, 0, 10);
            Descriptor held = Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered();
            r.vi().postSend(ordered);
            SegmentView first = r.read();
            assertThat(first.type()).isEqualTo(SegmentType.SEND);
            r.vi().postSend(held);
            SegmentView second = r.read();
            assertThat(second.type()).as("the ordered Send is not acknowledged yet").isEqualTo(SegmentType.RDMA_WRITE);
            r.ack(first.messageNumber()); // covers the ordered Send only
            assertThat(r.vi().sendWait(T)).isSameAs(ordered);
            assertThat(held.isDone()).isFalse(); // Reliable Reception: completes on its own ACK
            Descriptor free = Descriptor.send().data(local, 0, 10).unordered();
            r.vi().postSend(free);
            SegmentView third = r.read();
            assertThat(third.type()).as("the unacknowledged RDMA Write is not an ordered message")
                    .isEqualTo(SegmentType.SEND_UNORDERED);
            assertThat(third.messageNumber()).isEqualTo(second.messageNumber() + 1); // one message sequence
            r.ack(third.messageNumber());
            assertThat(r.vi().sendWait(T)).isSameAs(held);
            assertThat(r.vi().sendWait(T)).isSameAs(free);
            assertThat(free.status()).isEqualTo(Status.DONE | Status.OP_SEND);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void halfOrderedThenUnordered_goesUnorderedAtOnce(ReliabilityLevel level) throws Exception {
        try (Raw r = rawServer(level, true)) {
            MemoryRegion local = r.f().clientRegion(4096);
            r.vi().postSend(Descriptor.send().data(local, 0, 10).halfOrdered());
            r.vi().postSend(Descriptor.rdmaRead(0x1000, 7).data(local, 100, 10).unordered());
            r.vi().postSend(Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered());
            assertThat(r.next()).as("there is no half-ordered type").isEqualTo(SegmentType.SEND);
            SegmentView read = r.read();
            assertThat(read.type()).isEqualTo(SegmentType.RDMA_READ_REQUEST_UNORDERED);
            assertThat(r.next()).isEqualTo(SegmentType.RDMA_WRITE_UNORDERED); // no ACK was ever sent
            r.raw().write(r.raw().segment(SegmentType.RDMA_READ_RESPONSE, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                    read.messageNumber(), 0, 0, null, new byte[10]));
            if (level == ReliabilityLevel.RELIABLE_RECEPTION) {
                r.ack(read.messageNumber() + 1);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(r.vi().sendWait(T).isError()).isFalse();
            }
        }
    }

    @Test
    void moreThanOneOfFenceUnorderedAndHalfOrdered_isAFormatError_andNothingIsSent() throws Exception {
        try (Raw r = rawServer(ReliabilityLevel.RELIABLE_DELIVERY, true)) {
            MemoryRegion local = r.f().clientRegion(4096);
            List<Descriptor> bad = List.of(
                    Descriptor.send().data(local, 0, 10).fence().unordered(),
                    Descriptor.rdmaWrite(0x1000, 7).data(local, 0, 10).unordered().halfOrdered(),
                    Descriptor.rdmaRead(0x1000, 7).data(local, 0, 10).fence().halfOrdered(),
                    Descriptor.send().data(local, 0, 10).control(Descriptor.CONTROL_ORDERING_MASK));
            int[] ops = {Status.OP_SEND, Status.OP_RDMA_WRITE, Status.OP_RDMA_READ, Status.OP_SEND};
            for (int i = 0; i < bad.size(); i++) {
                r.vi().postSend(bad.get(i));
                Descriptor d = r.vi().sendWait(T);
                assertThat(d).isSameAs(bad.get(i));
                assertThat(d.status()).as(Status.describe(d.status())).isEqualTo(Status.DONE | Status.FORMAT_ERROR | ops[i]);
            }
            Descriptor reserved = Descriptor.send().data(local, 0, 10).control(0x0040); // the next bit stays reserved
            r.vi().postSend(reserved);
            assertThat(r.vi().sendWait(T).status()).isEqualTo(Status.DONE | Status.FORMAT_ERROR | Status.OP_SEND);
            assertThat(r.raw().readWithin(300)).isNull();
            // each bit alone is fine, and the refused descriptors took no message number
            r.vi().postSend(Descriptor.send().data(local, 0, 10).unordered());
            SegmentView s = r.read();
            assertThat(s.type()).isEqualTo(SegmentType.SEND_UNORDERED);
            assertThat(s.messageNumber()).isEqualTo(r.request().initialMessageNumber());
            assertThat(r.vi().sendWait(T).isError()).isFalse();
            assertThat(r.vi().state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @Test
    void receiveDescriptors_ignoreTheOrderingBits() throws Exception {
        try (Raw r = rawServer(ReliabilityLevel.RELIABLE_DELIVERY, true)) {
            MemoryRegion local = r.f().clientRegion(4096);
            Descriptor rx = Descriptor.receive().data(local, 0, 100).fence().unordered().halfOrdered();
            r.vi().postRecv(rx);
            r.raw().write(r.raw().segment(SegmentType.SEND_UNORDERED, SegmentHeader.FLAG_END_OF_MESSAGE, 0,
                    r.raw().nextMessage, 0, 0, null, new byte[] {1, 2, 3}));
            Descriptor done = r.vi().recvWait(T);
            assertThat(done).isSameAs(rx);
            assertThat(done.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE);
            assertThat(Fixture.bytes(local, 0, 3)).containsExactly(1, 2, 3);
        }
    }
}

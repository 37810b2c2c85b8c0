package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The sans-I/O engine on its own: two engines wired through byte arrays, any chunking of the stream,
 * timers driven by passed-in time, protocol errors.
 */
class EngineTest {

    /** A minimal owner: heap memory, FIFO receives, recorded events. */
    static class Side implements ConnectionPeer {
        final ByteBuffer memory = ByteBuffer.allocate(1 << 20);
        final ArrayDeque<Recv> receives = new ArrayDeque<>();
        final List<String> events = new ArrayList<>();
        final List<Integer> completed = new ArrayList<>();
        ViConnection conn;
        LocalEndpoint accept;

        @Override
        public InboundReceive takeReceive() {
            return receives.poll();
        }

        @Override
        public int checkRemoteAccess(long address, int handle, long length, boolean write) {
            if (handle != 7) {
                return IsCode.INVALID_MEMORY_HANDLE;
            }
            return address >= 0 && address + length <= memory.capacity() ? 0 : IsCode.ADDRESS_OUT_OF_REGION;
        }

        @Override
        public void rdmaPlace(long address, int handle, ByteBuffer src) {
            memory.put((int) address, src, src.position(), src.remaining());
        }

        @Override
        public ByteBuffer rdmaSource(long address, int handle, int length) {
            return memory.slice((int) address, length);
        }

        @Override
        public void connectRequested(ViConnection c) {
            events.add("request");
            c.accept(accept, receives.size());
        }

        @Override
        public void connected(ViConnection c) {
            events.add("connected");
        }

        @Override
        public void connectFailed(ViConnection c, ConnectFailure f, int is) {
            events.add("failed " + f + " " + is);
        }

        @Override
        public void workCompleted(OutboundWork w, int status, long length) {
            completed.add(status);
        }

        @Override
        public void receiveCompleted(InboundReceive r, int status, long length, int immediate) {
            ((Recv) r).status = status;
            ((Recv) r).length = length;
            ((Recv) r).immediate = immediate;
            events.add("recv " + Status.describe(status) + " " + length);
        }

        @Override
        public void broken(ViConnection c, BreakCause cause, int type, int is) {
            events.add("broken " + cause + " " + type + "/" + is);
        }
    }

    static final class Recv implements InboundReceive {
        final ByteBuffer buf;
        int status;
        long length;
        int immediate;

        Recv(int size) {
            buf = ByteBuffer.allocate(size);
        }

        @Override
        public long capacity() {
            return buf.capacity();
        }

        @Override
        public void place(long offset, ByteBuffer src) {
            buf.put((int) offset, src, src.position(), src.remaining());
        }
    }

    static class Work implements OutboundWork {
        final int op;
        final ByteBuffer data;
        final long remote;
        final boolean fence;
        int msg;

        Work(int op, ByteBuffer data, long remote, boolean fence) {
            this.op = op;
            this.data = data;
            this.remote = remote;
            this.fence = fence;
        }

        public int operation() {
            return op;
        }

        public boolean hasImmediate() {
            return op == OP_SEND;
        }

        public int immediateData() {
            return 99;
        }

        public boolean queueFence() {
            return fence;
        }

        public long length() {
            return data.capacity();
        }

        public long remoteAddress() {
            return remote;
        }

        public int remoteHandle() {
            return 7;
        }

        public int gather(long offset, int length, ByteBuffer[] out, int index) {
            out[index] = data.slice((int) offset, length);
            return 1;
        }

        public void scatter(long offset, ByteBuffer src) {
            data.put((int) offset, src, src.position(), src.remaining());
        }

        public void messageNumber(int number) {
            msg = number;
        }

        public int messageNumber() {
            return msg;
        }
    }

    static LocalEndpoint endpoint(ReliabilityLevel level, String disc, int imn) {
        return new LocalEndpoint(ConnectionAttributes.of(level, true, level != ReliabilityLevel.UNRELIABLE_DELIVERY, false,
                false, false), Discriminator.ofUtf8(disc),
                1 << 20, 4, imn, 1000, 8, null);
    }

    /** Everything {@code from} has to write, as the bytes TCP would carry, each segment confirmed written. */
    static byte[] output(ViConnection from) {
        return EngineOutput.written(from);
    }

    /** Moves all output of {@code from} into {@code to} in chunks of random size (1..max). */
    static void pump(ViConnection from, ViConnection to, Random rnd, int max) {
        byte[] all = output(from);
        int at = 0;
        while (at < all.length) {
            int len = Math.min(all.length - at, 1 + rnd.nextInt(max));
            to.receive(ByteBuffer.wrap(all, at, len).slice());
            at += len;
        }
    }

    @Test
    void anyChunking_connectSendWriteRead_interleavedResponses() {
        for (int max : new int[] {1, 3, 17, 4096}) {
            Random rnd = new Random(max);
            Side a = new Side();
            Side b = new Side();
            b.accept = endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "b", 500);
            b.receives.add(new Recv(5000));
            ViConnection ca = ViConnection.active(a, endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "a", -3),
                    Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L);
            ViConnection cb = ViConnection.passive(b, null, 0);
            pump(ca, cb, rnd, max);
            pump(cb, ca, rnd, max);
            assertThat(ca.state()).isEqualTo(ViConnection.State.CONNECTED);
            assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
            assertThat(ca.negotiated().peerImn()).isEqualTo(500);

            byte[] text = new byte[3500]; // four segments of 1000
            new Random(1).nextBytes(text);
            for (int i = 0; i < 3000; i++) {
                b.memory.put(10_000 + i, (byte) i);
            }
            ca.post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(text), 0, false));
            ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(text), 100, false));
            Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(3000), 10_000, false);
            ca.post(read);
            // b answers the read while a's next Send is in flight: responses interleave with it
            pump(ca, cb, rnd, max);
            cb.post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(2500), 0, false));
            a.receives.add(new Recv(4000));
            ca.receivePosted();
            pump(cb, ca, rnd, max);
            pump(ca, cb, rnd, max);

            assertThat(b.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 3500");
            assertThat(b.memory.slice(100, 3500)).isEqualTo(ByteBuffer.wrap(text));
            for (int i = 0; i < 3000; i++) {
                assertThat(read.data.get(i)).isEqualTo((byte) i);
            }
            // Reliable Reception: Send and Write complete on the ACK, the Read on its response
            assertThat(a.completed).containsExactlyInAnyOrder(Status.DONE | Status.OP_SEND,
                    Status.DONE | Status.OP_RDMA_WRITE, Status.DONE | Status.OP_RDMA_READ);
            assertThat(a.events).contains("recv DONE|OP_RECEIVE|IMMEDIATE 2500");
        }
    }

    @Test
    void passiveIncomingTimeout_isTenSecondsOfPassedInTime() {
        Side b = new Side();
        ViConnection cb = ViConnection.passive(b, null, 1_000);
        assertThat(cb.deadline()).isEqualTo(1_000 + ViConnection.INCOMING_TIMEOUT_NANOS);
        cb.tick(cb.deadline() - 1);
        assertThat(cb.state()).isEqualTo(ViConnection.State.PASSIVE_INCOMING);
        cb.tick(cb.deadline());
        assertThat(cb.state()).isEqualTo(ViConnection.State.DISCONNECTED);
        assertThat(cb.closeRequested()).isTrue();
        assertThat(b.events).containsExactly("failed TIMEOUT 15");
        assertThat(cb.hasOutput()).isFalse(); // closes without a segment
    }

    @Test
    void activeConnectTimeout() {
        Side a = new Side();
        ViConnection ca = ViConnection.active(a, endpoint(ReliabilityLevel.RELIABLE_DELIVERY, "a", 1),
                Discriminator.ofUtf8("b"), 0, 0, 500);
        ca.tick(500);
        assertThat(a.events).containsExactly("failed TIMEOUT 15");
    }

    private static ViConnection[] connected(Side a, Side b, ReliabilityLevel level) {
        b.accept = endpoint(level, "b", 77);
        ViConnection ca = ViConnection.active(a, endpoint(level, "a", 5), Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        Random rnd = new Random(1);
        pump(ca, cb, rnd, 100);
        pump(cb, ca, rnd, 100);
        return new ViConnection[] {ca, cb};
    }

    private static byte[] header(SegmentType type, int flags, int len, long offset, int msg) {
        ByteBuffer b = ByteBuffer.allocate(len);
        SegmentHeader.write(b, 0, type, flags, len, offset, 0, msg, 0, 0, 0, 0);
        return b.array();
    }

    @Test
    void reservedType_isProtocolError_closedWithoutReport() {
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_RECEPTION);
        byte[] seg = header(SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, 24, 0, 4);
        seg[1] = (byte) ((12 << 3) | 2);
        c[1].receive(ByteBuffer.wrap(seg));
        assertThat(b.events).contains("broken PROTOCOL_ERROR 0/0");
        assertThat(c[1].closeRequested()).isTrue();
        assertThat(c[1].hasOutput()).isFalse(); // VITCP-PROFILE §9.8: no report
    }

    @Test
    void lastProtocolError_isSetBeforeTheBrokenCallback() {
        Side a = new Side();
        List<String> seenInCallback = new ArrayList<>();
        Side b = new Side() {
            @Override
            public void broken(ViConnection c, BreakCause cause, int type, int is) {
                super.broken(c, cause, type, is);
                seenInCallback.add(c.lastProtocolError()); // an owner logs the reason here
            }
        };
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        c[1].receive(ByteBuffer.wrap(header(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 24, 0, 6)));
        assertThat(b.events).contains("broken PROTOCOL_ERROR 0/0");
        assertThat(seenInCallback).hasSize(1);
        assertThat(seenInCallback.get(0)).isNotNull().contains("expected message");
    }

    @Test
    void reliableReception_writeBypassingAFailedRead_hasNoRemoteEffect() {
        // VIA 6.3.1.1: the Read fails its checks at the responder (bad handle, IS 3); the VI refuses all
        // later inbound (VIA 5.4), so the bypassing Write places nothing
        Side a = new Side();
        Side b = new Side();
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_RECEPTION);
        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(100), 0, false) {
            @Override
            public int remoteHandle() {
                return 9;
            }
        };
        byte[] data = new byte[2500];
        Arrays.fill(data, (byte) 0x5A);
        c[0].post(read);
        c[0].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), 4000, false));
        Random rnd = new Random(4);
        pump(c[0], c[1], rnd, 333);
        pump(c[1], c[0], rnd, 333);
        for (int i = 0; i < data.length; i++) {
            assertThat(b.memory.get(4000 + i)).isZero();
        }
        assertThat(a.completed).containsExactly(Status.DONE | Status.RDMA_PROT_ERROR | Status.OP_RDMA_READ,
                Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RDMA_WRITE);
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 1/3");
    }

    @Test
    void nopInsideAMessage_isProtocolError() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        c[1].receive(ByteBuffer.wrap(header(SegmentType.SEND, 0, 34, 0, 5)));
        c[1].receive(ByteBuffer.wrap(header(SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, 24, 0, 5)));
        assertThat(b.events).anyMatch(e -> e.startsWith("broken PROTOCOL_ERROR"));
    }

    @Test
    void messageLargerThanMtu_isProtocolError() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(4 << 20));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        int payload = 60_000;
        long offset = 0;
        for (int i = 0; i < 18 && b.events.stream().noneMatch(e -> e.startsWith("broken")); i++) {
            c[1].receive(ByteBuffer.wrap(header(SegmentType.SEND, 0, 24 + payload, offset, 5)));
            offset += payload;
        }
        assertThat(b.events).anyMatch(e -> e.startsWith("broken PROTOCOL_ERROR"));
    }

    @Test
    void wrongMessageNumber_isProtocolError() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(a, b, ReliabilityLevel.UNRELIABLE_DELIVERY);
        assertThat(c[1].state()).isEqualTo(ViConnection.State.CONNECTED);
        c[1].receive(ByteBuffer.wrap(header(SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, 24, 0, 6)));
        assertThat(b.events).anyMatch(e -> e.startsWith("broken PROTOCOL_ERROR"));
    }

    @Test
    void manualInboundCompletion_ackWaitsForTheOwner_andReadSourceMayComeLater() {
        Random rnd = new Random(5);
        Side a = new Side();
        AtomicBoolean ready = new AtomicBoolean();
        Side b = new Side() {
            @Override
            public ByteBuffer rdmaSource(long address, int handle, int length) {
                return ready.get() ? super.rdmaSource(address, handle, length) : null; // e.g. still being fetched
            }
        };
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_RECEPTION);
        c[1].manualInboundCompletion(true);
        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(50), 0, false);
        Work send = new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false);
        c[0].post(read);
        c[0].post(send);
        pump(c[0], c[1], rnd, 7);
        // b's read source was not ready when the request arrived: nothing but possibly NOPs went out
        assertThat(a.completed).isEmpty();
        ready.set(true);
        c[1].readSourceReady();
        pump(c[1], c[0], rnd, 7);
        assertThat(a.completed).containsExactly(Status.DONE | Status.OP_RDMA_READ); // the Send is not acknowledged yet
        c[1].inboundCompleted(send.msg);
        pump(c[1], c[0], rnd, 7);
        assertThat(a.completed).containsExactly(Status.DONE | Status.OP_RDMA_READ, Status.DONE | Status.OP_SEND);
    }

    @Test
    void failInbound_atReliableReception_reportsTheMessage() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_RECEPTION);
        c[1].manualInboundCompletion(true);
        Work send = new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false);
        c[0].post(send);
        Random rnd = new Random(2);
        pump(c[0], c[1], rnd, 100);
        c[1].failInbound(send.msg, 1, IsCode.INVALID_MEMORY_HANDLE);
        pump(c[1], c[0], rnd, 100);
        assertThat(a.completed).containsExactly(Status.DONE | Status.RDMA_PROT_ERROR | Status.OP_SEND);
        assertThat(a.events).contains("broken REMOTE_ERROR 1/3");
        assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 1/3");
    }

    @Test
    void peerCredits_countAnnouncedReceivesLessSendsAndImmediateWrites() {
        Side a = new Side();
        Side b = new Side();
        b.receives.add(new Recv(100));
        b.receives.add(new Recv(100));
        ViConnection[] c = connected(a, b, ReliabilityLevel.RELIABLE_DELIVERY);
        assertThat(c[0].peerCredits()).isEqualTo(2); // initial credits from the Connect Accept (§9.4)
        c[0].post(new Work(OutboundWork.OP_SEND, ByteBuffer.allocate(10), 0, false));
        Random rnd = new Random(3);
        pump(c[0], c[1], rnd, 50);
        assertThat(c[0].peerCredits()).isEqualTo(1);
        b.receives.add(new Recv(100));
        c[1].receivePosted();
        c[1].post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.allocate(10), 0, false)); // carries Rx Posted 3
        pump(c[1], c[0], rnd, 50);
        assertThat(c[0].peerCredits()).isEqualTo(2);
    }

    /** An owner that refuses admissions at random and remembers what it admitted. */
    static final class Gate extends Side {
        final Random rnd;
        final List<String> admitted = new ArrayList<>();
        int refused;

        Gate(Random rnd) {
            this.rnd = rnd;
        }

        @Override
        public boolean admitMessage(SegmentType type, int messageNumber) {
            if (rnd.nextInt(3) == 0) {
                refused++;
                return false;
            }
            admitted.add(type + " " + messageNumber);
            return true;
        }
    }

    /**
     * Feeds {@code from}'s output to {@code to} in random chunks; a refused admission leaves the rest of a
     * chunk, which goes in again (or an empty buffer first), the way an owner resumes held input.
     */
    static void pumpThroughAdmission(ViConnection from, ViConnection to, Random rnd, int max) {
        byte[] all = output(from);
        int at = 0;
        while (at < all.length) {
            ByteBuffer chunk = ByteBuffer.wrap(all, at, Math.min(all.length - at, 1 + rnd.nextInt(max))).slice();
            int size = chunk.remaining();
            to.receive(chunk);
            while (chunk.hasRemaining()) {
                assertThat(to.awaitingAdmission()).isTrue(); // bytes are left only while an admission is refused
                if (rnd.nextBoolean()) {
                    to.receive(ByteBuffer.allocate(0)); // retry the admission alone, then the rest
                }
                if (!to.awaitingAdmission() || rnd.nextBoolean()) {
                    to.receive(chunk);
                }
            }
            at += size;
        }
        while (to.awaitingAdmission()) { // a header-only segment at the end of the stream
            to.receive(ByteBuffer.allocate(0));
        }
    }

    @Test
    void refusedAdmissions_underAnyChunking_loseOrRepeatNoByte() {
        for (int max : new int[] {1, 5, 60, 3000}) {
            Random rnd = new Random(100 + max);
            Side a = new Side();
            Gate b = new Gate(new Random(max));
            b.accept = endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "b", 77);
            ViConnection ca = ViConnection.active(a, endpoint(ReliabilityLevel.RELIABLE_RECEPTION, "a", -2),
                    Discriminator.ofUtf8("b"), 0, 0, 1_000_000_000L);
            ViConnection cb = ViConnection.incoming(b, EngineOptions.of(null), 0);
            pump(ca, cb, rnd, 100);
            pump(cb, ca, rnd, 100);
            List<String> expected = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            List<Recv> posted = new ArrayList<>();
            List<Work> reads = new ArrayList<>();
            List<long[]> writes = new ArrayList<>(); // {address, index into sent}
            for (int m = 0; m < 24; m++) {
                byte[] data = new byte[rnd.nextInt(3500)];
                rnd.nextBytes(data);
                int msg = -2 + m;
                switch (m % 3) {
                    case 0 -> {
                        Recv r = new Recv(4000);
                        b.receives.add(r);
                        posted.add(r);
                        cb.receivePosted();
                        sent.add(data);
                        ca.post(new Work(OutboundWork.OP_SEND, ByteBuffer.wrap(data), 0, false));
                        expected.add("SEND " + msg);
                    }
                    case 1 -> {
                        long addr = 4000L * m;
                        writes.add(new long[] {addr, data.length});
                        b.memory.put((int) addr, new byte[data.length]); // cleared
                        sent.add(data);
                        ca.post(new Work(OutboundWork.OP_RDMA_WRITE, ByteBuffer.wrap(data), addr, false));
                        expected.add("RDMA_WRITE " + msg);
                    }
                    default -> {
                        Work read = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(data.length), 500_000 + 4000L
                                * m, false);
                        b.memory.put(500_000 + 4000 * m, data);
                        sent.add(data);
                        reads.add(read);
                        ca.post(read);
                        expected.add("RDMA_READ_REQUEST " + msg);
                    }
                }
            }
            for (int round = 0; round < 100 && a.completed.size() < 24; round++) {
                pumpThroughAdmission(ca, cb, rnd, max);
                pump(cb, ca, rnd, max);
            }
            assertThat(b.refused).isPositive();
            assertThat(b.admitted).containsExactlyElementsOf(expected); // each message admitted exactly once, in order
            assertThat(a.completed).hasSize(24).allMatch(s -> !Status.isError(s));
            for (int m = 0, send = 0, write = 0, read = 0; m < 24; m++) {
                byte[] data = sent.get(m);
                switch (m % 3) {
                    case 0 -> {
                        Recv r = posted.get(send++);
                        assertThat(r.length).isEqualTo(data.length);
                        assertThat(r.buf.slice(0, data.length)).isEqualTo(ByteBuffer.wrap(data));
                    }
                    case 1 -> {
                        long[] w = writes.get(write++);
                        assertThat(b.memory.slice((int) w[0], data.length)).isEqualTo(ByteBuffer.wrap(data));
                    }
                    default -> assertThat(reads.get(read++).data).isEqualTo(ByteBuffer.wrap(data));
                }
            }
        }
    }
}

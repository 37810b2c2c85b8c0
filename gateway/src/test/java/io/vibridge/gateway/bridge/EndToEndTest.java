package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Client library -> gateway -> soft fabric -> target, one JVM: every operation, level and FlowC. */
class EndToEndTest {
    static EchoTarget target;
    static GatewayServer gateway;
    static ViNic nic;

    @BeforeAll
    static void start() throws Exception {
        target = new EchoTarget("127.0.0.61", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.62",
                TestSupport.route("echo0", "127.0.0.61", 5000, 0, 8) + ","
                        + TestSupport.route("echo1", "127.0.0.61", 5000, 1, 8) + ","
                        + TestSupport.route("nobody", "127.0.0.61", 5999, 1, 8) + ","
                        + TestSupport.route("absent", "127.0.0.79", 5000, 1, 8), ""));
        nic = TestSupport.clientNic();
    }

    @AfterAll
    static void stop() {
        if (nic != null) {
            nic.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** Every level, both FlowC settings, both encapsulations of the client side (VITCP-PROFILE §8). */
    static Stream<Arguments> levels() {
        List<Arguments> l = new ArrayList<>();
        for (ReliabilityLevel level : ReliabilityLevel.values()) {
            for (int fc : new int[] {0, 1}) {
                for (Encapsulation e : Encapsulation.values()) {
                    l.add(Arguments.of(level, fc, e));
                }
            }
        }
        return l.stream();
    }

    /** The gateway's listener of {@code e}. */
    static int port(GatewayServer g, Encapsulation e) {
        return e == Encapsulation.RDMATCP ? g.rdmaTcpPort() : g.port();
    }

    @ParameterizedTest
    @MethodSource("levels")
    void sendsAreEchoedIntact(ReliabilityLevel level, int flowc, Encapsulation framing) throws Exception {
        try (var c = new TestSupport.Client(nic, level, true, 16)) {
            c.connect(port(gateway, framing), "echo" + flowc, framing);
            int[] sizes = {0, 1, 100, 4096, 32768, 65536, 7, 65535, 12345, 50000};
            int rounds = 3;
            for (int r = 0; r < rounds; r++) {
                long[] sent = new long[sizes.length];
                for (int i = 0; i < sizes.length; i++) {
                    int off = c.sendArea(i % 8);
                    TestSupport.fill(c.mr, off, sizes[i], 31L * r + i);
                    sent[i] = TestSupport.crc(c.mr.buffer(), off, sizes[i]);
                    Descriptor d = Descriptor.send().data(c.mr, off, sizes[i]);
                    if (i % 3 == 0) {
                        d.immediate(0x1000 + i);
                    }
                    c.vi.postSend(d);
                    Descriptor done = c.vi.sendWait(T);
                    assertThat(done.isError()).as("send status %s", done.status()).isFalse();
                    Descriptor rx = c.vi.recvWait(T);
                    assertThat(rx.isError()).isFalse();
                    assertThat(rx.length()).isEqualTo(sizes[i]);
                    long got = TestSupport.crc(c.mr.buffer(), recvOffset(c, i + r * sizes.length), sizes[i]);
                    assertThat(got).as("message %d of %d bytes", i, sizes[i]).isEqualTo(sent[i]);
                    if (i % 3 == 0) {
                        assertThat(rx.immediateData()).isEqualTo(0x1000 + i);
                    }
                    c.vi.postRecv(Descriptor.receive().data(c.mr, recvOffset(c, i + r * sizes.length), 65536));
                }
            }
        }
    }

    private static int recvOffset(TestSupport.Client c, int n) {
        return (n % c.recvs) * 65536;
    }

    @ParameterizedTest
    @MethodSource("levels")
    void rdmaWriteThenReadBack(ReliabilityLevel level, int flowc, Encapsulation framing) throws Exception {
        try (var c = new TestSupport.Client(nic, level, true, 4)) {
            c.connect(port(gateway, framing), "echo" + flowc, framing);
            long base = target.rdma.address() + (level.ordinal() * 2L + flowc) * 131072;
            int rkey = target.rdma.rkey();
            int[] sizes = {65536, 1, 0, 40000};
            for (int i = 0; i < sizes.length; i++) {
                int off = c.sendArea(0);
                TestSupport.fill(c.mr, off, sizes[i], 7 + i);
                long crc = TestSupport.crc(c.mr.buffer(), off, sizes[i]);
                Descriptor w = Descriptor.rdmaWrite(base, rkey).data(c.mr, off, sizes[i]);
                c.vi.postSend(w);
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                if (level == ReliabilityLevel.RELIABLE_RECEPTION) {
                    // end-to-end: the Message ACK came only after the InfiniBand WRITE completed at the target
                    assertThat(TestSupport.crc(target.rdma.buffer(), (int) (base - target.rdma.address()), sizes[i]))
                            .isEqualTo(crc);
                }
                if (level == ReliabilityLevel.UNRELIABLE_DELIVERY) {
                    // no RDMA Read at Unreliable Delivery (VIA 2.5.1): check the target's memory directly
                    awaitCrc(base, sizes[i], crc);
                    continue;
                }
                int back = c.sendArea(1);
                c.vi.postSend(Descriptor.rdmaRead(base, rkey).data(c.mr, back, sizes[i]));
                Descriptor rd = c.vi.sendWait(T);
                assertThat(rd.isError()).as("read status %s", rd.status()).isFalse();
                assertThat(TestSupport.crc(c.mr.buffer(), back, sizes[i])).isEqualTo(crc);
            }
            if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                // several reads in flight at once come back in order
                List<Integer> offs = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    c.vi.postSend(Descriptor.rdmaRead(base + i * 1000, rkey).data(c.mr, c.sendArea(2 + i), 30000));
                    offs.add(i);
                }
                for (int i = 0; i < 4; i++) {
                    assertThat(c.vi.sendWait(T).isError()).isFalse();
                }
                for (int i = 0; i < 4; i++) {
                    long expect = TestSupport.crc(target.rdma.buffer(), (int) (base - target.rdma.address()) + i * 1000,
                            30000);
                    assertThat(TestSupport.crc(c.mr.buffer(), c.sendArea(2 + i), 30000)).isEqualTo(expect);
                }
            }
            // RDMA Writes with immediate: each consumes a target receive (CM-MAPPING §4); more of them than the
            // target has receives, so FlowC 0 credit updates must keep flowing although they carry no header
            long before = target.writesWithImm.get();
            for (int i = 0; i < 20; i++) {
                c.vi.postSend(Descriptor.rdmaWrite(base, rkey).data(c.mr, c.sendArea(0), 1000).immediate(77 + i));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                Descriptor echo = c.vi.recvWait(T); // the target answers each with an empty Send, same immediate
                assertThat(echo.isError()).isFalse();
                assertThat(echo.length()).isZero();
                assertThat(echo.immediateData()).isEqualTo(77 + i);
                c.vi.postRecv(Descriptor.receive().data(c.mr, recvOffset(c, i), 65536));
            }
            awaitTrue(() -> target.writesWithImm.get() == before + 20);
            // and Sends still flow after them: the mseq sequences stayed in step
            c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 10));
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            assertThat(c.vi.recvWait(T).isError()).isFalse();
        }
    }

    /**
     * Seed 002 through the gateway: its Connect Accept sets attribute bit 6, so the client sends unordered Sends,
     * RDMA Writes (with and without immediate data) and RDMA Reads as types 9/10/11 (a tap between them sees the
     * types); the bridge maps them to SEND, RDMA WRITE and RDMA READ exactly as types 0/1/2, which InfiniBand RC
     * executes in order (README-bridge "Unordered operations"). Nothing the gateway sends the client is unordered.
     */
    @ParameterizedTest
    @MethodSource("levels")
    void unorderedTypesBecomeTheSameInfiniBandOperations(ReliabilityLevel level, int flowc, Encapsulation framing)
            throws Exception {
        // the tap reads native segment headers: in seed-004 framing the client connects directly (the gateway's
        // frame check then refuses a frame whose order field disagrees with its VI/TCP type)
        boolean tapped = framing == Encapsulation.VITCP;
        try (var tap = tapped ? new SegmentTap(gateway.port()) : null;
                var c = new TestSupport.Client(nic, level, true, 4)) {
            c.connect(tapped ? tap.port() : port(gateway, framing), "echo" + flowc, framing);
            assertThat(c.vi.negotiated().peerUnderstandsUnordered()).as("bit 6 in the gateway's Connect Accept").isTrue();
            // Send Unordered (one and two segments, the second with immediate data): echoed by the target
            int[] sizes = {100, 40_000};
            for (int i = 0; i < sizes.length; i++) {
                int off = c.sendArea(0);
                TestSupport.fill(c.mr, off, sizes[i], 500 + i);
                long crc = TestSupport.crc(c.mr.buffer(), off, sizes[i]);
                Descriptor d = Descriptor.send().data(c.mr, off, sizes[i]).unordered();
                if (i == 1) {
                    d.immediate(0x5EED);
                }
                c.vi.postSend(d);
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                Descriptor rx = c.vi.recvWait(T);
                assertThat(rx.isError()).as("echo status %s", rx.status()).isFalse();
                assertThat(rx.length()).isEqualTo(sizes[i]);
                assertThat(TestSupport.crc(c.mr.buffer(), recvOffset(c, i), sizes[i])).isEqualTo(crc);
                if (i == 1) {
                    assertThat(rx.immediateData()).isEqualTo(0x5EED);
                }
                c.vi.postRecv(Descriptor.receive().data(c.mr, recvOffset(c, i), 65536));
            }
            // RDMA Write Unordered into the target's memory (clear of what cut-through commands overwrite)
            long base = target.rdma.address() + (4 << 20)
                    + (level.ordinal() * 4L + flowc * 2L + framing.ordinal()) * 131072; // its own area per case
            int rkey = target.rdma.rkey();
            int off = c.sendArea(1);
            TestSupport.fill(c.mr, off, 50_000, 600);
            long crc = TestSupport.crc(c.mr.buffer(), off, 50_000);
            c.vi.postSend(Descriptor.rdmaWrite(base, rkey).data(c.mr, off, 50_000).unordered());
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            awaitCrc(base, 50_000, crc);
            // with immediate data: it consumes a target receive, the target answers with an empty Send carrying it
            c.vi.postSend(Descriptor.rdmaWrite(base + 60_000, rkey).data(c.mr, off, 1_000).immediate(0xD0).unordered());
            assertThat(c.vi.sendWait(T).isError()).isFalse();
            Descriptor echo = c.vi.recvWait(T);
            assertThat(echo.isError()).isFalse();
            assertThat(echo.immediateData()).isEqualTo(0xD0);
            awaitCrc(base + 60_000, 1_000, TestSupport.crc(c.mr.buffer(), off, 1_000));
            List<Integer> expected = new ArrayList<>(List.of(9, 9, 9, 10, 10, 10));
            if (level != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                int back = c.sendArea(2);
                c.vi.postSend(Descriptor.rdmaRead(base, rkey).data(c.mr, back, 50_000).unordered());
                Descriptor rd = c.vi.sendWait(T);
                assertThat(rd.isError()).as("read status %s", rd.status()).isFalse();
                assertThat(TestSupport.crc(c.mr.buffer(), back, 50_000)).isEqualTo(crc);
                expected.add(11);
            }
            if (tapped) {
                // Send, RDMA Write and RDMA Read Request types, ordered (0, 1, 2) or not (9, 10, 11), client -> gateway
                assertThat(tap.clientTypes().stream().filter(t -> t <= 2 || t >= 9).toList()).isEqualTo(expected);
                assertThat(tap.types()).as("gateway -> client").noneMatch(t -> t >= 9);
            }
            assertThat(c.vi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @ParameterizedTest
    @MethodSource("levels")
    void targetInitiatedRdmaIsCutThroughToTheClient(ReliabilityLevel level, int flowc, Encapsulation framing) throws Exception {
        try (var c = new TestSupport.Client(nic, level, true, 8)) {
            c.connect(port(gateway, framing), "echo" + flowc, framing);
            int area = c.sendArea(3);
            int len = 10_000;
            // the target WRITEs a pattern to the client's memory (address + VI memory handle as rkey)
            command(c, EchoTarget.CUT_WRITE, c.mr.address(area), c.mr.handle(), len, 0);
            for (int i = 0; i < len; i++) {
                assertThat(c.mr.buffer().get(area + i)).as("byte %d", i).isEqualTo((byte) (i * 31 + 7));
            }
            if (level == ReliabilityLevel.UNRELIABLE_DELIVERY) {
                return; // no RDMA Read at Unreliable Delivery (VIA 2.5.1)
            }
            // the target READs the client's memory and sends back the CRC of what it read; 100,000 bytes is
            // more than one VI message (MTU 65536): the gateway splits it into two VI RDMA Reads
            for (int size : new int[] {30_000, 100_000}) {
                TestSupport.fill(c.mr, area, size, size);
                long crc = TestSupport.crc(c.mr.buffer(), area, size);
                Descriptor echo = command(c, EchoTarget.CUT_READ, c.mr.address(area), c.mr.handle(), size, 1);
                assertThat(echo.length()).isEqualTo(8);
                assertThat(c.mr.buffer().getLong(recvOffset(c, size == 30_000 ? 1 : 2))).isEqualTo(crc);
            }
        }
    }

    /** Sends a cut-through command to the echo target and returns the echo (received into receive {@code n}). */
    private static Descriptor command(TestSupport.Client c, int cmd, long va, int handle, int len, int n)
            throws InterruptedException {
        int at = c.sendArea(0);
        c.mr.buffer().putInt(at, cmd).putLong(at + 4, va).putInt(at + 12, handle).putInt(at + 16, len);
        c.vi.postSend(Descriptor.send().data(c.mr, at, 20));
        assertThat(c.vi.sendWait(T).isError()).isFalse();
        Descriptor rx = c.vi.recvWait(T);
        assertThat(rx.isError()).as("echo status %s", rx.status()).isFalse();
        return rx;
    }

    private static void awaitCrc(long addr, int len, long crc) throws InterruptedException {
        awaitTrue(() -> TestSupport.crc(target.rdma.buffer(), (int) (addr - target.rdma.address()), len) == crc);
    }

    static void awaitTrue(BooleanSupplier s) throws InterruptedException {
        long end = System.nanoTime() + T.toNanos();
        while (!s.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("condition not met within " + T);
            }
            Thread.sleep(5);
        }
    }

    /**
     * IBA 9.5 (an RC responder executes requests in order): the target SENDs, then RDMA WRITEs the client's
     * memory. Both reach the gateway while its event loop is busy (blocked by the test), so the SEND's completion
     * is queued but not yet polled when the WRITE packets arrive: they must not overtake it. The segments the
     * gateway writes to the client (seen by a TCP tap) must carry the Send before the first RDMA Write. The loop
     * is released only once the gateway acknowledged the WRITE (it is queued, not refused: a refusal costs the
     * target a retransmission timeout), so the check is deterministic.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void targetWriteAfterASendStaysBehindIt(int flowc) throws Exception {
        try (var tap = new SegmentTap(gateway.port());
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            c.connect(tap.port(), "echo" + flowc);
            BridgedConnection bridge = gateway.bridgeContext().connections().stream()
                    .filter(b -> b.clientPort() == tap.upstreamPort()).findFirst().orElseThrow();
            int area = c.sendArea(3);
            int len = 10_000;
            int writesBefore = target.writesDone.get();
            int arrivedBefore = target.cutsArrived.get();
            var targetGate = new CountDownLatch(1);
            var loopGate = new CountDownLatch(1);
            var loopBlocked = new CountDownLatch(1);
            target.cutsGate = targetGate;
            try {
                int at = c.sendArea(0);
                c.mr.buffer().putInt(at, EchoTarget.CUT_SEND_THEN_WRITE).putLong(at + 4, c.mr.address(area))
                        .putInt(at + 12, c.mr.handle()).putInt(at + 16, len);
                c.vi.postSend(Descriptor.send().data(c.mr, at, 20));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                awaitTrue(() -> target.cutsArrived.get() > arrivedBefore);
                bridge.vertxContext().runOnContext(v -> {
                    loopBlocked.countDown();
                    try {
                        loopGate.await(T.toSeconds(), TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertThat(loopBlocked.await(T.toSeconds(), TimeUnit.SECONDS)).isTrue();
                targetGate.countDown(); // the target posts its SEND, then its WRITE
                // accepted (acknowledged) at once although the bridge has not polled the SEND yet: nothing is
                // refused for order any more (a refusal cost the target a retransmission timeout)
                awaitTrue(() -> target.writesDone.get() > writesBefore);
            } finally {
                target.cutsGate = null;
                targetGate.countDown();
                loopGate.countDown();
            }
            Descriptor rx = c.vi.recvWait(T);
            assertThat(rx.isError()).isFalse();
            assertThat(rx.length()).isEqualTo(20);
            awaitTrue(() -> c.mr.buffer().get(area + len - 1) == (byte) ((len - 1) * 31 + 7));
            for (int i = 0; i < len; i++) {
                assertThat(c.mr.buffer().get(area + i)).as("byte %d", i).isEqualTo((byte) (i * 31 + 7));
            }
            List<Integer> types = tap.types();
            assertThat(types).contains(0, 1);
            assertThat(types.indexOf(0)).as("segment types to the client %s: the Send before the RDMA Write", types)
                    .isLessThan(types.indexOf(1));
        }
    }

    /**
     * As {@link #targetWriteAfterASendStaysBehindIt} for an RDMA READ (a READ cannot be refused: it waits in the
     * cut-through queue): the client must get the Send before the RDMA Read Request.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void targetReadAfterASendStaysBehindIt(int flowc) throws Exception {
        try (var tap = new SegmentTap(gateway.port());
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            c.connect(tap.port(), "echo" + flowc);
            BridgedConnection bridge = gateway.bridgeContext().connections().stream()
                    .filter(b -> b.clientPort() == tap.upstreamPort()).findFirst().orElseThrow();
            int area = c.sendArea(3);
            int len = 5_000;
            int readsBefore = target.readsDone.get();
            int arrivedBefore = target.cutsArrived.get();
            var targetGate = new CountDownLatch(1);
            var loopGate = new CountDownLatch(1);
            var loopBlocked = new CountDownLatch(1);
            target.cutsGate = targetGate;
            try {
                int at = c.sendArea(0);
                c.mr.buffer().putInt(at, EchoTarget.CUT_SEND_THEN_READ).putLong(at + 4, c.mr.address(area))
                        .putInt(at + 12, c.mr.handle()).putInt(at + 16, len);
                c.vi.postSend(Descriptor.send().data(c.mr, at, 20));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                awaitTrue(() -> target.cutsArrived.get() > arrivedBefore);
                bridge.vertxContext().runOnContext(v -> {
                    loopBlocked.countDown();
                    try {
                        loopGate.await(T.toSeconds(), TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertThat(loopBlocked.await(T.toSeconds(), TimeUnit.SECONDS)).isTrue();
                targetGate.countDown(); // the target posts its SEND, then its READ
                awaitTrue(() -> bridge.cutThroughQueued() > 0); // the READ reached the gateway behind the SEND
            } finally {
                target.cutsGate = null;
                targetGate.countDown();
                loopGate.countDown();
            }
            Descriptor rx = c.vi.recvWait(T);
            assertThat(rx.isError()).isFalse();
            assertThat(rx.length()).isEqualTo(20);
            awaitTrue(() -> target.readsDone.get() > readsBefore);
            List<Integer> types = tap.types();
            assertThat(types).contains(0, 2);
            assertThat(types.indexOf(0)).as("segment types to the client %s: the Send before the RDMA Read Request",
                    types).isLessThan(types.indexOf(2));
        }
    }

    @ParameterizedTest
    @MethodSource("levels")
    void targetRefusingAnRdmaWriteIsAnErrorForThatMessage(ReliabilityLevel level, int flowc, Encapsulation framing) throws Exception {
        try (var c = new TestSupport.Client(nic, level, true, 4)) {
            c.connect(port(gateway, framing), "echo" + flowc, framing);
            // a bad rkey: the target NAKs (remote access error), the gateway maps it per reliability level
            c.vi.postSend(Descriptor.rdmaWrite(target.rdma.address(), target.rdma.rkey() + 1000).data(c.mr, 0, 100));
            Descriptor d = c.vi.sendWait(T);
            if (level == ReliabilityLevel.RELIABLE_RECEPTION) {
                // reported: VI Error Type 1 (RDMA protection) for exactly this message
                assertThat(d.status() & Status.RDMA_PROT_ERROR).as(Status.describe(d.status())).isNotZero();
            } else if (level == ReliabilityLevel.RELIABLE_DELIVERY) {
                assertThat(d.isError()).isFalse(); // complete once handed to TCP; the connection then closes
            }
            awaitTrue(() -> c.vi.state() != ViState.CONNECTED);
        }
    }

    @Test
    void noRouteIsConnectNoMatch() throws Exception {
        try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            assertThatThrownBy(() -> c.connect(gateway.port(), "unknown"))
                    .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.code()).isEqualTo(ViException.Code.NO_MATCH));
        }
    }

    @Test
    void serviceNotListenedIsRejectedNoRoute() throws Exception {
        try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            assertThatThrownBy(() -> c.connect(gateway.port(), "nobody"))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.NO_ROUTE);
                    });
        }
    }

    @Test
    void targetRejectIsConnectRejectIs13() throws Exception {
        target.reject = true;
        try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            assertThatThrownBy(() -> c.connect(gateway.port(), "echo1"))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.TARGET_REJECTED);
                    });
        } finally {
            target.reject = false;
        }
    }

    @Test
    void targetReceiveSizeBelow32KiBIsConnectRejectIs10() throws Exception {
        try (EchoTarget small = new EchoTarget("127.0.0.80", 5001, 4, 16384);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.81",
                        TestSupport.route("small", "127.0.0.80", 5001, 1, 4), ""));
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            assertThatThrownBy(() -> c.connect(g.port(), "small"))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.MTU_TOO_SMALL);
                    });
            awaitTrue(() -> small.disconnects.get() == 1); // the InfiniBand side was torn down again
        }
    }

    @Test
    void absentTargetIsUnreachable() throws Exception {
        // a CM REQ nobody answers (CM timeout after max-cm-retries) = target unreachable: IS 12
        double before = gatewayRejected("target_unreachable");
        try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1)) {
            assertThatThrownBy(() -> c.connect(gateway.port(), "absent"))
                    .isInstanceOfSatisfying(ViException.class, e -> {
                        assertThat(e.code()).isEqualTo(ViException.Code.REJECT);
                        assertThat(e.isCode()).isEqualTo(IsCode.NO_ROUTE);
                    });
            assertThat(gatewayRejected("target_unreachable")).isEqualTo(before + 1);
        }
    }

    private static double gatewayRejected(String reason) {
        var c = gateway.registry().find("vibridge.connections.rejected").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }
}

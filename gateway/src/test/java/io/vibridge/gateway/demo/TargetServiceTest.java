package io.vibridge.gateway.demo;

import com.sun.management.ThreadMXBean;
import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.Hello;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.control.Control;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The demo target over the soft provider, driven by a verbs-level client on a second device. */
class TargetServiceTest {
    static final String CLIENT_IP = "127.0.0.41";
    static final String TARGET_IP = "127.0.0.42";
    static final int PORT = 5000;
    static TargetService target;
    static VerbsDevice clientDev;
    static InetAddress targetAddr;
    static long iwarp;

    @BeforeAll
    static void start() throws Exception {
        targetAddr = InetAddress.getByName(TARGET_IP);
        target = TargetService.start(TargetConfig.defaults(targetAddr).withProvider("soft").withPort(PORT)
                .withReceives(16, 4096).withRegionSize(1 << 20).withSource(1000, 4));
        clientDev = RcTestClient.device(CLIENT_IP);
        iwarp = ServiceId.valueOf(ServiceIdScheme.IWARP, PORT);
    }

    @AfterAll
    static void stop() {
        if (clientDev != null) {
            clientDev.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static RcTestClient connected(FlowControl fc) throws Exception {
        RcTestClient c = new RcTestClient(clientDev, fc, 8, 4096);
        CmEvent e = c.connectHello(targetAddr, iwarp, 4096);
        assertThat(e).isInstanceOf(CmEvent.Established.class);
        return c;
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 13);
        }
        return b;
    }

    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void echo_withAndWithoutImmediate_andHelloReply(FlowControl fc) throws Exception {
        try (RcTestClient c = connected(fc)) {
            assertThat(c.reply.bufs()).isEqualTo(16);
            assertThat(c.reply.actualReceiveSize()).isEqualTo(4096);
            // more messages than either side has receives: credits (FlowC 0) must cycle
            for (int i = 0; i < 40; i++) {
                byte[] p = pattern(100 + i, i);
                boolean imm = i % 2 == 1;
                c.send(p, imm, 0x1000 + i);
                RcTestClient.Received r = c.receive();
                assertThat(r.payload()).isEqualTo(p);
                assertThat(r.hasImm()).isEqualTo(imm);
                if (imm) {
                    assertThat(r.imm()).isEqualTo(0x1000 + i);
                }
            }
            c.disconnect();
        }
    }

    /**
     * The default echo answers Sends only. An RDMA WRITE WITH IMMEDIATE consumes a target receive
     * (and with FlowC 0 an mseq) and is not answered; the target reposts that receive, so the Send after it
     * (more rounds than either side has receives) is still echoed, and its echo is the next thing the
     * client receives.
     */
    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void echo_writeWithImmediate_isNotAnswered_andTheNextSendIsEchoed(FlowControl fc) throws Exception {
        try (RcTestClient c = connected(fc)) {
            writesWithImmediateThenSends(c, false);
            c.disconnect();
        }
    }

    /** echo-ack-writes selected with SET_MODE: every WRITE WITH IMMEDIATE is answered by an empty Send with its immediate. */
    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void echoAckWrites_bySetMode_answersEachWriteWithImmediate(FlowControl fc) throws Exception {
        try (RcTestClient c = connected(fc)) {
            ByteBuffer mode = ByteBuffer.allocate(1).put(0, (byte) TargetMode.ECHO_ACK_WRITES.code());
            assertThat(Control.status(c.control(Control.SET_MODE, mode), 0)).isEqualTo(Control.OK);
            writesWithImmediateThenSends(c, true);
            // and back to plain echo on the same connection
            mode.put(0, (byte) TargetMode.ECHO.code());
            assertThat(Control.status(c.control(Control.SET_MODE, mode), 0)).isEqualTo(Control.OK);
            writesWithImmediateThenSends(c, false);
            c.disconnect();
        }
    }

    /** echo-ack-writes as the target's configured mode ({@code --mode echo-ack-writes}). */
    @Test
    void echoAckWrites_asTheConfiguredMode() throws Exception {
        InetAddress addr = InetAddress.getByName("127.0.0.58");
        try (TargetService t = TargetService.start(TargetConfig.defaults(addr).withProvider("soft")
                .withMode(TargetMode.ECHO_ACK_WRITES).withReceives(8, 4096).withRegionSize(65536));
             RcTestClient c = new RcTestClient(clientDev, FlowControl.TRANSPORT, 8, 4096)) {
            assertThat(c.connectHello(addr, ServiceId.valueOf(ServiceIdScheme.IWARP, TargetConfig.DEFAULT_PORT), 4096))
                    .isInstanceOf(CmEvent.Established.class);
            writesWithImmediateThenSends(c, true);
            c.disconnect();
        }
    }

    /** 20 rounds of a WRITE WITH IMMEDIATE into the region then a Send; {@code answered}: echo-ack-writes. */
    private static void writesWithImmediateThenSends(RcTestClient c, boolean answered) {
        ByteBuffer q = c.control(Control.QUERY_REGION, ByteBuffer.allocate(0));
        long va = q.getLong(Control.HEADER);
        int rkey = q.getInt(Control.HEADER + 8);
        long before = c.control(Control.STATS, ByteBuffer.allocate(0)).getLong(Control.HEADER);
        for (int i = 0; i < 20; i++) {
            c.writeImm(va + 64, rkey, pattern(300, 9), 0xABC0 + i);
            if (answered) {
                RcTestClient.Received r = c.receive();
                assertThat(r.payload()).isEmpty();
                assertThat(r.hasImm()).isTrue();
                assertThat(r.imm()).isEqualTo(0xABC0 + i);
            }
            byte[] p = pattern(50 + i, i);
            c.send(p, true, 0x5E00 + i);
            RcTestClient.Received echo = c.receive();
            assertThat(echo.payload()).as("echo of Send %d", i).isEqualTo(p);
            assertThat(echo.hasImm()).isTrue();
            assertThat(echo.imm()).isEqualTo(0x5E00 + i);
        }
        assertThat(c.receive(TimeUnit.MILLISECONDS.toNanos(200))).as("nothing else arrives").isNull();
        ByteBuffer ck = c.control(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 64).putInt(4, 300));
        assertThat(ck.getInt(Control.HEADER)).isEqualTo(Control.crc32c(ByteBuffer.wrap(pattern(300, 9)), 0, 300));
        // every write and every Send was counted (mseq stayed in step on both sides)
        assertThat(c.control(Control.STATS, ByteBuffer.allocate(0)).getLong(Control.HEADER) - before).isEqualTo(40);
    }

    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void sink_countsAndDrops_statsReportThem(FlowControl fc) throws Exception {
        try (RcTestClient c = connected(fc)) {
            ByteBuffer mode = ByteBuffer.allocate(1).put(0, (byte) TargetMode.SINK.code());
            assertThat(Control.status(c.control(Control.SET_MODE, mode), 0)).isEqualTo(Control.OK);
            for (int i = 0; i < 50; i++) {
                c.send(pattern(1000, i), false, 0);
            }
            assertThat(c.receive(TimeUnit.MILLISECONDS.toNanos(200))).isNull();
            ByteBuffer s = c.control(Control.STATS, ByteBuffer.allocate(0));
            assertThat(Control.status(s, 0)).isEqualTo(Control.OK);
            assertThat(s.getLong(Control.HEADER)).isEqualTo(50);
            assertThat(s.getLong(Control.HEADER + 8)).isEqualTo(50_000);
            c.disconnect();
        }
    }

    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void source_sendsPatternedMessages(FlowControl fc) throws Exception {
        try (RcTestClient c = connected(fc)) {
            ByteBuffer mode = ByteBuffer.allocate(1).put(0, (byte) TargetMode.SOURCE.code());
            assertThat(Control.status(c.control(Control.SET_MODE, mode), 0)).isEqualTo(Control.OK);
            int seed = -1;
            for (int i = 0; i < 30; i++) {
                RcTestClient.Received r = c.receive();
                assertThat(r.payload()).hasSize(1000);
                if (seed < 0) {
                    seed = seedOf(r);
                }
                for (int k = 0; k < 1000; k++) {
                    if (r.payload()[k] != Control.patternByte(seed, k)) {
                        throw new AssertionError("message " + i + " byte " + k + " is not the source pattern");
                    }
                }
            }
            c.disconnect();
        }
    }

    /** The source fills with its connection id as seed; recover it by matching the first 8 bytes. */
    private static int seedOf(RcTestClient.Received r) {
        for (int seed = 0; seed < 100_000; seed++) {
            boolean ok = true;
            for (int i = 0; i < 8 && ok; i++) {
                ok = r.payload()[i] == Control.patternByte(seed, i);
            }
            if (ok) {
                return seed;
            }
        }
        throw new AssertionError("payload is not the source pattern");
    }

    @Test
    void control_regionWriteChecksum_writeToPeer_readFromPeer_fill() throws Exception {
        try (RcTestClient c = connected(FlowControl.TRANSPORT)) {
            ByteBuffer q = c.control(Control.QUERY_REGION, ByteBuffer.allocate(0));
            assertThat(Control.status(q, 0)).isEqualTo(Control.OK);
            long va = q.getLong(Control.HEADER);
            int rkey = q.getInt(Control.HEADER + 8);
            assertThat(q.getInt(Control.HEADER + 12)).isEqualTo(1 << 20);
            assertThat(va).isEqualTo(target.region().address());

            // RDMA WRITE into the region, then CHECKSUM_REGION agrees with the local CRC
            byte[] data = pattern(20_000, 5);
            c.write(va + 4096, rkey, data);
            ByteBuffer args = ByteBuffer.allocate(8).putInt(0, 4096).putInt(4, data.length);
            ByteBuffer ck = c.control(Control.CHECKSUM_REGION, args);
            assertThat(Control.status(ck, 0)).isEqualTo(Control.OK);
            assertThat(ck.getInt(Control.HEADER)).isEqualTo(Control.crc32c(ByteBuffer.wrap(data), 0, data.length));
            // out of range
            ByteBuffer bad = ByteBuffer.allocate(8).putInt(0, (1 << 20) - 10).putInt(4, 11);
            assertThat(Control.status(c.control(Control.CHECKSUM_REGION, bad), 0)).isEqualTo(Control.OUT_OF_RANGE);

            // WRITE_TO_PEER: the target RDMA WRITEs the pattern into our memory
            int len = 50_000;
            ByteBuffer w = ByteBuffer.allocate(20).putLong(0, c.mem.address() + 1000).putInt(8, c.mem.rkey())
                    .putInt(12, len).putInt(16, 77);
            ByteBuffer wr = c.control(Control.WRITE_TO_PEER, w);
            assertThat(Control.status(wr, 0)).isEqualTo(Control.OK);
            assertThat(wr.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(77, len));
            for (int i = 0; i < len; i++) {
                if (c.mem.buffer().get(1000 + i) != Control.patternByte(77, i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }

            // READ_FROM_PEER: the target RDMA READs our memory and returns its CRC
            byte[] mine = pattern(30_000, 99);
            c.mem.buffer().put(200_000, mine);
            ByteBuffer r = ByteBuffer.allocate(16).putLong(0, c.mem.address() + 200_000).putInt(8, c.mem.rkey())
                    .putInt(12, mine.length);
            ByteBuffer rr = c.control(Control.READ_FROM_PEER, r);
            assertThat(Control.status(rr, 0)).isEqualTo(Control.OK);
            assertThat(rr.getInt(Control.HEADER)).isEqualTo(Control.crc32c(ByteBuffer.wrap(mine), 0, mine.length));
            assertThat(rr.getInt(Control.HEADER + 4)).isEqualTo(mine.length);

            // a bad rkey fails the RDMA: RDMA_FAILED reply or the connection goes down, never a wrong OK
            // (not exercised here: a remote access error moves both QPs to ERROR)

            // FILL_REGION, then RDMA READ from the client sees the pattern
            ByteBuffer f = ByteBuffer.allocate(12).putInt(0, 0).putInt(4, 8192).putInt(8, 3);
            ByteBuffer fr = c.control(Control.FILL_REGION, f);
            assertThat(fr.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(3, 8192));

            // unknown command and short arguments
            assertThat(Control.status(c.control(0x55, ByteBuffer.allocate(0)), 0)).isEqualTo(Control.UNKNOWN_COMMAND);
            assertThat(Control.status(c.control(Control.WRITE_TO_PEER, ByteBuffer.allocate(4)), 0))
                    .isEqualTo(Control.BAD_REQUEST);
            c.disconnect();
        }
    }

    @Test
    void flowC0_badHeaderOrSequence_disconnectsThatConnectionOnly() throws Exception {
        try (RcTestClient ok = connected(FlowControl.TRANSPORT); RcTestClient bad = connected(FlowControl.TRANSPORT);
             RcTestClient gap = connected(FlowControl.TRANSPORT)) {
            // a Send without the 16-byte header (MID 0x00 instead of 0xFF)
            bad.tx.buffer().put(0, new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});
            bad.qp.postSend(new SendWorkRequest().set(1, WrOpcode.SEND, bad.tx, 0, 18));
            bad.awaitSend();
            // an mseq that skips one
            FlowCredits credits = gap.channel.credits();
            int posted = gap.channel.postedReceives();
            credits.onSend(posted);
            int mseq = credits.onSend(posted);
            FlowControlHeader.write(gap.tx.buffer(), 0, 0, posted, 20, mseq, credits.mseqAck());
            gap.qp.postSend(new SendWorkRequest().set(1, WrOpcode.SEND, gap.tx, 0, 20));
            gap.awaitSend();
            for (RcTestClient c : new RcTestClient[] {bad, gap}) {
                CmEvent e = c.events.poll(20, TimeUnit.SECONDS);
                assertThat(e).isInstanceOf(CmEvent.Disconnected.class);
            }
            // the other connection is unaffected
            ok.send(new byte[] {5}, false, 0);
            assertThat(ok.receive().payload()).containsExactly(5);
            ok.disconnect();
        }
    }

    @Test
    void badHello_getsConsumerReject28() throws Exception {
        try (RcTestClient c = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096)) {
            byte[] hello = Hello.of(4, FlowControl.APPLICATION, 4096, 4096, 1, clientDev.address(),
                    targetAddr).toBytes();
            hello[16] = 0x32; // MajVer 3
            CmEvent e = c.connect(targetAddr, iwarp, hello);
            assertThat(e).isInstanceOfSatisfying(CmEvent.Rejected.class, r -> assertThat(r.reason()).isEqualTo(28));
        }
    }

    @Test
    void sdpServiceId_accepted_andDisconnectCleansUp() throws Exception {
        long before = target.closedConnections();
        RcTestClient[] cs = new RcTestClient[5];
        for (int i = 0; i < cs.length; i++) {
            cs[i] = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096);
            assertThat(cs[i].connectHello(targetAddr, ServiceId.valueOf(ServiceIdScheme.SDP, PORT), 4096))
                    .isInstanceOf(CmEvent.Established.class);
        }
        for (RcTestClient c : cs) {
            c.send(new byte[] {42}, false, 0);
            assertThat(c.receive().payload()).containsExactly(42);
            c.disconnect();
            c.close();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (target.closedConnections() < before + cs.length && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        assertThat(target.closedConnections()).isGreaterThanOrEqualTo(before + cs.length);
    }

    @Test
    void rdmaCmServiceId_withCmaHeader_andLimits() throws Exception {
        InetAddress addr = InetAddress.getByName("127.0.0.43");
        try (TargetService t = TargetService.start(TargetConfig.defaults(addr).withProvider("soft").withPort(7000)
                .withSchemes(Set.of(ServiceIdScheme.RDMA_CM)).withReceives(4, 4096).withRegionSize(65536)
                .withLimits(2, 1 << 20))) {
            long sid = ServiceId.valueOf(ServiceIdScheme.RDMA_CM, 7000);
            RcTestClient a = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096, 4096);
            RcTestClient b = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096, 4096);
            RcTestClient c = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096, 4096);
            RcTestClient bad = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096, 4096);
            try {
                byte[] cma = new CmaHeader(40001, clientDev.address(), addr).toPrivateData(new byte[0]);
                assertThat(a.connect(addr, sid, cma)).isInstanceOf(CmEvent.Established.class);
                assertThat(a.reply.actualReceiveSize()).isEqualTo(4096);
                a.send(new byte[] {9, 8, 7}, true, 77);
                RcTestClient.Received r = a.receive();
                assertThat(r.payload()).containsExactly(9, 8, 7);
                assertThat(r.imm()).isEqualTo(77);
                // a Hello is not a CMA header (cma_version 0 but ip_version 0x2_): REJ 28
                byte[] hello = Hello.of(4, FlowControl.APPLICATION, 4096, 4096, 1,
                        clientDev.address(), addr).toBytes();
                assertThat(bad.connect(addr, sid, hello)).isInstanceOfSatisfying(CmEvent.Rejected.class,
                        e -> assertThat(e.reason()).isEqualTo(28));
                assertThat(b.connect(addr, sid, cma)).isInstanceOf(CmEvent.Established.class);
                // max-connections 2: the third gets REJ 28
                assertThat(c.connect(addr, sid, cma)).isInstanceOfSatisfying(CmEvent.Rejected.class,
                        e -> assertThat(e.reason()).isEqualTo(28));
                assertThat(t.rejectedConnections()).isEqualTo(2);
                a.disconnect();
                b.disconnect();
            } finally {
                a.close();
                b.close();
                c.close();
                bad.close();
            }
        }
    }

    @Test
    void memoryBudget_shrinksReceivesThenRejects() throws Exception {
        InetAddress addr = InetAddress.getByName("127.0.0.57");
        long budget = (8 * 4096 + 16) + (4 * 4096 + 16) + 100;
        try (TargetService t = TargetService.start(TargetConfig.defaults(addr).withProvider("soft")
                .withReceives(8, 4096).withRegionSize(65536).withLimits(100, budget))) {
            long sid = ServiceId.valueOf(ServiceIdScheme.IWARP, TargetConfig.DEFAULT_PORT);
            RcTestClient a = new RcTestClient(clientDev, FlowControl.TRANSPORT, 4, 4096, 4096);
            RcTestClient b = new RcTestClient(clientDev, FlowControl.TRANSPORT, 4, 4096, 4096);
            RcTestClient c = new RcTestClient(clientDev, FlowControl.TRANSPORT, 4, 4096, 4096);
            try {
                assertThat(a.connectHello(addr, sid, 4096)).isInstanceOf(CmEvent.Established.class);
                assertThat(a.reply.bufs()).isEqualTo(8);
                assertThat(b.connectHello(addr, sid, 4096)).isInstanceOf(CmEvent.Established.class);
                assertThat(b.reply.bufs()).isEqualTo(4);
                for (int i = 0; i < 10; i++) {          // fewer receives, credits still cycle
                    b.send(new byte[] {(byte) i}, false, 0);
                    assertThat(b.receive().payload()).containsExactly(i);
                }
                assertThat(c.connectHello(addr, sid, 4096)).isInstanceOfSatisfying(CmEvent.Rejected.class,
                        e -> assertThat(e.reason()).isEqualTo(28));
                a.disconnect();
                b.disconnect();
            } finally {
                a.close();
                b.close();
                c.close();
            }
        }
    }

    @Test
    void manyConcurrentConnections_eachEchoes_thenAllCleanUp() throws Exception {
        long before = target.closedConnections();
        int n = 300;
        RcTestClient[] cs = new RcTestClient[n];
        try {
            for (int i = 0; i < n; i++) {
                cs[i] = new RcTestClient(clientDev, FlowControl.TRANSPORT, 3, 256, 256);
                assertThat(cs[i].connectHello(targetAddr, iwarp, 256)).isInstanceOf(CmEvent.Established.class);
            }
            assertThat(target.activeConnections()).isGreaterThanOrEqualTo(n);
            for (int i = 0; i < n; i++) {
                byte[] p = pattern(64, i);
                cs[i].send(p, false, 0);
                assertThat(cs[i].receive().payload()).isEqualTo(p);
            }
            for (RcTestClient c : cs) {
                c.disconnect();
            }
        } finally {
            for (RcTestClient c : cs) {
                if (c != null) {
                    c.close();
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (target.closedConnections() < before + n && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        assertThat(target.closedConnections()).isGreaterThanOrEqualTo(before + n);
    }

    @ParameterizedTest
    @EnumSource(FlowControl.class)
    void echoPath_allocatesNothingPerMessage_onTheServiceLoop(FlowControl fc) throws Exception {
        Thread loop = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("target-loop-" + TARGET_IP)).findFirst().orElseThrow();
        var tmx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (RcTestClient c = connected(fc)) {
            byte[] p = pattern(64, 1);
            for (int i = 0; i < 6000; i++) {            // warm-up: until the JIT has compiled the send path (FFM calls allocate until then)
                c.send(p, i % 2 == 0, i);
                c.receive();
            }
            int n = 3000;
            long before = tmx.getThreadAllocatedBytes(loop.threadId());
            for (int i = 0; i < n; i++) {
                c.send(p, i % 2 == 0, i);
                c.receive();
            }
            long perMessage = (tmx.getThreadAllocatedBytes(loop.threadId()) - before) / n;
            assertThat(perMessage).as("bytes allocated per echo on the service loop").isLessThan(8);
            c.disconnect();
        }
    }

    @Test
    void unknownPort_isRejectedByTheCm() throws Exception {
        try (RcTestClient c = new RcTestClient(clientDev, FlowControl.APPLICATION, 4, 4096)) {
            CmEvent e = c.connectHello(targetAddr, ServiceId.valueOf(ServiceIdScheme.IWARP, PORT + 1), 4096);
            assertThat(e).isInstanceOfSatisfying(CmEvent.Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(CmEvent.REJ_INVALID_SERVICE_ID));
        }
    }
}

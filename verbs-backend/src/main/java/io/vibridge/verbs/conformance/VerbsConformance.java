package io.vibridge.verbs.conformance;

import com.sun.management.ThreadMXBean;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.zip.CRC32;

/**
 * The verbs SPI's conformance scenarios, written once against the SPI so they run on any provider: two RC queue
 * pairs of one device connected out of band, SEND/RECV 64 B..64 KiB with checksums, SEND with immediate, RDMA
 * WRITE (+IMM), RDMA READ, RNR (no receive posted), a bad rkey, QP to error and the flush, query_qp, CQ notify,
 * CQ moderation as stated, no allocation per work request; and optionally quick SEND/WRITE bandwidth and SEND latency figures. Each
 * scenario prints {@code PASS name}, {@code FAIL name: why} or {@code SKIP name: why}; {@link #run} returns the
 * result. Used by {@link ConformanceMain} in the VM (rdma-core on rxe0/siw0) and by a unit test on the soft provider.
 */
public final class VerbsConformance {
    static final Set<Access> ALL = EnumSet.allOf(Access.class);
    static final int BUF = 1 << 20;
    static final int DEPTH = 128;
    private final VerbsDevice device;
    private final PrintStream out;
    private final long timeoutMs;
    private final List<String> failures = new ArrayList<>();
    private int passed;
    private int skipped;
    private ProtectionDomain pd;

    public VerbsConformance(VerbsDevice device, PrintStream out, long timeoutMs) {
        this.device = device;
        this.out = out;
        this.timeoutMs = timeoutMs;
    }

    /** Outcome: counts and the failure lines. */
    public record Result(int passed, int failed, int skipped, List<String> failures) {
    }

    /** A scenario: throws (AssertionError or any exception) to fail, {@link Skip} to skip. */
    interface Scenario {
        String run() throws Exception;
    }

    static final class Skip extends RuntimeException {
        Skip(String why) {
            super(why, null, false, false);
        }
    }

    /** Runs the scenarios whose names {@code only} accepts; {@code bench} adds the figures. */
    public Result run(Predicate<String> only, boolean bench) {
        pd = device.allocateProtectionDomain();
        try {
            scenario(only, "device-basics", this::deviceBasics);
            scenario(only, "qp-error-flush", this::flush);
            scenario(only, "oob-connect", () -> {
                try (Pair p = pair()) {
                    return "QPs " + p.a.qpNum() + " <-> " + p.b.qpNum() + " RTS" + (p.viaCm ? " through the CM" : "")
                            + ", MTU " + p.a.pathMtu();
                }
            });
            scenario(only, "send-recv-checksums", this::sendRecv);
            scenario(only, "send-with-imm", this::sendImm);
            scenario(only, "rdma-write", () -> write(false));
            scenario(only, "rdma-write-imm", () -> write(true));
            scenario(only, "rdma-read", this::read);
            scenario(only, "rnr-no-receive", this::rnr);
            scenario(only, "bad-rkey", this::badRkey);
            scenario(only, "query-qp", this::queryQp);
            scenario(only, "cq-notify", this::notifyScenario);
            scenario(only, "cq-moderation-capability", this::moderation);
            scenario(only, "no-allocation-per-wr", this::noAllocation);
            scenario(only, "cm-connect-accept-disconnect", this::cmConnect);
            scenario(only, "cm-reject", this::cmReject);
            if (bench) {
                scenario(only, "bw-send-64k", () -> bandwidth(WrOpcode.SEND));
                scenario(only, "bw-write-64k", () -> bandwidth(WrOpcode.RDMA_WRITE));
                scenario(only, "lat-send-8b", this::latency);
            }
        } finally {
            pd.close();
        }
        out.printf("%d passed, %d failed, %d skipped%n", passed, failures.size(), skipped);
        out.flush();
        return new Result(passed, failures.size(), skipped, List.copyOf(failures));
    }

    private void scenario(Predicate<String> only, String name, Scenario s) {
        if (!only.test(name)) {
            return;
        }
        long t0 = System.nanoTime();
        try {
            String detail = s.run();
            passed++;
            out.printf("PASS %s%s (%d ms)%n", name, detail == null || detail.isEmpty() ? "" : ": " + detail,
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (Skip e) {
            skipped++;
            out.printf("SKIP %s: %s%n", name, e.getMessage());
        } catch (Throwable e) {
            String line = "FAIL " + name + ": " + String.valueOf(e.getMessage()).replace('\n', ' ')
                    + (e instanceof AssertionError ? "" : " (" + e.getClass().getSimpleName() + ")");
            failures.add(line);
            out.println(line);
        }
        out.flush();
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    // ---- fixtures ----------------------------------------------------------------------------------------

    /** Two connected QPs, each with its own CQ and a 1 MiB region. */
    final class Pair implements AutoCloseable {
        final CompletionQueue cqA = device.createCompletionQueue(2 * DEPTH);
        final CompletionQueue cqB = device.createCompletionQueue(2 * DEPTH);
        final QueuePair a = pd.createQueuePair(QpInitAttributes.of(cqA, DEPTH));
        final QueuePair b = pd.createQueuePair(QpInitAttributes.of(cqB, DEPTH));
        final MemoryRegion ma = pd.registerMemory(ByteBuffer.allocateDirect(BUF), ALL);
        final MemoryRegion mb = pd.registerMemory(ByteBuffer.allocateDirect(BUF), ALL);

        ConnectionManager.CmListener listener;
        boolean viaCm;

        void connect(boolean noRnrRetry) {
            int mtu = Math.min(4096, device.maxPathMtu());
            QpConnection ab = QpConnection.of(device.address(), b.qpNum(), 100, 200, mtu).withReadDepth(4, 4);
            QpConnection ba = QpConnection.of(device.address(), a.qpNum(), 200, 100, mtu).withReadDepth(4, 4);
            a.connect(noRnrRetry ? ab.withRetries(7, 0, 14) : ab);
            b.connect(ba);
        }

        /** Without out-of-band connect (iWARP): through the provider's CM, both sides on this device. */
        void connectThroughCm(ConnectionManager cm, boolean noRnrRetry) throws InterruptedException {
            viaCm = true;
            long sid = CM_SID + 16 + (pairs++ & 0xFF);
            BlockingQueue<CmEvent> passive = new LinkedBlockingQueue<>();
            BlockingQueue<CmEvent> active = new LinkedBlockingQueue<>();
            listener = cm.listen(sid, passive::add, null);
            ConnectParams cp = ConnectParams.defaults(device.address(), sid, new byte[0]).withReadDepth(4, 4);
            cm.connect(noRnrRetry ? cp.withRetries(7, 0) : cp, a, active::add, null);
            var cr = (CmEvent.ConnectRequest) await(passive, CmEvent.ConnectRequest.class);
            // the REP carries the active QP's RNR retry count (IBA 12.7.30; rdma_cm: rdma_accept's rnr_retry_count)
            cr.id().accept(b, AcceptParams.defaults(null).withRnr(noRnrRetry ? 0 : 7, 12));
            await(active, CmEvent.Established.class);
            await(passive, CmEvent.Established.class);
        }

        @Override
        public void close() {
            if (listener != null) {
                listener.close();
            }
            a.close();
            b.close();
            ma.close();
            mb.close();
            cqA.close();
            cqB.close();
        }
    }

    static WorkCompletion[] newWcs(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion();
        }
        return w;
    }

    private int pairs;
    private boolean cmPairs;

    /** Connects the scenario pairs through the CM even where out-of-band connect exists (tests the CM path). */
    public VerbsConformance withCmPairs() {
        cmPairs = true;
        return this;
    }

    /** Two connected QPs: out of band where the device can, else through its CM (iWARP), else skipped. */
    private Pair pair(boolean noRnrRetry) throws InterruptedException {
        boolean oob = !cmPairs && device.capabilities().contains(Capability.OUT_OF_BAND_CONNECT);
        ConnectionManager cm = null;
        if (!oob) {
            try {
                cm = device.connectionManager();
            } catch (UnsupportedOperationException e) {
                throw new Skip(device.name() + " has no OUT_OF_BAND_CONNECT and no CM (" + e.getMessage() + ")");
            }
        }
        Pair p = new Pair();
        try {
            if (oob) {
                p.connect(noRnrRetry);
            } else {
                p.connectThroughCm(cm, noRnrRetry);
            }
        } catch (RuntimeException | Error | InterruptedException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private Pair pair() throws InterruptedException {
        return pair(false);
    }

    /** The next completion on {@code cq} within the timeout (a copy). */
    private WorkCompletion next(CompletionQueue cq) {
        WorkCompletion[] one = newWcs(1);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            if (cq.poll(one) == 1) {
                return one[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + timeoutMs + " ms");
    }

    private static SendWorkRequest send(long id, WrOpcode op, MemoryRegion m, int off, int len) {
        return new SendWorkRequest().set(id, op, m, off, len);
    }

    private static long fill(MemoryRegion m, int off, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        ByteBuffer b = m.buffer();
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) r.nextInt());
        }
        return crc(m, off, len);
    }

    private static long crc(MemoryRegion m, int off, int len) {
        CRC32 c = new CRC32();
        c.update(m.buffer().duplicate().position(off).limit(off + len));
        return c.getValue();
    }

    private static void expect(WorkCompletion wc, WcStatus status, WcOpcode op, String what) {
        check(wc.status == status, what + ": status " + wc.status + ", expected " + status + " (" + wc + ")");
        if (status == WcStatus.SUCCESS && op != null) {
            check(wc.opcode == op, what + ": opcode " + wc.opcode + ", expected " + op);
        }
    }

    // ---- scenarios ---------------------------------------------------------------------------------------

    private String deviceBasics() {
        check(device.gid().length == 16, "gid is 16 bytes");
        check(device.maxPathMtu() >= 256 && device.maxPathMtu() <= 4096, "maxPathMtu " + device.maxPathMtu());
        try (CompletionQueue cq = device.createCompletionQueue(16);
             MemoryRegion m = pd.registerMemory(ByteBuffer.allocateDirect(4096), ALL);
             QueuePair qp = pd.createQueuePair(QpInitAttributes.of(cq, 8))) {
            check(qp.state() == QpState.INIT, "a new QP is INIT, got " + qp.state());
            check(qp.qpNum() > 0, "QP number " + qp.qpNum());  // IB: never 0 or 1 (QP0/QP1); siw starts at 1
            check(m.lkey() != 0 || m.rkey() != 0, "keys");
            check(cq.poll(newWcs(4)) == 0, "a new CQ is empty");
            return device.providerName() + " " + device.name() + ", caps " + device.capabilities() + ", MTU "
                    + device.maxPathMtu() + ", QP " + qp.qpNum() + " INIT";
        }
    }

    private String flush() {
        try (CompletionQueue cq = device.createCompletionQueue(16);
             MemoryRegion m = pd.registerMemory(ByteBuffer.allocateDirect(4096), ALL);
             QueuePair qp = pd.createQueuePair(QpInitAttributes.of(cq, 8))) {
            ReceiveWorkRequest r = new ReceiveWorkRequest();
            for (int i = 0; i < 4; i++) {
                qp.postRecv(r.set(10 + i, m, i * 1024, 1024));
            }
            qp.toError();
            check(qp.state() == QpState.ERROR, "state after toError: " + qp.state());
            for (int i = 0; i < 4; i++) {
                WorkCompletion wc = next(cq);
                check(wc.status == WcStatus.WR_FLUSH_ERROR && wc.wrId == 10 + i,
                        "receive " + i + " flushed in order, got " + wc);
            }
            return "4 receives flushed";
        }
    }

    private String sendRecv() throws InterruptedException {
        try (Pair p = pair()) {
            int n = 0;
            for (int len = 64; len <= 65536; len *= 4) {
                int off = 4096;
                p.mb.buffer().put(off, new byte[len]);
                p.b.postRecv(new ReceiveWorkRequest().set(len, p.mb, off, len));
                long sum = fill(p.ma, 0, len, len);
                p.a.postSend(send(len, WrOpcode.SEND, p.ma, 0, len));
                expect(next(p.cqA), WcStatus.SUCCESS, WcOpcode.SEND, "send " + len);
                WorkCompletion r = next(p.cqB);
                expect(r, WcStatus.SUCCESS, WcOpcode.RECV, "recv " + len);
                check(r.byteLength == len, "recv " + len + ": byteLength " + r.byteLength);
                check(r.wrId == len, "recv wrId");
                check(crc(p.mb, off, len) == sum, "recv " + len + ": checksum differs");
                n++;
            }
            return n + " sizes 64 B..64 KiB, checksums equal";
        }
    }

    private String sendImm() throws InterruptedException {
        try (Pair p = pair()) {
            p.b.postRecv(new ReceiveWorkRequest().set(1, p.mb, 0, 256));
            fill(p.ma, 0, 100, 7);
            postOrSkip(p.a, send(2, WrOpcode.SEND_WITH_IMM, p.ma, 0, 100).immediate(0x12345678));
            expect(next(p.cqA), WcStatus.SUCCESS, WcOpcode.SEND, "send");
            WorkCompletion r = next(p.cqB);
            expect(r, WcStatus.SUCCESS, WcOpcode.RECV, "recv");
            check(r.hasImmediate && r.immediate == 0x12345678, "immediate: " + r);
            check(r.byteLength == 100, "byteLength " + r.byteLength);
            return "imm 0x12345678";
        }
    }

    private String write(boolean imm) throws InterruptedException {
        try (Pair p = pair()) {
            int len = 65536;
            int dst = 8192;
            long sum = fill(p.ma, 0, len, 11);
            if (imm) {
                p.b.postRecv(new ReceiveWorkRequest().set(5, p.mb, 0, 0));
            }
            SendWorkRequest w = send(3, imm ? WrOpcode.RDMA_WRITE_WITH_IMM : WrOpcode.RDMA_WRITE, p.ma, 0, len)
                    .remote(p.mb.address() + dst, p.mb.rkey());
            postOrSkip(p.a, imm ? w.immediate(0xCAFE) : w);
            expect(next(p.cqA), WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, "write");
            if (imm) {
                WorkCompletion r = next(p.cqB);
                expect(r, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, "write imm receive");
                check(r.hasImmediate && r.immediate == 0xCAFE, "immediate: " + r);
                check(r.byteLength == len, "byteLength " + r.byteLength);
            } else {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
                while (crc(p.mb, dst, len) != sum && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
            check(crc(p.mb, dst, len) == sum, "written memory differs");
            return "64 KiB" + (imm ? " + imm" : "") + ", checksum equal";
        }
    }

    private String read() throws InterruptedException {
        try (Pair p = pair()) {
            int len = 65536;
            long sum = fill(p.mb, 4096, len, 13);
            p.a.postSend(send(4, WrOpcode.RDMA_READ, p.ma, 100, len).remote(p.mb.address() + 4096, p.mb.rkey()));
            expect(next(p.cqA), WcStatus.SUCCESS, WcOpcode.RDMA_READ, "read");
            check(crc(p.ma, 100, len) == sum, "read memory differs");
            return "64 KiB, checksum equal";
        }
    }

    /** Posts, or skips the scenario when the provider says the operation does not exist on this device. */
    private static void postOrSkip(QueuePair qp, SendWorkRequest wr) {
        try {
            qp.postSend(wr);
        } catch (UnsupportedOperationException e) {
            throw new Skip(e.getMessage());
        }
    }

    /** iWARP (RDMAP over DDP/MPA/TCP): no RNR NAK, no per-WRITE acknowledgement (the provider says so). */
    private boolean iwarp() {
        return "iWARP".equals(device.properties().get("transport"));
    }

    private String rnr() throws InterruptedException {
        if (iwarp()) {
            throw new Skip("iWARP has no RNR NAK: a SEND without a receive completes at the sender and the "
                    + "receiver terminates the connection (a DDP error, RFC 5041)");
        }
        try (Pair p = pair(true)) {
            p.a.postSend(send(6, WrOpcode.SEND, p.ma, 0, 64));
            WorkCompletion wc = next(p.cqA);
            expect(wc, WcStatus.RNR_RETRY_EXCEEDED, null, "send without a receive, rnr_retry 0");
            return "RNR_RETRY_EXCEEDED";
        }
    }

    private String badRkey() throws InterruptedException {
        if (iwarp()) {
            throw new Skip("iWARP WRITEs are not acknowledged: a bad STag is answered by a TERMINATE after the "
                    + "WRITE completed at the sender (RDMAP, RFC 5040), no REMOTE_ACCESS_ERROR completion");
        }
        try (Pair p = pair()) {
            p.a.postSend(send(7, WrOpcode.RDMA_WRITE, p.ma, 0, 64).remote(p.mb.address(), p.mb.rkey() ^ 0x5A5A00));
            WorkCompletion wc = next(p.cqA);
            expect(wc, WcStatus.REMOTE_ACCESS_ERROR, null, "write with a bad rkey");
            return "REMOTE_ACCESS_ERROR";
        }
    }

    private String queryQp() throws InterruptedException {
        try (Pair p = pair()) {
            QpInfo a = p.a.info();
            QpInfo b = p.b.info();
            check(a.state() == QpState.RTS && b.state() == QpState.RTS, "states " + a.state() + "/" + b.state());
            check(a.qpn() == p.a.qpNum(), "qpn");
            if (a.remoteQpn() != QpInfo.UNKNOWN) {
                check(a.remoteQpn() == p.b.qpNum() && b.remoteQpn() == p.a.qpNum(), "remote QPNs " + a + " " + b);
            }
            if (a.sendPsn() != QpInfo.UNKNOWN && !p.viaCm) {       // the CM chooses its own PSNs
                check(a.sendPsn() == 100 && a.expectedPsn() == 200, "PSNs of A: " + a);
            }
            check(p.viaCm || a.pathMtu() == Math.min(4096, device.maxPathMtu()), "path MTU " + a.pathMtu());
            return "RTS, qpn " + a.qpn() + " -> " + a.remoteQpn() + ", sq_psn " + a.sendPsn() + ", rq_psn "
                    + a.expectedPsn() + ", MTU " + a.pathMtu();
        }
    }

    private String notifyScenario() throws InterruptedException {
        try (Pair p = pair()) {
            CountDownLatch fired = new CountDownLatch(1);
            p.cqB.onNotify(fired::countDown, null);
            p.cqB.requestNotify(false);
            check(!fired.await(50, TimeUnit.MILLISECONDS), "notified with nothing completed");
            p.b.postRecv(new ReceiveWorkRequest().set(1, p.mb, 0, 64));
            p.a.postSend(send(1, WrOpcode.SEND, p.ma, 0, 64));
            check(fired.await(timeoutMs, TimeUnit.MILLISECONDS), "no notification for a receive");
            expect(next(p.cqB), WcStatus.SUCCESS, WcOpcode.RECV, "recv after notify");
            // a completion already waiting when the CQ is armed raises the notification at once (SPI)
            p.b.postRecv(new ReceiveWorkRequest().set(2, p.mb, 0, 64));
            p.a.postSend(send(2, WrOpcode.SEND, p.ma, 0, 64));
            expect(next(p.cqA), WcStatus.SUCCESS, WcOpcode.SEND, "send");
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            CountDownLatch again = new CountDownLatch(1);
            Thread.sleep(20);   // let the receive complete before arming
            p.cqB.onNotify(again::countDown, null);
            p.cqB.requestNotify(false);
            check(again.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                    TimeUnit.MILLISECONDS), "no notification for a completion waiting at arm time");
            WorkCompletion r = next(p.cqB);
            check(r.wrId == 2, "the waiting completion is still polled: " + r);
            return "armed: fired once per arm, also for a waiting completion";
        }
    }

    /** CQ_MODERATION is stated honestly: moderate works with it and throws UnsupportedOperationException without. */
    private String moderation() {
        boolean claimed = device.capabilities().contains(Capability.CQ_MODERATION);
        try (CompletionQueue cq = device.createCompletionQueue(16)) {
            try {
                cq.moderate(4, 100);
                cq.moderate(1, 0);
                check(claimed, "moderate worked without CQ_MODERATION");
                return "CQ_MODERATION: moderate(4, 100) accepted";
            } catch (UnsupportedOperationException e) {
                check(!claimed, "CQ_MODERATION stated but moderate refused: " + e.getMessage());
                return "no CQ_MODERATION: moderate refused (" + e.getMessage() + ")";
            }
        }
    }

    private static final long CM_SID = 0x0000000001060000L | 7471;

    private ConnectionManager cmOrSkip() {
        try {
            return device.connectionManager();
        } catch (UnsupportedOperationException e) {
            throw new Skip("no connection manager: " + e.getMessage());
        }
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    private static boolean startsWith(byte[] data, byte[] prefix) {
        return data.length >= prefix.length
                && Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length);
    }

    private CmEvent await(BlockingQueue<CmEvent> q, Class<? extends CmEvent> type) throws InterruptedException {
        CmEvent e = q.poll(timeoutMs, TimeUnit.MILLISECONDS);
        check(e != null, "no " + type.getSimpleName() + " within " + timeoutMs + " ms");
        check(type.isInstance(e), "expected " + type.getSimpleName() + ", got " + e);
        return e;
    }

    /** REQ private data (40 B) reaches the listener, REP private data (100 B) the active side; SEND; DREQ. */
    private String cmConnect() throws InterruptedException {
        ConnectionManager cm = cmOrSkip();
        BlockingQueue<CmEvent> passive = new LinkedBlockingQueue<>();
        BlockingQueue<CmEvent> activeq = new LinkedBlockingQueue<>();
        byte[] req = pattern(40, 1);
        byte[] rep = pattern(100, 2);
        try (ConnectionManager.CmListener l = cm.listen(CM_SID, passive::add, null);
             CompletionQueue cqA = device.createCompletionQueue(64);
             CompletionQueue cqB = device.createCompletionQueue(64);
             QueuePair a = pd.createQueuePair(QpInitAttributes.of(cqA, 16));
             QueuePair b = pd.createQueuePair(QpInitAttributes.of(cqB, 16));
             MemoryRegion ma = pd.registerMemory(ByteBuffer.allocateDirect(4096), ALL);
             MemoryRegion mb = pd.registerMemory(ByteBuffer.allocateDirect(4096), ALL)) {
            b.postRecv(new ReceiveWorkRequest().set(9, mb, 0, 1024));
            CmId active = cm.connect(ConnectParams.defaults(device.address(), CM_SID, req).withReadDepth(3, 2), a,
                    activeq::add, null);
            var cr = (CmEvent.ConnectRequest) await(passive, CmEvent.ConnectRequest.class);
            check(startsWith(cr.privateData(), req), "REQ private data differs: " + cr.privateData().length + " B");
            check(cr.serviceId() == CM_SID, "service id 0x" + Long.toHexString(cr.serviceId()));
            check(cr.responderResources() == 3 && cr.initiatorDepth() == 2, "the REQ's read depths 3/2 arrive as "
                    + cr.responderResources() + "/" + cr.initiatorDepth());
            cr.id().accept(b, AcceptParams.defaults(rep));
            var est = (CmEvent.Established) await(activeq, CmEvent.Established.class);
            check(startsWith(est.privateData(), rep), "REP private data differs: " + est.privateData().length + " B");
            await(passive, CmEvent.Established.class);
            check(a.state() == QpState.RTS, "active QP " + a.state());
            a.postSend(send(1, WrOpcode.SEND, ma, 0, 512));
            expect(next(cqA), WcStatus.SUCCESS, WcOpcode.SEND, "send over the CM connection");
            expect(next(cqB), WcStatus.SUCCESS, WcOpcode.RECV, "receive over the CM connection");
            active.disconnect();
            await(passive, CmEvent.Disconnected.class);
            CmEvent e = activeq.poll(timeoutMs, TimeUnit.MILLISECONDS);
            check(e instanceof CmEvent.Disconnected, "active side after DREQ: " + e);
            check(a.state() == QpState.ERROR && b.state() == QpState.ERROR, "QPs after disconnect: " + a.state()
                    + "/" + b.state());
            return "REQ " + cr.privateData().length + " B (40 ours), REP " + est.privateData().length
                    + " B (100 ours), read depths " + cr.responderResources() + "/" + cr.initiatorDepth()
                    + ", SEND, DREQ both sides";
        }
    }

    /** A REJ with 30 bytes of private data reaches the active side as Rejected(28). */
    private String cmReject() throws InterruptedException {
        ConnectionManager cm = cmOrSkip();
        BlockingQueue<CmEvent> passive = new LinkedBlockingQueue<>();
        BlockingQueue<CmEvent> activeq = new LinkedBlockingQueue<>();
        byte[] rej = pattern(30, 3);
        try (ConnectionManager.CmListener l = cm.listen(CM_SID + 1, passive::add, null);
             CompletionQueue cqA = device.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpInitAttributes.of(cqA, 8))) {
            cm.connect(ConnectParams.defaults(device.address(), CM_SID + 1, pattern(8, 4)), a, activeq::add, null);
            var cr = (CmEvent.ConnectRequest) await(passive, CmEvent.ConnectRequest.class);
            cr.id().reject(rej);
            var r = (CmEvent.Rejected) await(activeq, CmEvent.Rejected.class);
            check(r.reason() == CmEvent.REJ_CONSUMER, "reason " + r.reason());
            check(startsWith(r.privateData(), rej), "REJ private data differs: " + r.privateData().length + " B");
            return "Rejected(28) with " + r.privateData().length + " B (30 ours)";
        }
    }

    /** Thread-allocated bytes over many post/poll rounds after a warm-up: nothing per work request. */
    private String noAllocation() throws InterruptedException {
        var bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof ThreadMXBean mx) || !mx.isThreadAllocatedMemorySupported()) {
            throw new Skip("no thread allocation counter in this JVM");
        }
        mx.setThreadAllocatedMemoryEnabled(true);
        try (Pair p = pair()) {
            SendWorkRequest s = send(0, WrOpcode.SEND, p.ma, 0, 64);
            SendWorkRequest w = send(0, WrOpcode.RDMA_WRITE, p.ma, 0, 64).remote(p.mb.address(), p.mb.rkey());
            ReceiveWorkRequest r = new ReceiveWorkRequest().set(0, p.mb, 0, 64);
            WorkCompletion[] wcs = newWcs(8);
            rounds(p, s, w, r, wcs, 2_000);                       // warm up (JIT)
            long tid = Thread.currentThread().threadId();
            long before = mx.getThreadAllocatedBytes(tid);
            int n = 5_000;
            rounds(p, s, w, r, wcs, n);
            long bytes = mx.getThreadAllocatedBytes(tid) - before;
            // 3 work requests and 3 completions per round: one allocation each would be >= 15,000 x 16 bytes
            check(bytes < 8_192, bytes + " bytes allocated by " + n + " rounds of post send+write+recv and poll");
            return bytes + " bytes over " + (3 * n) + " work requests";
        }
    }

    private void rounds(Pair p, SendWorkRequest s, SendWorkRequest w, ReceiveWorkRequest r, WorkCompletion[] wcs,
                        int n) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs * 10);
        for (int i = 0; i < n; i++) {
            r.wrId = i;
            p.b.postRecv(r);
            s.wrId = i;
            p.a.postSend(s);
            w.wrId = i;
            p.a.postSend(w);
            int sends = 0;
            int recvs = 0;
            while (sends < 2 || recvs < 1) {
                int k = p.cqA.poll(wcs);
                for (int j = 0; j < k; j++) {
                    check(wcs[j].status == WcStatus.SUCCESS, "round completion");
                }
                sends += k;
                k = p.cqB.poll(wcs);
                recvs += k;
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("rounds stalled");
                }
            }
        }
    }

    /** 64 KiB SEND or WRITE, up to {@code DEPTH/2} outstanding, as ib_send_bw/ib_write_bw (1000 iterations). */
    private String bandwidth(WrOpcode op) throws InterruptedException {
        try (Pair p = pair()) {
            int len = 65536;
            int iters = 1000;
            int window = DEPTH / 2;
            int slots = BUF / len;
            SendWorkRequest wr = new SendWorkRequest();
            ReceiveWorkRequest rr = new ReceiveWorkRequest();
            WorkCompletion[] wcs = newWcs(16);
            boolean send = op == WrOpcode.SEND;
            if (send) {
                for (int i = 0; i < Math.min(DEPTH, iters); i++) {
                    p.b.postRecv(rr.set(i, p.mb, (i % slots) * len, len));
                }
            }
            int posted = 0;
            int done = 0;
            int recvPosted = send ? Math.min(DEPTH, iters) : 0;
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.SECONDS.toNanos(120);
            while (done < iters) {
                while (posted < iters && posted - done < window) {
                    wr.set(posted, op, p.ma, (posted % slots) * len, len);
                    if (!send) {
                        wr.remote(p.mb.address() + (long) (posted % slots) * len, p.mb.rkey());
                    }
                    p.a.postSend(wr);
                    posted++;
                }
                int k = p.cqA.poll(wcs);
                for (int j = 0; j < k; j++) {
                    if (wcs[j].status != WcStatus.SUCCESS) {
                        throw new AssertionError("completion " + wcs[j]);
                    }
                }
                done += k;
                if (send) {
                    int rk = p.cqB.poll(wcs);
                    for (int j = 0; j < rk && recvPosted < iters; j++) {
                        p.b.postRecv(rr.set(recvPosted, p.mb, (recvPosted % slots) * len, len));
                        recvPosted++;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("bandwidth run stalled at " + done);
                }
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            double mbps = iters * (double) len / secs / (1 << 20);    // perftest's MB/sec are MiB/s
            return String.format(Locale.ROOT, "%d x 64 KiB in %.3f s: %.2f MiB/s (BW_MBPS %.2f)", iters, secs, mbps,
                    mbps);
        }
    }

    /**
     * 8-byte SEND ping-pong, one-way latency = RTT / 2, as ib_send_lat (1000 iterations, typical = median): one
     * thread per end, each busy-polling its own CQ, as perftest's two processes do.
     */
    private String latency() throws InterruptedException {
        try (Pair p = pair()) {
            int iters = 1000;
            SendWorkRequest sa = send(0, WrOpcode.SEND, p.ma, 0, 8);
            SendWorkRequest sb = send(0, WrOpcode.SEND, p.mb, 0, 8);
            ReceiveWorkRequest ra = new ReceiveWorkRequest().set(0, p.ma, 4096, 8);
            ReceiveWorkRequest rb = new ReceiveWorkRequest().set(0, p.mb, 4096, 8);
            WorkCompletion[] wcs = newWcs(4);
            long[] rtt = new long[iters];
            for (int i = 0; i < 16; i++) {
                p.a.postRecv(ra);
                p.b.postRecv(rb);
            }
            AtomicBoolean done = new AtomicBoolean();
            Thread echo = Thread.ofPlatform().daemon().name("lat-echo").start(() -> {
                WorkCompletion[] bw = newWcs(4);
                while (awaitRecv(p.cqB, bw, done)) {
                    p.b.postRecv(rb);
                    p.b.postSend(sb);
                }
            });
            int warm = 0;
            try {
                // warm-up until the path is compiled (C2 after some 10^4 calls; perftest, in C, needs none): 3 s or
                // 20,000 round trips, whichever ends first (under the VM's emulation the time bound ends it)
                long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                for (; warm < 20_000 && System.nanoTime() < warmEnd; warm++) {
                    roundTrip(p, sa, ra, wcs);
                }
                for (int i = 0; i < iters; i++) {
                    long t0 = System.nanoTime();
                    roundTrip(p, sa, ra, wcs);
                    rtt[i] = System.nanoTime() - t0;
                }
            } finally {
                done.set(true);
                echo.join(timeoutMs);
            }
            Arrays.sort(rtt);
            double typical = rtt[iters / 2] / 2000.0;
            double avg = Arrays.stream(rtt).average().orElse(0) / 2000.0;
            return String.format(Locale.ROOT, "%d iterations after %d to warm up, one thread per end: typical %.2f us, "
                    + "average %.2f us (LAT_US %.2f)", iters, warm, typical, avg, typical);
        }
    }

    /** A sends 8 B to B's echo thread and waits for the answer; reposts its receive. */
    private void roundTrip(Pair p, SendWorkRequest sa, ReceiveWorkRequest ra, WorkCompletion[] wcs) {
        p.a.postSend(sa);
        waitRecv(p.cqA, wcs);
        p.a.postRecv(ra);
    }

    /** The echo end: polls until a receive completes (true) or {@code done} is set (false). */
    private static boolean awaitRecv(CompletionQueue cq, WorkCompletion[] wcs,
                                     AtomicBoolean done) {
        while (!done.get()) {
            int k = cq.poll(wcs);
            for (int j = 0; j < k; j++) {
                if (wcs[j].status != WcStatus.SUCCESS) {
                    return false;                         // the main thread's wait times out and says so
                }
                if (wcs[j].opcode == WcOpcode.RECV) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Polls until a receive completes, consuming send completions on the way. */
    private void waitRecv(CompletionQueue cq, WorkCompletion[] wcs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            int k = cq.poll(wcs);
            for (int j = 0; j < k; j++) {
                if (wcs[j].status != WcStatus.SUCCESS) {
                    throw new AssertionError("latency completion " + wcs[j]);
                }
                if (wcs[j].opcode == WcOpcode.RECV) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("latency ping-pong stalled");
            }
        }
    }
}

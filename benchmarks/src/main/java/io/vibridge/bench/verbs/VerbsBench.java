package io.vibridge.bench.verbs;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmark between two processes (not a test): 8-byte SEND round trip, 64 KiB SEND and RDMA WRITE
 * bandwidth, and a raw UDP 4 KiB datagram baseline in the same run. {@code --role orchestrate} (default)
 * starts the server role in a child JVM itself, so one command runs everything.
 */
@Command(name = "verbs-bench", mixinStandardHelpOptions = true,
        description = "Soft RoCEv2 verbs benchmark: SEND latency, SEND/WRITE bandwidth vs a raw UDP baseline.")
public final class VerbsBench implements Callable<Integer> {
    static final long SID = 0x0000000001060000L + 18515;
    static final int UDP_BASELINE_PORT = 4800;
    static final long SETUP_SID = SID + 1;
    static final int RECV_DEPTH = 16;

    @Option(names = "--role", description = "orchestrate | server | client (default: ${DEFAULT-VALUE})")
    String role = "orchestrate";
    // clear of the tests' soft devices (127.0.0.2-150) and of benchmarks/compare's (127.0.0.200-203)
    @Option(names = "--server-ip", description = "server device address (default: ${DEFAULT-VALUE})")
    String serverIp = "127.0.0.210";
    @Option(names = "--client-ip", description = "client device address (default: ${DEFAULT-VALUE})")
    String clientIp = "127.0.0.211";
    @Option(names = "--provider", description = "verbs provider name (default: automatic)")
    String provider;
    @Option(names = "--pingpongs", description = "round trips measured (default: ${DEFAULT-VALUE})")
    int pingpongs = 20_000;
    @Option(names = "--messages", description = "64 KiB messages per bandwidth run (default: ${DEFAULT-VALUE})")
    int messages = 20_000;

    @Option(names = "--warmup-messages", description = "untimed messages of each bandwidth run's kind before the "
            + "first timed run (default: ${DEFAULT-VALUE})")
    int warmupMessages = 5_000;
    @Option(names = "--size", description = "bandwidth message size (default: ${DEFAULT-VALUE})")
    int size = 64 * 1024;
    @Option(names = "--depth", description = "outstanding work requests (default: ${DEFAULT-VALUE})")
    int depth = 32;
    @Option(names = "--mtu", description = "path MTU (default: ${DEFAULT-VALUE})")
    int mtu = 4096;
    @Option(names = "--udp-packets", description = "raw UDP baseline datagrams (default: ${DEFAULT-VALUE})")
    int udpPackets = 300_000;
    @Option(names = "--connections", description = "connect/accept/disconnect cycles of the setup-rate run, 0 skips it (default: ${DEFAULT-VALUE})")
    int connections = 4000;
    @Option(names = "--concurrency", description = "cycles in progress at once in the setup-rate run (default: ${DEFAULT-VALUE})")
    int concurrency = 32;
    @Option(names = "--only-setup", description = "run only the connection-setup rate")
    boolean onlySetup;
    @Option(names = "--idle", description = "both devices' receive threads and both benchmark threads: block, spin "
            + "or backoff (the soft device option idle; default: ${DEFAULT-VALUE})")
    String idle = "block";
    @Option(names = "--cq-moderation", defaultValue = "16/500", converter = ModerationConverter.class,
            description = "block mode: the server's completion queue moderation while its wake-ups find several "
                    + "completions each, COUNT/PERIOD_US, or off (default: ${DEFAULT-VALUE})")
    Moderation cqModeration;

    /** {@link CompletionQueue#moderate}'s arguments; null: off. */
    record Moderation(int count, int periodMicros) {
        @Override
        public String toString() {
            return count + "/" + periodMicros;
        }
    }

    /** {@code --cq-moderation COUNT/PERIOD_US|off}, checked as {@link CompletionQueue#moderate} checks them. */
    static final class ModerationConverter implements CommandLine.ITypeConverter<Moderation> {
        @Override
        public Moderation convert(String value) {
            if (value.equalsIgnoreCase("off")) {
                return null;
            }
            String[] parts = value.split("/");
            try {
                Moderation m = new Moderation(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
                if (parts.length == 2 && m.count() >= 2 && m.count() <= 0xFFFF && m.periodMicros() >= 1
                        && m.periodMicros() <= 0xFFFF) {
                    return m;
                }
            } catch (RuntimeException e) {
                // reported below
            }
            throw new CommandLine.TypeConversionException("COUNT/PERIOD_US (count 2..65535, period 1..65535 us) "
                    + "or off, not '" + value + "'");
        }
    }

    /**
     * A server wake-up that finds this many completions (or more) is taken for a stream, and moderation starts; one
     * that finds one (or none: an idle timeout) ends it.
     */
    static final int STREAM_BATCH = 4;

    public static void main(String[] args) {
        // INFO logging (the library has no logback.xml of its own; logback would default to DEBUG)
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "vibridge-bench-logback.xml");
        }
        System.exit(new CommandLine(new VerbsBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        return switch (role) {
            case "server" -> server();
            case "client" -> client();
            case "orchestrate" -> orchestrate();
            default -> {
                System.err.println("unknown role " + role);
                yield 2;
            }
        };
    }

    private DeviceConfig config(String ip) {
        DeviceConfig c = polling() ? DeviceConfig.of(ip).withOption("idle", idle) : DeviceConfig.of(ip);
        return provider == null ? c : c.withProvider(provider);
    }

    /**
     * Polling mode (any idle strategy but block; the device checks the value): the benchmark's own threads spin
     * on their completion queue instead of yielding or parking.
     */
    private boolean polling() {
        return !idle.trim().equalsIgnoreCase("block");
    }

    private int orchestrate() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process server = new ProcessBuilder(java.toString(), "-Xmx1g", "--enable-native-access=ALL-UNNAMED",
                "-Dlogback.configurationFile=" + System.getProperty("logback.configurationFile"), "-cp", System.getProperty("java.class.path"),
                VerbsBench.class.getName(), "--role", "server", "--server-ip", serverIp, "--client-ip", clientIp, "--idle", idle,
                "--cq-moderation", cqModeration == null ? "off" : cqModeration.toString(),
                "--size", Integer.toString(size), "--depth", Integer.toString(depth))
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null; ) {
                if (line.equals("READY")) {
                    break;
                }
                System.out.println("[server] " + line);
            }
            Thread pump = new Thread(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        System.out.println("[server] " + line);
                    }
                } catch (IOException ignored) {
                    // server gone
                }
            });
            pump.setDaemon(true);
            pump.start();
            int rc = client();
            server.waitFor(30, TimeUnit.SECONDS);
            return rc;
        } finally {
            server.destroy();
        }
    }

    // ---------------------------------------------------------------- server

    private int server() throws Exception {
        try (VerbsDevice dev = Verbs.open(config(serverIp))) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            // RECV_DEPTH x depth receives: the responder consumes them at line rate while this thread, on a
            // loaded host, may be descheduled; running out means RNR NAKs (and a window resent after each)
            CompletionQueue cq = dev.createCompletionQueue((RECV_DEPTH + 4) * depth);
            QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, depth, RECV_DEPTH * depth));
            MemoryRegion target = pd.registerMemory(ByteBuffer.allocateDirect(depth * size),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            // the receives cycle over depth x size bytes, the footprint of the WRITE target, so that SEND and WRITE
            // stream into the same memory (a ring of RECV_DEPTH x that, 32 MiB, touched memory WRITE did not)
            MemoryRegion recv = pd.registerMemory(ByteBuffer.allocateDirect(depth * size), EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion echo = pd.registerMemory(ByteBuffer.allocateDirect(64), EnumSet.of(Access.LOCAL_WRITE));
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            for (int i = 0; i < RECV_DEPTH * depth; i++) {
                qp.postRecv(rwr.set(i, recv, slot(i), size));
            }
            DatagramChannel udp = DatagramChannel.open(StandardProtocolFamily.INET);
            udp.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            udp.bind(new InetSocketAddress(serverIp, UDP_BASELINE_PORT));
            Thread udpThread = new Thread(() -> udpReceiver(udp), "udp-baseline");
            udpThread.setDaemon(true);
            udpThread.start();
            BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            CompletionQueue setupCq = dev.createCompletionQueue(64);
            var setupListener = dev.connectionManager().listen(SETUP_SID, ev -> {
                switch (ev) {
                    case CmEvent.ConnectRequest r -> {
                        QueuePair sq = pd.createQueuePair(new QpInitAttributes(setupCq, setupCq, 4, 4));
                        r.id().accept(sq, AcceptParams.defaults(null));
                    }
                    case CmEvent.Disconnected d -> d.id().queuePair().close();
                    case CmEvent.ConnectTimeout t -> {
                        if (t.id().queuePair() != null) {
                            t.id().queuePair().close();
                        }
                    }
                    default -> {
                    }
                }
            }, null);
            try (var _ = dev.connectionManager().listen(SID, events::add, null); setupListener) {
                System.out.println("READY");
                System.out.flush();
                CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) events.take();
                byte[] pdata = new byte[12];
                ByteBuffer.wrap(pdata).putLong(target.address()).putInt(target.rkey());
                req.id().accept(qp, AcceptParams.defaults(pdata).withRnr(7, 1));
                WorkCompletion[] wcs = completions(32);
                SendWorkRequest swr = new SendWorkRequest();
                boolean spin = polling();
                if (!spin) {
                    // block: sleep until the CQ has a completion (ibv_req_notify_cq, as ib_send_bw -e), woken by the
                    // receive thread itself; a timed poll on a 50 us park costs the streaming receive thread the CPU
                    Thread me = Thread.currentThread();
                    cq.onNotify(() -> LockSupport.unpark(me), Runnable::run);
                }
                Moderation moderation = spin ? null : moderation(dev);
                boolean moderated = false;
                int batch = 0;                                  // completions taken since the last wake-up
                long wakeups = 0;
                long moderationStarts = 0;
                long received = 0;
                int idle = 0;
                while (true) {
                    int n = cq.poll(wcs);
                    if (n == 0) {
                        if (!events.isEmpty() && events.peek() instanceof CmEvent.Disconnected) {
                            break;
                        }
                        events.poll();
                        // spin briefly (latency), then sleep until notified (a disconnect is seen within 1 ms);
                        // in a moderated stream sleep at once: the next completions are not due before COUNT
                        if (spin || !moderated && ++idle < 200) {
                            Thread.onSpinWait();
                        } else {
                            // Linux's rdma_dim in two steps: a wake-up that found several completions means a
                            // stream, so let them gather (one wake-up per COUNT); one that found a single
                            // completion means round trips, each of which must wake us at once
                            if (moderation != null && (moderated ? batch <= 1 : batch >= STREAM_BATCH)) {
                                moderated = !moderated;
                                moderationStarts += moderated ? 1 : 0;
                                cq.moderate(moderated ? moderation.count() : 1, moderated ? moderation.periodMicros() : 0);
                            }
                            batch = 0;
                            wakeups++;
                            cq.requestNotify(false);           // runs the handler at once if a completion came meanwhile
                            LockSupport.parkNanos(1_000_000);
                        }
                        continue;
                    }
                    idle = 0;
                    batch += n;
                    received += n;
                    for (int i = 0; i < n; i++) {
                        WorkCompletion wc = wcs[i];
                        if (wc.status != WcStatus.SUCCESS) {
                            if (wc.status == WcStatus.WR_FLUSH_ERROR) {
                                continue;
                            }
                            System.out.println("server completion error " + wc);
                            continue;
                        }
                        if (wc.opcode == WcOpcode.RECV) {
                            if (wc.byteLength == 8) {                 // ping: echo it
                                swr.set(0, WrOpcode.SEND, echo, 0, 8).signaled(false);
                                echo.buffer().putLong(0, recv.buffer().getLong(slot(wc.wrId)));
                                qp.postSend(swr);
                            }
                            qp.postRecv(rwr.set(wc.wrId, recv, slot(wc.wrId), size));
                        }
                    }
                }
                System.out.printf("server consumer: %d completions, %d sleeps; completion moderation %s%n", received,
                        wakeups, moderation == null ? "off" : moderation + " us, turned on "
                                + moderationStarts + " times");
                System.out.println("server counters " + dev.counters());
            }
        }
        return 0;
    }

    /** {@code --cq-moderation}, or null: off, or the device cannot moderate. */
    private Moderation moderation(VerbsDevice dev) {
        if (cqModeration != null && !dev.capabilities().contains(Capability.CQ_MODERATION)) {
            System.out.println("server: the device has no completion moderation; every completion wakes the consumer");
            return null;
        }
        return cqModeration;
    }

    /** Where receive {@code wrId} lands in the server's receive region. */
    private int slot(long wrId) {
        return (int) (wrId % depth) * size;
    }

    private static void udpReceiver(DatagramChannel udp) {
        ByteBuffer b = ByteBuffer.allocateDirect(65536);
        long count = 0;
        long first = 0;
        long last = 0;
        try {
            while (true) {
                b.clear();
                InetSocketAddress from = (InetSocketAddress) udp.receive(b);
                if (b.position() == 1) {                        // end marker: report count and duration
                    ByteBuffer r = ByteBuffer.allocate(16).putLong(count).putLong(last - first).flip();
                    udp.send(r, from);
                    count = 0;
                    continue;
                }
                long now = System.nanoTime();
                if (count == 0) {
                    first = now;
                }
                last = now;
                count++;
            }
        } catch (IOException e) {
            // closed
        }
    }

    // ---------------------------------------------------------------- client

    private static WorkCompletion[] completions(int n) {
        WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    private int client() throws Exception {
        try (VerbsDevice dev = Verbs.open(config(clientIp))) {
            System.out.printf("provider %s, device %s -> %s, MTU %d%n", dev.providerName(), dev.name(), serverIp, mtu);
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue cq = dev.createCompletionQueue(8 * depth);
            QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, depth, 2 * depth));
            MemoryRegion local = pd.registerMemory(ByteBuffer.allocateDirect(depth * size), EnumSet.of(Access.LOCAL_WRITE));
            BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            ConnectParams p = ConnectParams.defaults(InetAddress.getByName(serverIp), SID, null).withPathMtu(mtu)
                    .withTimeouts(14, 16, 15);
            var id = dev.connectionManager().connect(p, qp, events::add, null);
            CmEvent e = events.poll(30, TimeUnit.SECONDS);
            if (!(e instanceof CmEvent.Established est)) {
                System.err.println("connect failed: " + e);
                return 1;
            }
            ByteBuffer pdata = ByteBuffer.wrap(est.privateData());
            long raddr = pdata.getLong();
            int rkey = pdata.getInt();
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            for (int i = 0; i < 2 * depth; i++) {
                qp.postRecv(rwr.set(1000 + i, local, 0, 64));
            }
            WorkCompletion[] wcs = completions(64);

            // 0. connection-setup rate
            if (connections > 0) {
                setupRate(dev, pd);
            }
            if (onlySetup) {
                id.disconnect();
                events.poll(10, TimeUnit.SECONDS);
                return 0;
            }

            // 1. 8-byte SEND round trips
            SendWorkRequest swr = new SendWorkRequest();
            boolean spin = polling();
            long[] rtt = new long[pingpongs];
            int warm = Math.min(2000, pingpongs);
            for (int i = -warm; i < pingpongs; i++) {
                local.buffer().putLong(0, i);
                long t0 = System.nanoTime();
                qp.postSend(swr.set(i, WrOpcode.SEND, local, 0, 8).signaled(false));
                boolean got = false;
                while (!got) {
                    int n = cq.poll(wcs);
                    for (int k = 0; k < n; k++) {
                        if (wcs[k].opcode == WcOpcode.RECV) {
                            got = true;
                            qp.postRecv(rwr.set(wcs[k].wrId, local, 0, 64));
                        } else if (wcs[k].status != WcStatus.SUCCESS) {
                            throw new IllegalStateException("ping failed " + wcs[k]);
                        }
                    }
                    if (n == 0) {
                        if (spin) {
                            Thread.onSpinWait();
                        } else {
                            Thread.yield();
                        }
                    }
                }
                if (i >= 0) {
                    rtt[i] = System.nanoTime() - t0;
                }
            }
            Arrays.sort(rtt);
            System.out.printf("SEND 8 B round trip: p50 %.1f us, p99 %.1f us (%d round trips, idle=%s)%n",
                    rtt[rtt.length / 2] / 1e3, rtt[(int) (rtt.length * 0.99)] / 1e3, rtt.length, idle);

            // 2. and 3. bandwidth
            Thread rx = findThread("soft-rx-" + clientIp);
            // warm-up, untimed: SEND runs first, and would otherwise pay alone for compiling the paths both share
            stream(qp, cq, local, swr, wcs, WrOpcode.SEND, 0, 0, null, dev, rx, warmupMessages);
            stream(qp, cq, local, swr, wcs, WrOpcode.RDMA_WRITE, raddr, rkey, null, dev, rx, warmupMessages);
            double sendRate = stream(qp, cq, local, swr, wcs, WrOpcode.SEND, 0, 0, "SEND", dev, rx, messages);
            double writeRate = stream(qp, cq, local, swr, wcs, WrOpcode.RDMA_WRITE, raddr, rkey, "RDMA WRITE", dev, rx, messages);

            // 4. raw UDP baseline
            double udpRate = udpBaseline();
            System.out.printf("raw UDP 4 KiB datagrams: %.0f packets/s received (%.1f MB/s)%n", udpRate, udpRate * 4096 / 1e6);
            System.out.printf("ratio to baseline packet rate: SEND %.2f, RDMA WRITE %.2f%n", sendRate / udpRate,
                    writeRate / udpRate);
            System.out.println("client counters " + dev.counters());
            id.disconnect();
            events.poll(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    /**
     * {@code connections} cycles of create QP, connect (REQ/REP/RTU), Established, disconnect (DREQ/DREP),
     * Disconnected, close QP, {@code concurrency} of them in progress at once; the server side accepts every
     * request on a fresh QP.
     */
    private void setupRate(VerbsDevice dev, ProtectionDomain pd) throws Exception {
        CompletionQueue cq = dev.createCompletionQueue(64);
        InetAddress server = InetAddress.getByName(serverIp);
        Semaphore slots = new Semaphore(concurrency);
        CountDownLatch done = new CountDownLatch(connections);
        AtomicInteger failures = new AtomicInteger();
        long[] connectNs = new long[connections];
        long t0 = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            slots.acquire();
            int n = i;
            QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 4, 4));
            long start = System.nanoTime();
            ConnectParams p = ConnectParams.defaults(server, SETUP_SID, null).withTimeouts(14, 16, 15);
            dev.connectionManager().connect(p, qp, ev -> {
                switch (ev) {
                    case CmEvent.Established est -> {
                        connectNs[n] = System.nanoTime() - start;
                        est.id().disconnect();
                    }
                    case CmEvent.Disconnected d -> {
                        qp.close();
                        slots.release();
                        done.countDown();
                    }
                    case CmEvent.TimewaitExit t -> {
                    }
                    default -> {
                        System.out.println("connection setup: unexpected " + ev);
                        failures.incrementAndGet();
                        qp.close();
                        slots.release();
                        done.countDown();
                    }
                }
            }, null);
        }
        if (!done.await(120, TimeUnit.SECONDS)) {
            System.out.printf("connection setup: %d cycles did not finish in 120 s%n", done.getCount());
            return;
        }
        long ns = System.nanoTime() - t0;
        Arrays.sort(connectNs);
        System.out.printf("connection setup: %d connect/accept/disconnect cycles, %d at once: %.0f cycles/s; "
                        + "connect to Established p50 %.0f us, p99 %.0f us; %d failed%n",
                connections, concurrency, connections / (ns / 1e9), connectNs[connections / 2] / 1e3,
                connectNs[(int) (connections * 0.99)] / 1e3, failures.get());
    }

    /**
     * Streams {@code messages} messages with {@code depth} outstanding; returns data packets per second and prints
     * the figures, unless {@code name} is null (a warm-up).
     */
    private double stream(QueuePair qp, CompletionQueue cq, MemoryRegion local, SendWorkRequest swr,
                          WorkCompletion[] wcs, WrOpcode op, long raddr, int rkey, String name, VerbsDevice dev,
                          Thread rx, int messages) {
        DeviceCounters before = dev.counters();
        ThreadMXBean tmx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        // CPU per byte: the device's transmit thread (the doorbell) and receive thread (the window pumped on
        // each ACK) lay out, seal and send the packets; the whole process includes this posting thread, which
        // polls without pause (and, in polling mode, receives the ACKs itself while the receive thread stands aside)
        Thread tx = findThread("soft-tx-" + clientIp);
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuDevice = threadCpu(tmx, tx) + threadCpu(tmx, rx);
        long userDevice = threadUser(tmx, tx) + threadUser(tmx, rx);
        long cpuProcess = os.getProcessCpuTime();
        long allocSelf = tmx.getCurrentThreadAllocatedBytes();
        long allocRx = rx == null ? 0 : tmx.getThreadAllocatedBytes(rx.threadId());
        long t0 = System.nanoTime();
        int posted = 0;
        int done = 0;
        while (done < messages) {
            while (posted < messages && posted - done < depth) {
                swr.set(posted, op, local, (posted % depth) * size, size).remote(raddr + (long) (posted % depth) * size, rkey)
                        .signaled(true);
                qp.postSend(swr);
                posted++;
            }
            int n = cq.poll(wcs);
            for (int k = 0; k < n; k++) {
                if (wcs[k].status != WcStatus.SUCCESS) {
                    throw new IllegalStateException(op + " failed: " + wcs[k]);
                }
                if (wcs[k].opcode != WcOpcode.RECV) {
                    done++;
                }
            }
            if (n == 0) {
                Thread.yield();
            }
        }
        long ns = System.nanoTime() - t0;
        long allocSelfAfter = tmx.getCurrentThreadAllocatedBytes() - allocSelf;
        long allocRxAfter = rx == null ? 0 : tmx.getThreadAllocatedBytes(rx.threadId()) - allocRx;
        long cpuDeviceAfter = threadCpu(tmx, tx) + threadCpu(tmx, rx) - cpuDevice;
        long kernelDeviceAfter = cpuDeviceAfter - (threadUser(tmx, tx) + threadUser(tmx, rx) - userDevice);
        long cpuProcessAfter = os.getProcessCpuTime() - cpuProcess;
        DeviceCounters after = dev.counters();
        long pkts = (long) messages * ((size + mtu - 1) / mtu);
        double mbps = (double) messages * size / ns * 1e3;
        double pps = pkts / (ns / 1e9);
        double gib = (double) messages * size / (1L << 30);
        if (name == null) {
            return pps;
        }
        System.out.printf("%s %d B x %d: %.1f MB/s, %.0f data packets/s, %d retransmissions; "
                        + "allocated %.1f B/message on the posting thread, %.1f B/message on the receive thread; "
                        + "client CPU per GiB: device threads %.2f s (%.2f s of it in the kernel), process %.2f s%n",
                name, size, messages, mbps, pps, after.retransmissions() - before.retransmissions(),
                (double) allocSelfAfter / messages, (double) allocRxAfter / messages, cpuDeviceAfter / 1e9 / gib,
                kernelDeviceAfter / 1e9 / gib, cpuProcessAfter / 1e9 / gib);
        return pps;
    }

    private static long threadCpu(ThreadMXBean tmx, Thread t) {
        return t == null ? 0 : tmx.getThreadCpuTime(t.threadId());
    }

    private static long threadUser(ThreadMXBean tmx, Thread t) {
        return t == null ? 0 : tmx.getThreadUserTime(t.threadId());
    }

    private Thread findThread(String prefix) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                return t;
            }
        }
        return null;
    }

    private double udpBaseline() throws Exception {
        try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET)) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
            ch.bind(new InetSocketAddress(clientIp, 0));
            InetSocketAddress to = new InetSocketAddress(serverIp, UDP_BASELINE_PORT);
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < udpPackets; i++) {
                b.clear();
                ch.send(b, to);
            }
            Thread.sleep(200);
            ByteBuffer end = ByteBuffer.allocate(1);
            ch.send(end, to);
            ByteBuffer r = ByteBuffer.allocate(16);
            ch.configureBlocking(true);
            ch.receive(r);
            r.flip();
            long count = r.getLong();
            long ns = r.getLong();
            System.out.printf("raw UDP: %d of %d datagrams received%n", count, udpPackets);
            return count / (ns / 1e9);
        }
    }
}

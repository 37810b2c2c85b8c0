package io.vibridge.gateway.bridge;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.gateway.ib.FlowC0Channel;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;

/**
 * A minimal InfiniBand-side service for the gateway's tests, written against the verbs SPI only:
 * listens on the iwarp Service ID of {@code port}, accepts with a HelloReply, echoes every SEND
 * (FlowC 0 or 1, immediate data, Invalidate and Solicited Event kept) and exposes one remotely writable and readable region for
 * the client's RDMA Writes and Reads. Mode {@code reject} answers every REQ with REJ. All its work
 * runs on one thread.
 */
final class EchoTarget implements AutoCloseable {
    final VerbsDevice device;
    final ProtectionDomain pd;
    final MemoryRegion rdma;
    final int port;
    final int bufs;
    final int recvSize;
    static final int CUT_WRITE = 0x43555457; // "CUTW"
    static final int CUT_READ = 0x43555452;  // "CUTR"
    static final int CUT_SEND_THEN_WRITE = 0x43555453; // "CUTS": echo the command (SEND), then RDMA WRITE
    static final int CUT_SEND_THEN_READ = 0x43555451;  // "CUTQ": echo the command (SEND), then RDMA READ
    volatile boolean reject;
    /** Flood mode: after the connection is up, SEND 64 KiB messages (FlowC 1) without end. */
    volatile boolean flood;
    final AtomicLong flooded = new AtomicLong();
    final AtomicLong received = new AtomicLong();
    final AtomicLong writesWithImm = new AtomicLong();
    /** SENDs with Invalidate received (each echoed as one, with the same key). */
    final AtomicInteger invalidates = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger disconnects = new AtomicInteger();
    /** CUTS commands received; each waits for {@link #cutsGate} (if set) before its SEND and WRITE. */
    final AtomicInteger cutsArrived = new AtomicInteger();
    volatile CountDownLatch cutsGate;
    /** Successful RDMA WRITE completions (cut-through writes acknowledged by the gateway). */
    final AtomicInteger writesDone = new AtomicInteger();
    /** Successful CUTQ RDMA READs. */
    final AtomicInteger readsDone = new AtomicInteger();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "echo-target");
        t.setDaemon(true);
        return t;
    });
    private final ConnectionManager.CmListener listener;
    private final Map<Integer, Conn> conns = new ConcurrentHashMap<>();

    EchoTarget(String address, int port, int bufs, int recvSize) {
        this(address, port, bufs, recvSize, d -> d);
    }

    /** {@code tweak} adjusts the soft device's configuration (options such as {@code min-rnr-wait-us}). */
    EchoTarget(String address, int port, int bufs, int recvSize, UnaryOperator<DeviceConfig> tweak) {
        this.port = port;
        this.bufs = bufs;
        this.recvSize = recvSize;
        this.device = Verbs.open(tweak.apply(DeviceConfig.of(address).withProvider("soft")));
        pd = device.allocateProtectionDomain();
        rdma = pd.registerMemory(ByteBuffer.allocateDirect(8 << 20), // cut-through writes up to 8 MiB
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        listener = device.connectionManager().listen(ServiceId.valueOf(ServiceIdScheme.IWARP, port), this::onCm, thread);
    }

    private void onCm(CmEvent e) {
        switch (e) {
            case CmEvent.ConnectRequest req -> {
                if (reject) {
                    req.id().reject(new byte[0]);
                    return;
                }
                Hello hello = Hello.fromBytes(req.privateData());
                Conn c = new Conn(hello.flowControl() == FlowControl.TRANSPORT, hello, req.id());
                conns.put(req.id().localCommId(), c);
                req.id().accept(c.qp, AcceptParams.defaults(HelloReply.of(bufs, recvSize).toBytes()));
                connections.incrementAndGet();
            }
            case CmEvent.Established est -> {
                Conn c = conns.get(est.id().localCommId());
                if (c != null && flood) {
                    for (int i = 0; i < 4; i++) {
                        c.floodOne();
                    }
                }
            }
            case CmEvent.Disconnected d -> {
                disconnects.incrementAndGet();
                Conn c = conns.remove(d.id().localCommId());
                if (c != null) {
                    c.qp.toError();
                }
            }
            default -> {
            }
        }
    }

    String debugState() {
        StringBuilder b = new StringBuilder();
        for (Conn c : conns.values()) {
            b.append("posted=").append(c.channel.postedReceives()).append(" pending=").append(c.pending.size());
            FlowCredits credits = c.channel.credits();
            if (credits != null) {
                b.append(" credits=").append(credits.credits()).append(" unacked=").append(credits.unacknowledged())
                        .append(" peerBufs=").append(credits.peerBufs()).append(" peerView=")
                        .append(credits.peerCredits());
            }
            b.append("; ");
        }
        return b.toString();
    }

    /** Disconnects every connection from the target side (DREQ). */
    void disconnectAll() {
        thread.execute(() -> conns.values().forEach(c -> c.id.disconnect()));
    }

    @Override
    public void close() {
        listener.close();
        device.close(); // may still hand completions to the thread: stop it afterwards
        thread.shutdown();
    }

    private final class Conn {
        static final long CREDIT_UPDATE = -1;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        final FlowC0Channel channel;
        final WorkCompletion[] wcs = new WorkCompletion[16];
        final SendWorkRequest swr = new SendWorkRequest();
        final ArrayDeque<int[]> pending = new ArrayDeque<>(); // {slot, len, hasImm, imm}
        final CmId id;

        Conn(boolean fc0, Hello hello, CmId id) {
            this.id = id;
            cq = device.createCompletionQueue(4 * bufs + 8);
            qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 2 * bufs + 4, bufs + 1));
            // receive slots [0, bufs), each echoed from where it landed; 16 bytes for credit updates after them
            mr = pd.registerMemory(ByteBuffer.allocateDirect(bufs * recvSize + 16), EnumSet.of(Access.LOCAL_WRITE));
            channel = fc0 ? FlowC0Channel.of(qp, mr, bufs * recvSize, CREDIT_UPDATE) : FlowC0Channel.bare(qp);
            channel.start(new FlowCredits(hello.bufs(), bufs)); // nothing for FlowC 1
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
            for (int s = 0; s < bufs; s++) {
                post(s);
            }
            cq.onNotify(this::onNotify, thread);
            cq.requestNotify(false);
        }

        static final int FLOOD = -2;
        static final long READ_BASE = 1L << 40;

        void floodOne() {
            if (qp.state() != QpState.RTS) {
                return;
            }
            swr.set(FLOOD, WrOpcode.SEND, mr, 0, Math.min(65536, recvSize)).signaled(true);
            qp.postSend(swr);
        }

        void post(int slot) {
            channel.postReceive(slot, mr, slot * recvSize, recvSize);
        }

        void onNotify() {
            int n;
            while ((n = cq.poll(wcs)) > 0) {
                for (int i = 0; i < n; i++) {
                    onWc(wcs[i]);
                }
            }
            cq.requestNotify(false);
            while ((n = cq.poll(wcs)) > 0) {
                for (int i = 0; i < n; i++) {
                    onWc(wcs[i]);
                }
            }
        }

        void onWc(WorkCompletion wc) {
            if (wc.status != WcStatus.SUCCESS) {
                return;
            }
            int slot = (int) wc.wrId;
            if (channel.onSendCompletion(wc)) {
                return; // a credit update
            }
            if (wc.opcode == WcOpcode.RDMA_WRITE) {
                writesDone.incrementAndGet();
                return;
            }
            if (wc.opcode == WcOpcode.RDMA_READ && wc.wrId == -4) {
                readsDone.incrementAndGet(); // CUTQ
                return;
            }
            if (wc.opcode == WcOpcode.RDMA_READ) {
                int s2 = (int) (wc.wrId - READ_BASE);
                CRC32C crc = new CRC32C();
                crc.update(rdma.buffer().duplicate().position(0).limit(wc.byteLength));
                mr.buffer().putLong(s2 * recvSize + channel.headroom(), crc.getValue());
                pending.add(new int[] {s2, 8, 0, 0, 0});
                flush();
                return;
            }
            if (wc.opcode == WcOpcode.SEND && slot == FLOOD) {
                flooded.incrementAndGet();
                floodOne();
                return;
            }
            if (wc.opcode == WcOpcode.SEND) {
                if (slot >= 0) {
                    post(slot); // echo done: the slot receives again
                    flush();
                }
                return;
            }
            ByteBuffer b = mr.buffer();
            switch (channel.onReceive(wc, b, slot * recvSize)) {
                case WRITE_WITH_IMMEDIATE -> {
                    writesWithImm.incrementAndGet();
                    // answered with an empty Send carrying the same immediate (as the demo target's echo-ack-writes mode does)
                    pending.add(new int[] {slot, 0, 1, wc.immediate, 0});
                    flush();
                    return;
                }
                case CREDIT_UPDATE -> {
                    post(slot);
                    flush();
                    return;
                }
                default -> { } // a message (failures returned above)
            }
            int off = slot * recvSize + channel.headroom();
            int n = wc.byteLength - channel.headroom();
            received.incrementAndGet();
            if (n >= 20 && b.getInt(off) == CUT_WRITE) {
                // command: RDMA WRITE a pattern to the client's memory (cut-through), then echo the command
                long va = b.getLong(off + 4);
                int rkey = b.getInt(off + 12);
                int len = b.getInt(off + 16);
                for (int i = 0; i < len; i++) {
                    rdma.buffer().put(i, (byte) (i * 31 + 7));
                }
                swr.set(-3, WrOpcode.RDMA_WRITE, rdma, 0, len).remote(va, rkey).signaled(true);
                qp.postSend(swr);
            } else if (n >= 20 && (b.getInt(off) == CUT_SEND_THEN_WRITE || b.getInt(off) == CUT_SEND_THEN_READ)) {
                boolean read = b.getInt(off) == CUT_SEND_THEN_READ;
                // command: the echo SEND first, then an RDMA WRITE of the pattern to the client's memory
                cutsArrived.incrementAndGet();
                CountDownLatch gate = cutsGate;
                if (gate != null) {
                    try {
                        gate.await(); // the test blocks the gateway's event loop meanwhile
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                long va = b.getLong(off + 4);
                int rkey = b.getInt(off + 12);
                int len = b.getInt(off + 16);
                for (int i = 0; i < len; i++) {
                    rdma.buffer().put(i, (byte) (i * 31 + 7));
                }
                pending.add(new int[] {slot, n, 0, 0, 0});
                flush();
                if (!pending.isEmpty()) {
                    throw new IllegalStateException("CUTS: no credit for the echo SEND");
                }
                if (read) {
                    swr.set(-4, WrOpcode.RDMA_READ, rdma, 0, len).remote(va, rkey).signaled(true);
                } else {
                    swr.set(-3, WrOpcode.RDMA_WRITE, rdma, 0, len).remote(va, rkey).signaled(true);
                }
                qp.postSend(swr);
                return;
            } else if (n >= 20 && b.getInt(off) == CUT_READ) {
                // command: RDMA READ the client's memory into this slot, then send what was read back
                long va = b.getLong(off + 4);
                int rkey = b.getInt(off + 12);
                int len = b.getInt(off + 16);
                swr.set(READ_BASE + slot, WrOpcode.RDMA_READ, rdma, 0, len).remote(va, rkey).signaled(true);
                qp.postSend(swr);
                return; // answered with the CRC-32C of what was read when the READ completed
            }
            // echoed from its own slot, of the same kind (immediate, Invalidate of the same key, Solicited Event);
            // the receive is reposted when the echo completed
            if (wc.hasInvalidate) {
                invalidates.incrementAndGet();
            }
            pending.add(new int[] {slot, n, wc.hasInvalidate ? 2 : wc.hasImmediate ? 1 : 0,
                    wc.hasInvalidate ? wc.invalidatedRkey : wc.immediate, wc.solicited ? 1 : 0});
            flush();
        }

        void flush() {
            while (!pending.isEmpty() && channel.canSend()) {
                int[] p = pending.poll(); // {slot, length, 0 plain | 1 immediate | 2 invalidate, immediate or key, solicited}
                WrOpcode op = p[2] == 2 ? WrOpcode.SEND_WITH_INV : p[2] == 1 ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND;
                channel.send(p[0], mr, p[0] * recvSize + channel.headroom(), p[1], op, p[3], p[4] != 0);
            }
            channel.maybeSendCreditUpdate();
        }
    }
}

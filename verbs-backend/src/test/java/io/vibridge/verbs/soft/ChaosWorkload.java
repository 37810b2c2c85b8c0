package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A mixed, verifiable workload (SEND, SEND+IMM, WRITE, WRITE+IMM, READ; 0 B .. 1 MiB, weighted to small)
 * shared by the in-JVM and the two-process tests. Both sides derive the same operation list from the
 * seed. The server checks that every receive-consuming message arrives exactly once, in order, with the
 * right length, immediate and content; the client checks every completion (in order, SUCCESS) and the
 * content of every READ against what it last wrote to that slot.
 */
final class ChaosWorkload {
    static final long SID = 0x0000000001060000L + 7471;
    static final int MAX = 1 << 20;
    static final int SLOTS = 8;
    static final int DEPTH = 16;
    static final int RECVS = 24;

    enum Kind { SEND, SEND_IMM, WRITE, WRITE_IMM, READ }

    record Op(Kind kind, int size) {
        boolean consumesRecv() {
            return kind == Kind.SEND || kind == Kind.SEND_IMM || kind == Kind.WRITE_IMM;
        }
    }

    /** The operation list; READ/WRITE targets are chosen by the client at run time. */
    static Op[] ops(long seed, int count) {
        Random r = new Random(seed);
        Op[] ops = new Op[count];
        for (int i = 0; i < count; i++) {
            int p = r.nextInt(1000);
            int size;
            if (i == 1) {
                size = MAX;
            } else if (i == 2) {
                size = 0;
            } else if (p < 600) {
                size = r.nextInt(65);
            } else if (p < 850) {
                size = 65 + r.nextInt(4096 - 64);
            } else if (p < 960) {
                size = 4097 + r.nextInt(65536 - 4096);
            } else if (p < 995) {
                size = 65537 + r.nextInt(262144 - 65536);
            } else {
                size = 262145 + r.nextInt(MAX - 262144);
            }
            ops[i] = new Op(Kind.values()[r.nextInt(5)], size);
        }
        return ops;
    }

    static void fill(ByteBuffer b, int off, int size, long seed, int seq) {
        Random r = new Random(seed * 1_000_003L + seq);
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            b.putLong(off + i, r.nextLong());
        }
        for (; i < size; i++) {
            b.put(off + i, (byte) r.nextInt());
        }
    }

    static boolean check(ByteBuffer b, int off, int size, long seed, int seq) {
        Random r = new Random(seed * 1_000_003L + seq);
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            if (b.getLong(off + i) != r.nextLong()) {
                return false;
            }
        }
        for (; i < size; i++) {
            if (b.get(off + i) != (byte) r.nextInt()) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ server

    /** Serves one connection; returns null when everything was verified, else what went wrong. */
    static String serve(VerbsDevice dev, long seed, int count, Runnable onListening) throws InterruptedException {
        return serve(dev, SID, seed, count, onListening);
    }

    static String serve(VerbsDevice dev, long sid, long seed, int count, Runnable onListening)
            throws InterruptedException {
        ProtectionDomain pd = dev.allocateProtectionDomain();
        CompletionQueue cq = dev.createCompletionQueue(4 * RECVS + 64);
        QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 16, RECVS));
        MemoryRegion target = pd.registerMemory(ByteBuffer.allocateDirect((SLOTS + 1) * MAX),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        MemoryRegion recv = pd.registerMemory(ByteBuffer.allocateDirect(RECVS * MAX), EnumSet.of(Access.LOCAL_WRITE));
        ReceiveWorkRequest rwr = new ReceiveWorkRequest();
        for (int i = 0; i < RECVS; i++) {
            qp.postRecv(rwr.set(i, recv, i * MAX, MAX));
        }
        BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        try (var _ = dev.connectionManager().listen(sid, events::add, null)) {
            onListening.run();
            CmEvent.ConnectRequest req = (CmEvent.ConnectRequest) events.poll(60, TimeUnit.SECONDS);
            if (req == null) {
                return "no connection request";
            }
            byte[] pdata = new byte[12];
            ByteBuffer.wrap(pdata).putLong(target.address()).putInt(target.rkey());
            req.id().accept(qp, AcceptParams.defaults(pdata).withRnr(7, 1));
            Op[] ops = ops(seed, count);
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
            int seq = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (true) {
                while (seq < count && !ops[seq].consumesRecv()) {
                    seq++;
                }
                if (seq == count) {
                    break;
                }
                int n = cq.poll(wcs);
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        return "timed out waiting for message " + seq;
                    }
                    Thread.onSpinWait();
                    Thread.sleep(0, 100_000);
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    while (seq < count && !ops[seq].consumesRecv()) {
                        seq++;
                    }
                    WorkCompletion wc = wcs[i];
                    if (seq >= count) {
                        if (wc.status == WcStatus.WR_FLUSH_ERROR) {
                            continue;       // all verified; the client disconnected, spare receives flushed
                        }
                        return "extra receive completion " + wc;
                    }
                    if (wc.status != WcStatus.SUCCESS) {
                        return "receive completion " + wc + " for message " + seq;
                    }
                    Op op = ops[seq];
                    if (wc.byteLength != op.size()) {
                        return "message " + seq + " " + op + ": length " + wc.byteLength;
                    }
                    switch (op.kind()) {
                        case SEND, SEND_IMM -> {
                            if (wc.opcode != WcOpcode.RECV || wc.hasImmediate != (op.kind() == Kind.SEND_IMM)
                                    || (wc.hasImmediate && wc.immediate != seq)) {
                                return "message " + seq + " " + op + ": " + wc;
                            }
                            if (!check(recv.buffer(), (int) wc.wrId * MAX, op.size(), seed, seq)) {
                                return "message " + seq + " " + op + ": content differs";
                            }
                        }
                        default -> {
                            if (wc.opcode != WcOpcode.RECV_RDMA_WITH_IMM || wc.immediate != seq) {
                                return "message " + seq + " " + op + ": " + wc;
                            }
                        }
                    }
                    qp.postRecv(rwr.set(wc.wrId, recv, (int) wc.wrId * MAX, MAX));
                    seq++;
                }
            }
            // wait for the client's disconnect
            for (CmEvent e; (e = events.poll(60, TimeUnit.SECONDS)) != null; ) {
                if (e instanceof CmEvent.Disconnected) {
                    break;
                }
            }
            return null;
        } finally {
            qp.close();
        }
    }

    // ------------------------------------------------------------------ client

    /** Runs the client side; returns null on success, else what went wrong. */
    static String run(VerbsDevice dev, InetAddress server, long seed, int count, Runnable afterConnect)
            throws InterruptedException {
        return run(dev, server, SID, seed, count, afterConnect);
    }

    static String run(VerbsDevice dev, InetAddress server, long sid, long seed, int count, Runnable afterConnect)
            throws InterruptedException {
        return run(dev, server, sid, seed, count, 4096, afterConnect);
    }

    static String run(VerbsDevice dev, InetAddress server, long sid, long seed, int count, int mtu,
                      Runnable afterConnect) throws InterruptedException {
        ProtectionDomain pd = dev.allocateProtectionDomain();
        CompletionQueue cq = dev.createCompletionQueue(4 * DEPTH);
        QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, DEPTH, 4));
        MemoryRegion local = pd.registerMemory(ByteBuffer.allocateDirect(DEPTH * MAX), EnumSet.of(Access.LOCAL_WRITE));
        BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        ConnectParams p = ConnectParams.defaults(server, sid, null).withTimeouts(13, 14, 15).withMinRnrTimer(1)
                .withPathMtu(mtu);
        var id = dev.connectionManager().connect(p, qp, events::add, null);
        CmEvent e = events.poll(60, TimeUnit.SECONDS);
        if (!(e instanceof CmEvent.Established est)) {
            return "connect failed: " + e;
        }
        ByteBuffer pdata = ByteBuffer.wrap(est.privateData());
        long raddr = pdata.getLong();
        int rkey = pdata.getInt();
        afterConnect.run();
        Op[] ops = ops(seed, count);
        Random pick = new Random(seed ^ 0x5DEECE66DL);
        int[] slotSeq = new int[SLOTS];
        int[] slotSize = new int[SLOTS];
        int[] slotReads = new int[SLOTS];
        Arrays.fill(slotSeq, -1);
        int[] readSlotOf = new int[count];
        int[] readSeqOf = new int[count];
        SendWorkRequest wr = new SendWorkRequest();
        WorkCompletion[] wcs = new WorkCompletion[DEPTH];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        int posted = 0;
        int done = 0;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (done < count) {
            while (posted < count && posted - done < DEPTH) {
                int seq = posted;
                Op op = ops[seq];
                int loff = (seq % DEPTH) * MAX;
                switch (op.kind()) {
                    case SEND, SEND_IMM -> {
                        fill(local.buffer(), loff, op.size(), seed, seq);
                        wr.set(seq, op.kind() == Kind.SEND ? WrOpcode.SEND : WrOpcode.SEND_WITH_IMM, local, loff,
                                op.size()).immediate(seq);
                    }
                    case WRITE, WRITE_IMM -> {
                        // never overwrite a slot a pending READ may re-read after a loss: use the scratch slot
                        int slot = pick.nextInt(SLOTS);
                        if (slotReads[slot] > 0) {
                            slot = SLOTS;
                        } else {
                            slotSeq[slot] = seq;
                            slotSize[slot] = op.size();
                        }
                        fill(local.buffer(), loff, op.size(), seed, seq);
                        wr.set(seq, op.kind() == Kind.WRITE ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_WRITE_WITH_IMM,
                                local, loff, op.size()).remote(raddr + (long) slot * MAX, rkey).immediate(seq);
                    }
                    case READ -> {
                        int slot = pick.nextInt(SLOTS);
                        int size = slotSeq[slot] < 0 ? 0 : slotSize[slot];
                        wr.set(seq, WrOpcode.RDMA_READ, local, loff, size).remote(raddr + (long) slot * MAX, rkey);
                        slotReads[slot]++;
                        readSlotOf[seq] = slot;
                        readSeqOf[seq] = slotSeq[slot];
                    }
                }
                wr.signaled = true;
                qp.postSend(wr);
                posted++;
            }
            int n = cq.poll(wcs);
            if (n == 0) {
                if (System.nanoTime() > deadline) {
                    return "timed out at completion " + done + " of " + count;
                }
                Thread.onSpinWait();
                Thread.sleep(0, 100_000);
                continue;
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                if (wc.status != WcStatus.SUCCESS || wc.wrId != done) {
                    return "completion " + wc + " where wr " + done + " was expected";
                }
                if (wc.opcode == WcOpcode.RDMA_READ) {
                    int slot = readSlotOf[done];
                    slotReads[slot]--;
                    if (readSeqOf[done] >= 0
                            && !check(local.buffer(), (done % DEPTH) * MAX, wc.byteLength, seed, readSeqOf[done])) {
                        return "READ " + done + " of slot " + slot + " returned wrong data";
                    }
                }
                done++;
            }
        }
        id.disconnect();
        CmEvent d = events.poll(60, TimeUnit.SECONDS);
        if (!(d instanceof CmEvent.Disconnected)) {
            return "disconnect: " + d;
        }
        qp.close();
        return null;
    }
}

package io.vibridge.gateway.demo;

import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.gateway.ib.FlowC0Channel;
import io.vibridge.gateway.ib.WrId;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted RC connection of the target. Touched only on the service loop.
 *
 * <p>Memory: one slab per connection, {@code bufs} receive slots of {@code size} bytes plus a 16-byte
 * credit-update header. A reply (echo or control) is written into the slot its request arrived in
 * and sent from there; the slot is reposted when that Send completes. So a connection never needs
 * more send memory than its receives, and FlowC 0's bufs (receives posted right now) stays exact.
 *
 * <p>FlowC 0 (CM-MAPPING §4) is the {@link FlowC0Channel}'s: every Send starts with the 16-byte header,
 * written into the first 16 bytes of the slot, and needs a credit; an inbound RDMA WRITE WITH IMMEDIATE
 * consumes a receive and one mseq. FlowC 1: bare payloads from the slot's start.
 */
final class TargetConnection {
    private static final Logger LOG = LoggerFactory.getLogger(TargetConnection.class);

    /** Bytes of the slab beyond the receive slots: the credit-update header. */
    static final int EXTRA = 16;

    /** Work-request kinds ({@link WrId}); the slot is the receive slot, 0 for CREDIT and SOURCE. */
    private enum Kind { RECV, REPLY, CREDIT, RDMA, SOURCE }

    private static final Kind[] KINDS = Kind.values();

    private enum State { ACCEPTED, ESTABLISHED, CLOSING, CLOSED }

    final TargetService svc;
    final long connId;
    final CmId id;
    private final FlowControl flowC;
    private final int peerBufs;
    private final long peerRcvSize;
    private final int bufs;
    private final int size;

    /** Guarded by the {@link ReadyRing}'s lock. */
    boolean queued;

    private State state = State.ACCEPTED;
    private TargetMode mode;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion slab;
    private ByteBuffer sb;
    private FlowC0Channel channel;
    private final WorkCompletion[] wcs = new WorkCompletion[32];
    private final SendWorkRequest swr = new SendWorkRequest();
    private final Runnable notifier;

    // replies waiting for a send credit: receive slot indexes
    private final int[] txQueue;
    private int txHead;
    private int txCount;
    private final int[] txLen;
    private final int[] txImm;
    private final boolean[] txHasImm;

    // control RDMA operations, per receive slot
    private final MemoryRegion[] opMr;
    private final int[] opCrc;

    // source mode
    private MemoryRegion sourceMr;
    private int sourceSize;
    private int sourceDepth;
    private int sourceOutstanding;
    private long sourceNext;

    private long rxMessages;
    private long rxBytes;
    private long txMessages;
    private long txBytes;

    TargetConnection(TargetService svc, long connId, CmId id, FlowControl flowC, int peerBufs, long peerRcvSize,
                     int bufs, int size) {
        this.svc = svc;
        this.notifier = () -> svc.ready(this);
        this.connId = connId;
        this.id = id;
        this.flowC = flowC;
        this.peerBufs = peerBufs;
        this.peerRcvSize = peerRcvSize;
        this.bufs = bufs;
        this.size = size;
        this.mode = svc.config.mode();
        txQueue = new int[bufs];
        txLen = new int[bufs];
        txImm = new int[bufs];
        txHasImm = new boolean[bufs];
        opMr = new MemoryRegion[bufs];
        opCrc = new int[bufs];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** Creates the CQ, QP and slab and posts every receive (before the REP, so they are the initial credits). */
    void open() {
        int sendDepth = bufs + svc.config.sourceDepth() + 4;
        cq = svc.device.createCompletionQueue(sendDepth + bufs + 8);
        qp = svc.pd.createQueuePair(new QpInitAttributes(cq, cq, sendDepth, bufs));
        slab = svc.takeSlab(bufs * size + EXTRA);
        sb = slab.buffer();
        if (flowC == FlowControl.TRANSPORT) {
            channel = FlowC0Channel.of(qp, slab, bufs * size, WrId.of(Kind.CREDIT, 0));
            channel.start(new FlowCredits(peerBufs, bufs)); // we accept: the peer's bufs came in its Hello
        } else {
            channel = FlowC0Channel.bare(qp);
        }
        for (int i = 0; i < bufs; i++) {
            repost(i);
        }
        // inline on the completing thread: the handler only queues this connection and wakes the loop
        cq.onNotify(notifier, Runnable::run);
        cq.requestNotify(false);
    }

    void accept() {
        byte[] reply = HelloReply.of(bufs, size).toBytes();
        id.accept(qp, AcceptParams.defaults(reply));
    }

    void established() {
        if (state == State.ACCEPTED) {
            state = State.ESTABLISHED;
            LOG.debug("conn {} established", connId);
            if (mode == TargetMode.SOURCE) {
                startSource(0);
            }
            svc.ready(this);
        }
    }

    // ------------------------------------------------------------------ completions

    void drain() {
        if (state == State.CLOSED) {
            return;
        }
        int n = 0;
        for (int round = 0; round < 8; round++) {
            n = cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                onCompletion(wcs[i]);
                if (state == State.CLOSED) {
                    return;
                }
            }
            if (n < wcs.length) {
                break;
            }
        }
        pump();
        if (n == wcs.length) {
            svc.ready(this);            // more waiting: let other connections run first
        } else {
            cq.requestNotify(false);
        }
    }

    private void onCompletion(WorkCompletion wc) {
        int idx = WrId.slot(wc.wrId);
        boolean ok = wc.status == WcStatus.SUCCESS;
        switch (WrId.kind(wc.wrId, KINDS)) {
            case RECV -> onReceive(idx, wc);
            case REPLY -> {
                if (ok) {
                    txMessages++;
                    repost(idx);
                }
            }
            case CREDIT -> channel.onSendCompletion(wc);
            case RDMA -> {
                finishRdma(idx, ok);
                return;
            }
            case SOURCE -> {
                sourceOutstanding--;
                if (ok) {
                    txMessages++;
                    txBytes += sourceSize;
                }
            }
        }
        if (!ok && wc.status != WcStatus.WR_FLUSH_ERROR && state != State.CLOSING) {
            fail("work request failed: " + wc);
        }
    }

    private void onReceive(int idx, WorkCompletion wc) {
        int off = idx * size;
        FlowC0Channel.Inbound inbound;
        try {
            inbound = channel.onReceive(wc, sb, off);
        } catch (CmFormatException e) {
            fail("bad flow-control header: " + e.getMessage());
            return;
        }
        switch (inbound) {
            case FAILED -> { }                     // reported by onCompletion
            case CREDIT_UPDATE -> repost(idx);
            case WRITE_WITH_IMMEDIATE -> {
                rxMessages++;
                rxBytes += wc.byteLength;
                // VIA 10.2 / CM-MAPPING §4: the write consumed this receive. Only echo-ack-writes answers
                // it (an empty Send with the immediate); echo, like vitcp's echo, answers Sends only
                if (mode.answersWritesWithImmediate()) {
                    queueReply(idx, 0, true, wc.immediate);
                } else {
                    repost(idx);
                }
            }
            case MESSAGE -> {
                int p = off + channel.headroom();
                int len = wc.byteLength - channel.headroom();
                if (Control.isRequest(sb, p, len)) {
                    onControl(idx, p, len);
                    return;
                }
                rxMessages++;
                rxBytes += len;
                if (mode.echoesSends()) {
                    queueReply(idx, len, wc.hasImmediate, wc.immediate);
                } else {
                    repost(idx);
                }
            }
        }
    }

    private void repost(int idx) {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        channel.postReceive(WrId.of(Kind.RECV, idx), slab, idx * size, size);
    }

    // ------------------------------------------------------------------ sending

    private void queueReply(int idx, int payloadLength, boolean hasImm, int imm) {
        txLen[idx] = payloadLength;
        txHasImm[idx] = hasImm;
        txImm[idx] = imm;
        txQueue[(txHead + txCount++) % bufs] = idx;
    }

    /** Posts what credits allow: queued replies first, then a credit update, then source Sends. */
    private void pump() {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        while (txCount > 0 && channel.canSend()) {
            int idx = txQueue[txHead];
            txHead = (txHead + 1) % bufs;
            txCount--;
            channel.send(WrId.of(Kind.REPLY, idx), slab, idx * size + channel.headroom(), txLen[idx], txHasImm[idx],
                    txImm[idx]);
            txBytes += txLen[idx];
        }
        channel.maybeSendCreditUpdate();
        if (mode == TargetMode.SOURCE && state == State.ESTABLISHED && sourceMr != null) {
            while (txCount == 0 && sourceOutstanding < sourceDepth && channel.canSend()) {
                postSource();
            }
        }
    }

    /** Sets up the source buffers once; {@code requested} > 0 overrides --size (first call only). */
    private void startSource(int requested) {
        if (sourceMr != null) {
            return;
        }
        int hdr = channel.headroom();
        long limit = peerRcvSize > 0 ? peerRcvSize - hdr : size;
        sourceSize = (int) Math.max(0, Math.min(requested > 0 ? requested : svc.config.sourceSize(), limit));
        sourceDepth = svc.config.sourceDepth();
        int slot = hdr + sourceSize;
        sourceMr = svc.pd.registerMemory(ByteBuffer.allocateDirect(Math.max(1, slot * sourceDepth)),
                EnumSet.of(Access.LOCAL_WRITE));
        for (int i = 0; i < sourceDepth; i++) {
            Control.fillPattern(sourceMr.buffer(), i * slot + hdr, sourceSize, (int) connId);
        }
        LOG.info("conn {} source: {} B Sends, {} outstanding", connId, sourceSize, sourceDepth);
    }

    private void postSource() {
        int slot = channel.headroom() + sourceSize;
        int off = (int) (sourceNext++ % sourceDepth) * slot;
        channel.send(WrId.of(Kind.SOURCE, 0), sourceMr, off + channel.headroom(), sourceSize, false, 0);
        sourceOutstanding++;
    }

    // ------------------------------------------------------------------ control protocol

    private void onControl(int idx, int p, int len) {
        int cmd = Control.command(sb, p);
        int reqId = Control.requestId(sb, p);
        int argLen = Control.argumentLength(cmd);
        if (argLen < 0) {
            reply(idx, p, cmd, Control.UNKNOWN_COMMAND, reqId);
            return;
        }
        if (len - Control.HEADER < argLen) {
            reply(idx, p, cmd, Control.BAD_REQUEST, reqId);
            return;
        }
        int a = p + Control.HEADER;
        ByteBuffer rb = svc.region.buffer();
        long regionLength = svc.region.length();
        switch (cmd) {
            case Control.QUERY_REGION -> {
                sb.putLong(a, svc.region.address());
                sb.putInt(a + 8, svc.region.rkey());
                sb.putInt(a + 12, svc.region.length());
                reply(idx, p, cmd, Control.OK, reqId);
            }
            case Control.CHECKSUM_REGION, Control.FILL_REGION -> {
                long offset = Integer.toUnsignedLong(sb.getInt(a));
                long length = Integer.toUnsignedLong(sb.getInt(a + 4));
                if (offset + length > regionLength) {
                    reply(idx, p, cmd, Control.OUT_OF_RANGE, reqId);
                    return;
                }
                if (cmd == Control.FILL_REGION) {
                    Control.fillPattern(rb, (int) offset, (int) length, sb.getInt(a + 8));
                }
                sb.putInt(a, Control.crc32c(rb, (int) offset, (int) length));
                reply(idx, p, cmd, Control.OK, reqId);
            }
            case Control.SET_MODE -> {
                int code = sb.get(a) & 0xFF;
                if (code >= TargetMode.values().length) {
                    reply(idx, p, cmd, Control.BAD_REQUEST, reqId);
                    return;
                }
                int requested = len - Control.HEADER >= 5 ? sb.getInt(a + 1) : 0;
                mode = TargetMode.ofCode(code);
                LOG.info("conn {} mode {}", connId, mode.cliName());
                if (mode == TargetMode.SOURCE) {
                    startSource(requested);
                }
                reply(idx, p, cmd, Control.OK, reqId);
            }
            case Control.STATS -> {
                sb.putLong(a, rxMessages);
                sb.putLong(a + 8, rxBytes);
                sb.putLong(a + 16, txMessages);
                sb.putLong(a + 24, txBytes);
                reply(idx, p, cmd, Control.OK, reqId);
            }
            case Control.WRITE_TO_PEER, Control.READ_FROM_PEER -> startRdma(idx, p, cmd, reqId, a);
            default -> reply(idx, p, cmd, Control.UNKNOWN_COMMAND, reqId);
        }
    }

    private void reply(int idx, int p, int cmd, int status, int reqId) {
        Control.writeReply(sb, p, cmd, status, reqId);
        queueReply(idx, Control.replyLength(cmd, status), false, 0);
    }

    private void startRdma(int idx, int p, int cmd, int reqId, int a) {
        long va = sb.getLong(a);
        int handle = sb.getInt(a + 8);
        long length = Integer.toUnsignedLong(sb.getInt(a + 12));
        if (length > svc.config.regionSize()) {
            reply(idx, p, cmd, Control.TOO_LARGE, reqId);
            return;
        }
        MemoryRegion mr = length == 0 ? null
                : svc.pd.registerMemory(ByteBuffer.allocateDirect((int) length), EnumSet.of(Access.LOCAL_WRITE));
        WrOpcode op;
        if (cmd == Control.WRITE_TO_PEER) {
            int seed = sb.getInt(a + 16);
            if (mr != null) {
                Control.fillPattern(mr.buffer(), 0, (int) length, seed);
                opCrc[idx] = Control.crc32c(mr.buffer(), 0, (int) length);
            } else {
                opCrc[idx] = 0;
            }
            op = WrOpcode.RDMA_WRITE;
        } else {
            op = WrOpcode.RDMA_READ;
        }
        opMr[idx] = mr;
        // remember what to answer in the request's own slot: command and id stay at p
        swr.set(WrId.of(Kind.RDMA, idx), op, mr, 0, (int) length).remote(va, handle).immediate(0).signaled(true);
        swr.solicited = false;
        try {
            qp.postSend(swr);
        } catch (RuntimeException e) {
            finishRdma(idx, false);
        }
        LOG.debug("conn {} {} va 0x{} handle 0x{} length {}", connId, Control.commandName(cmd), Long.toHexString(va),
                Integer.toHexString(handle), length);
    }

    private void finishRdma(int idx, boolean ok) {
        MemoryRegion mr = opMr[idx];
        opMr[idx] = null;
        int p = idx * size + channel.headroom();
        int cmd = Control.command(sb, p);
        int reqId = Control.requestId(sb, p);
        long length = Integer.toUnsignedLong(sb.getInt(p + Control.HEADER + 12));
        int crc = opCrc[idx];
        if (ok && cmd == Control.READ_FROM_PEER) {
            crc = mr == null ? 0 : Control.crc32c(mr.buffer(), 0, (int) length);
        }
        if (mr != null) {
            mr.close();
        }
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        if (!ok) {
            LOG.info("conn {} {} failed", connId, Control.commandName(cmd));
        }
        int r = Control.writeReply(sb, p, cmd, ok ? Control.OK : Control.RDMA_FAILED, reqId);
        sb.putInt(r, crc);
        sb.putInt(r + 4, (int) length);
        queueReply(idx, Control.replyLength(cmd, ok ? Control.OK : Control.RDMA_FAILED), false, 0);
    }

    // ------------------------------------------------------------------ teardown

    /** Starts a disconnect (DREQ); {@link #disconnected} follows from the CM. */
    void fail(String why) {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        LOG.info("conn {} closing: {}", connId, why);
        state = State.CLOSING;
        try {
            id.disconnect();
        } catch (RuntimeException e) {
            disconnected("disconnect failed: " + e);
        }
    }

    /** The connection is gone (DREQ received or answered, or never completed): free everything. */
    void disconnected(String why) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        LOG.debug("conn {} {}: received {} messages / {} B, sent {} messages / {} B", connId, why, rxMessages, rxBytes,
                txMessages, txBytes);
        release();
        svc.released(this, (long) bufs * size + EXTRA);
    }

    /** Closes the QP and CQ and returns the slab. */
    void release() {
        state = State.CLOSED;
        if (qp != null) {
            try {
                qp.close();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        if (cq != null) {
            cq.close();
        }
        for (int i = 0; i < opMr.length; i++) {
            if (opMr[i] != null) {
                opMr[i].close();
                opMr[i] = null;
            }
        }
        if (sourceMr != null) {
            sourceMr.close();
            sourceMr = null;
        }
        if (slab != null) {
            svc.returnSlab(slab);
            slab = null;
        }
    }
}

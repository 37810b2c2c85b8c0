package io.vibridge.interop.rping;

import io.vibridge.interop.support.VerbsEvents;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * One rping connection's verbs objects, as rping.c creates them (rping_setup_qp, rping_create_qp,
 * rping_setup_buffers): a CQ of {@code RPING_SQ_DEPTH * 2} entries for both queues, an RC QP with 16 send and
 * 2 receive work requests, and the buffers:
 *
 * <ul>
 *   <li>{@code recv_buf}: one {@link RpingInfo}, {@code IBV_ACCESS_LOCAL_WRITE}, the only receive ever posted;</li>
 *   <li>{@code send_buf}: what SENDs carry, no access rights. rping rewrites its single {@code send_buf} before
 *       each SEND; its two contents never change during a run (the source and the sink advertisement), so they
 *       get a slot each here and a retransmission can never read the other one;</li>
 *   <li>{@code rdma_buf}: {@code size} bytes, local write + remote read + remote write: the server's RDMA READ
 *       destination and WRITE source, the client's sink;</li>
 *   <li>{@code start_buf} (client only): {@code size} bytes, same rights: the client's source.</li>
 * </ul>
 */
final class RpingResources implements AutoCloseable {
    /** rping.c: {@code RPING_SQ_DEPTH}. */
    static final int SQ_DEPTH = 16;
    /** rping.c: {@code init_attr.cap.max_recv_wr}. */
    static final int RQ_DEPTH = 2;

    /** Send slots. The server only ever sends slot 0 (zeros). */
    static final int SLOT_SOURCE = 0;
    static final int SLOT_SINK = 1;

    static final long WR_RECV = 1;
    static final long WR_SEND = 2;
    static final long WR_RDMA = 3;

    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion recvBuf;
    final MemoryRegion sendBuf;
    final MemoryRegion rdmaBuf;
    final MemoryRegion startBuf;
    final VerbsEvents events;
    final int size;

    private final ReceiveWorkRequest rq = new ReceiveWorkRequest();
    private final SendWorkRequest sq = new SendWorkRequest();
    private final SendWorkRequest rdmaSq = new SendWorkRequest();

    private RpingResources(VerbsDevice device, int size, boolean client) {
        this.size = size;
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(SQ_DEPTH * 2);
        qp = pd.createQueuePair(new QpInitAttributes(cq, cq, SQ_DEPTH, RQ_DEPTH));
        recvBuf = pd.registerMemory(ByteBuffer.allocateDirect(RpingInfo.LENGTH), EnumSet.of(Access.LOCAL_WRITE));
        sendBuf = pd.registerMemory(ByteBuffer.allocateDirect(2 * RpingInfo.LENGTH), EnumSet.noneOf(Access.class));
        EnumSet<Access> rdma = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        rdmaBuf = pd.registerMemory(ByteBuffer.allocateDirect(size), rdma);
        startBuf = client ? pd.registerMemory(ByteBuffer.allocateDirect(size), rdma) : null;
        events = new VerbsEvents(cq);
        if (client) {
            // rping_format_send(cb, cb->start_buf, cb->start_mr) and (cb, cb->rdma_buf, cb->rdma_mr)
            new RpingInfo(startBuf.address(), startBuf.rkey(), size).encode(sendBuf.buffer(), slotOffset(SLOT_SOURCE));
            new RpingInfo(rdmaBuf.address(), rdmaBuf.rkey(), size).encode(sendBuf.buffer(), slotOffset(SLOT_SINK));
        } else {
            RpingInfo.GO_AHEAD.encode(sendBuf.buffer(), slotOffset(SLOT_SOURCE));
        }
    }

    /** Creates everything or nothing. */
    static RpingResources create(VerbsDevice device, int size, boolean client) {
        return new RpingResources(device, size, client);
    }

    private static int slotOffset(int slot) {
        return slot * RpingInfo.LENGTH;
    }

    /** rping.c: {@code ibv_post_recv(cb->qp, &cb->rq_wr, ...)}, the whole {@code recv_buf}. */
    void postRecv() {
        qp.postRecv(rq.set(WR_RECV, recvBuf, 0, RpingInfo.LENGTH));
    }

    /** rping.c: {@code ibv_post_send(cb->qp, &cb->sq_wr, ...)}: a signalled 16-byte SEND of one slot. */
    void postSend(int slot) {
        qp.postSend(sq.set(WR_SEND, WrOpcode.SEND, sendBuf, slotOffset(slot), RpingInfo.LENGTH).signaled(true));
    }

    /** The advertisement a send slot holds. */
    RpingInfo advertised(int slot) {
        return RpingInfo.decode(sendBuf.buffer(), slotOffset(slot));
    }

    /** rping.c rping_test_server: RDMA READ of {@code length} bytes from {@code remote} into {@code rdma_buf}. */
    void postRead(RpingInfo remote, int length) {
        qp.postSend(rdmaSq.set(WR_RDMA, WrOpcode.RDMA_READ, rdmaBuf, 0, length).remote(remote.buf(), remote.rkey())
                .signaled(true));
    }

    /** rping.c rping_test_server: RDMA WRITE of {@code length} bytes of {@code rdma_buf} to {@code remote}. */
    void postWrite(RpingInfo remote, int length) {
        qp.postSend(rdmaSq.set(WR_RDMA, WrOpcode.RDMA_WRITE, rdmaBuf, 0, length).remote(remote.buf(), remote.rkey())
                .signaled(true));
    }

    /** What arrived in {@code recv_buf}. */
    RpingInfo received() {
        return RpingInfo.decode(recvBuf.buffer(), 0);
    }

    @Override
    public void close() {
        qp.close();
        if (startBuf != null) {
            startBuf.close();
        }
        rdmaBuf.close();
        sendBuf.close();
        recvBuf.close();
        cq.close();
        pd.close();
    }
}

package io.vibridge.interop.pingpong;

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
 * rc_pingpong.c's {@code struct pingpong_context} (pp_init_ctx): one buffer of {@code size} bytes filled with
 * 0x7b and registered for local write, a CQ of {@code rx_depth + 1} entries for both queues, an RC QP with one
 * send and {@code rx_depth} receive work requests. Every SEND and every receive covers the whole buffer.
 */
final class PingpongContext implements AutoCloseable {
    /** rc_pingpong.c: {@code PINGPONG_RECV_WRID = 1, PINGPONG_SEND_WRID = 2}, also the {@code pending} bits. */
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;

    final int size;
    final int rxDepth;
    final ProtectionDomain pd;
    final MemoryRegion mr;
    final CompletionQueue cq;
    final QueuePair qp;
    final VerbsEvents events;
    private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
    private final SendWorkRequest swr = new SendWorkRequest();

    PingpongContext(VerbsDevice device, PingpongSettings s) {
        size = s.size();
        rxDepth = s.rxDepth();
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(1, size));
        PingpongPattern.fill(buf, size);
        pd = device.allocateProtectionDomain();
        mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
        cq = device.createCompletionQueue(rxDepth + 1);
        qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 1, rxDepth));
        events = new VerbsEvents(cq);
    }

    ByteBuffer buffer() {
        return mr.buffer();
    }

    /** pp_post_recv: {@code n} receives of the whole buffer. */
    int postRecv(int n) {
        for (int i = 0; i < n; i++) {
            qp.postRecv(rwr.set(RECV_WRID, mr, 0, size));
        }
        return n;
    }

    /** pp_post_send: a signalled SEND of the whole buffer. */
    void postSend() {
        qp.postSend(swr.set(SEND_WRID, WrOpcode.SEND, mr, 0, size).signaled(true));
    }

    @Override
    public void close() {
        qp.close();
        cq.close();
        mr.close();
        pd.close();
    }
}

package io.vibridge.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.LoggerFactory;

/**
 * ibv_cq with its own completion channel; a daemon thread waits for CQ events and runs the notify
 * handler on the caller's executor (or the device event thread). Polling reuses one stateful DiSNI
 * poll call.
 */
final class DisniCompletionQueue implements CompletionQueue {
    private static final int IBV_WC_WITH_IMM = 1 << 1;
    private static final int IBV_WC_WITH_INV = 1 << 3;
    private final DisniDevice device;
    final IbvCompChannel channel;
    final IbvCQ cq;
    private final int capacity;
    private final IbvWC[] wcs;
    private final SVCPollCq pollCall;
    private volatile Runnable handler;
    private volatile Executor executor;
    private volatile boolean closed;

    DisniCompletionQueue(DisniDevice device, int capacity) {
        this.device = device;
        this.capacity = capacity;
        try {
            channel = device.context().createCompChannel();
            cq = device.context().createCQ(channel, capacity, 0);
            wcs = new IbvWC[Math.min(capacity, 64)];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWC();
            }
            pollCall = cq.poll(wcs, wcs.length);
        } catch (IOException e) {
            throw new VerbsException("ibv_create_cq failed: " + e, e);
        }
        Thread t = new Thread(this::eventLoop, "disni-cq-events");
        t.setDaemon(true);
        t.start();
    }

    private void eventLoop() {
        while (!closed) {
            try {
                if (channel.getCqEvent(cq, 100)) {
                    cq.ackEvents(1);
                    Runnable h = handler;
                    if (h != null) {
                        Executor ex = executor;
                        (ex != null ? ex : device.eventExecutor()).execute(h);
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    LoggerFactory.getLogger(DisniCompletionQueue.class).warn("CQ event wait failed", e);
                }
                return;
            }
        }
    }

    /** DiSNI's stateful poll has a fixed batch size: one call per batch size asked for (made once). */
    private SVCPollCq callFor(int n) throws IOException {
        if (n >= wcs.length) {
            return pollCall;
        }
        SVCPollCq c = smallerCalls.get(n);
        if (c == null) {
            c = cq.poll(wcs, n);
            smallerCalls.put(n, c);
        }
        return c;
    }

    private final Map<Integer, SVCPollCq> smallerCalls = new HashMap<>();

    @Override
    public synchronized int poll(WorkCompletion[] out) {
        if (out.length == 0) {
            return 0;
        }
        int n;
        try {
            n = callFor(out.length).execute().getPolls();
        } catch (IOException e) {
            throw new VerbsException("ibv_poll_cq failed: " + e, e);
        }
        for (int i = 0; i < n; i++) {
            IbvWC w = wcs[i];
            WorkCompletion wc = out[i];
            wc.wrId = w.getWr_id();
            wc.status = status(w.getStatus());
            wc.opcode = opcode(w.getOpcode());
            wc.byteLength = w.getByte_len();
            wc.hasImmediate = (w.getWc_flags() & IBV_WC_WITH_IMM) != 0;
            wc.immediate = wc.hasImmediate ? w.getImm_data() : 0;
            // ibv_wc's union: with IBV_WC_WITH_INV imm_data's 4 bytes are invalidated_rkey, a host-order uint32_t,
            // which DiSNI reads in native order
            wc.hasInvalidate = (w.getWc_flags() & IBV_WC_WITH_INV) != 0;
            wc.invalidatedRkey = wc.hasInvalidate ? w.getImm_data() : 0;
            wc.qpNum = w.getQp_num();
            wc.solicited = false;
        }
        return n;
    }

    static WcStatus status(int s) {
        return switch (IbvWC.IbvWcStatus.valueOf(s)) {
            case IBV_WC_SUCCESS -> WcStatus.SUCCESS;
            case IBV_WC_LOC_LEN_ERR -> WcStatus.LOCAL_LENGTH_ERROR;
            case IBV_WC_LOC_PROT_ERR -> WcStatus.LOCAL_PROTECTION_ERROR;
            case IBV_WC_WR_FLUSH_ERR -> WcStatus.WR_FLUSH_ERROR;
            case IBV_WC_REM_INV_REQ_ERR -> WcStatus.REMOTE_INVALID_REQUEST;
            case IBV_WC_REM_ACCESS_ERR -> WcStatus.REMOTE_ACCESS_ERROR;
            case IBV_WC_REM_OP_ERR -> WcStatus.REMOTE_OPERATIONAL_ERROR;
            case IBV_WC_RETRY_EXC_ERR -> WcStatus.RETRY_EXCEEDED;
            case IBV_WC_RNR_RETRY_EXC_ERR -> WcStatus.RNR_RETRY_EXCEEDED;
            default -> WcStatus.GENERAL_ERROR;
        };
    }

    static WcOpcode opcode(int op) {
        return switch (op) {
            case 1 -> WcOpcode.RDMA_WRITE;
            case 2 -> WcOpcode.RDMA_READ;
            case 128 -> WcOpcode.RECV;
            case 129 -> WcOpcode.RECV_RDMA_WITH_IMM;
            default -> WcOpcode.SEND;
        };
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        try {
            cq.reqNotification(solicitedOnly).execute().free();
        } catch (IOException e) {
            throw new VerbsException("ibv_req_notify_cq failed: " + e, e);
        }
    }

    @Override
    public void onNotify(Runnable handler, Executor executor) {
        this.executor = executor;
        this.handler = handler;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void close() {
        closed = true;
        try {
            cq.destroyCQ();
            channel.destroyCompChannel();
        } catch (IOException e) {
            throw new VerbsException("ibv_destroy_cq failed: " + e, e);
        }
    }
}

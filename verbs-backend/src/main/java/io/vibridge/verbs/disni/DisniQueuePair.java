package io.vibridge.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WrOpcode;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.LinkedList;
import java.util.List;

/**
 * An RC QP over DiSNI. rdma_cm creates the verbs QP on a connection's cm id, so this object is bound
 * to its ibv_qp when the connection manager connects or accepts it; receives posted before are kept
 * (at most maxRecvWr) and posted then. Until bound, {@link #qpNum()} is 0 and the state INIT.
 * Each post builds DiSNI work-request objects (DiSNI 2.1's stateful calls cannot change the opcode).
 */
final class DisniQueuePair implements QueuePair {
    private final DisniProtectionDomain pd;
    private final QpInitAttributes attrs;
    private final ArrayDeque<long[]> pendingRecvs = new ArrayDeque<>();
    private IbvQP qp;
    private RdmaCmId id;
    private boolean error;
    private int mtu;

    DisniQueuePair(DisniProtectionDomain pd, QpInitAttributes attrs) {
        this.pd = pd;
        this.attrs = attrs;
    }

    /** Creates the verbs QP on the connection's id (rdma_create_qp) and posts the kept receives. */
    synchronized void bind(RdmaCmId cmId) throws IOException {
        IbvQPInitAttr a = new IbvQPInitAttr();
        a.cap().setMax_send_wr(attrs.maxSendWr());
        a.cap().setMax_recv_wr(attrs.maxRecvWr());
        a.cap().setMax_send_sge(1);
        a.cap().setMax_recv_sge(1);
        a.cap().setMax_inline_data(0);
        a.setQp_type(IbvQP.IBV_QPT_RC);
        a.setSend_cq(((DisniCompletionQueue) attrs.sendCq()).cq);
        a.setRecv_cq(((DisniCompletionQueue) attrs.recvCq()).cq);
        this.qp = cmId.createQP(pd.pd, a);
        this.id = cmId;
        this.mtu = 0;
        while (!pendingRecvs.isEmpty()) {
            long[] r = pendingRecvs.poll();
            postRecvNow(r[0], r[1], (int) r[2], (int) r[3]);
        }
    }

    synchronized boolean isBound() {
        return qp != null;
    }

    /** DiSNI 2.1 creates QPs only on an rdma_cm id and exposes no ibv_modify_qp: connect through the CM. */
    @Override
    public void connect(QpConnection connection) {
        throw new UnsupportedOperationException(
                "disni: DiSNI 2.1 has no ibv_modify_qp, a queue pair is connected only through rdma_cm");
    }

    @Override
    public synchronized int qpNum() {
        try {
            return qp == null ? 0 : qp.getQp_num();
        } catch (IOException e) {
            throw new VerbsException("cannot read QP number: " + e, e);
        }
    }

    @Override
    public synchronized QpState state() {
        if (error) {
            return QpState.ERROR;
        }
        if (qp == null) {
            return QpState.INIT;
        }
        int s = qp.getState();
        if (s == IbvQP.IBV_QPS_RESET) {
            return QpState.RESET;
        } else if (s == IbvQP.IBV_QPS_INIT) {
            return QpState.INIT;
        } else if (s == IbvQP.IBV_QPS_RTR) {
            return QpState.RTR;
        } else if (s == IbvQP.IBV_QPS_RTS) {
            return QpState.RTS;
        } else if (s == IbvQP.IBV_QPS_SQD) {
            return QpState.SQD;
        } else if (s == IbvQP.IBV_QPS_SQE) {
            return QpState.SQE;
        }
        return QpState.ERROR;
    }

    @Override
    public synchronized void postSend(SendWorkRequest wr) {
        int opcode = opcode(wr.opcode);
        if (qp == null) {
            throw new VerbsException("QP is not connected yet");
        }
        IbvSendWR s = new IbvSendWR();
        s.setWr_id(wr.wrId);
        s.setOpcode(opcode);
        s.setSend_flags((wr.signaled ? IbvSendWR.IBV_SEND_SIGNALED : 0) | (wr.solicited ? IbvSendWR.IBV_SEND_SOLICITED : 0));
        s.setImm_data(wr.immediate);
        LinkedList<IbvSge> sges = new LinkedList<>();
        if (wr.length > 0) {
            DisniProtectionDomain.DisniMemoryRegion mr = (DisniProtectionDomain.DisniMemoryRegion) wr.local;
            IbvSge sge = new IbvSge();
            sge.setAddr(mr.address() + wr.localOffset);
            sge.setLength(wr.length);
            sge.setLkey(mr.lkey());
            sges.add(sge);
        }
        s.setSg_list(sges);
        if (wr.opcode.isRead() || wr.opcode.isWrite()) {
            s.getRdma().setRemote_addr(wr.remoteAddress);
            s.getRdma().setRkey(wr.rkey);
        }
        List<IbvSendWR> list = new LinkedList<>();
        list.add(s);
        try {
            qp.postSend(list, null).execute().free();
        } catch (IOException e) {
            throw new VerbsException("ibv_post_send failed: " + e, e);
        }
    }

    /** DiSNI's ibv_wr_opcode for {@code op}; SEND with Invalidate is refused, whether the QP is bound or not. */
    static int opcode(WrOpcode op) {
        return switch (op) {
            case SEND -> IbvSendWR.IBV_WR_SEND;
            case SEND_WITH_IMM -> IbvSendWR.IBV_WR_SEND_WITH_IMM;
            case RDMA_WRITE -> IbvSendWR.IBV_WR_RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM -> IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM;
            case RDMA_READ -> IbvSendWR.IBV_WR_RDMA_READ;
            // DiSNI 2.1's IbvSendWR names opcodes up to the atomics (6) and has no invalidate_rkey
            case SEND_WITH_INV ->
                    throw new VerbsException("SEND with Invalidate is not supported by the DiSNI provider");
        };
    }

    @Override
    public synchronized void postRecv(ReceiveWorkRequest wr) {
        DisniProtectionDomain.DisniMemoryRegion mr = (DisniProtectionDomain.DisniMemoryRegion) wr.region;
        long addr = mr == null ? 0 : mr.address() + wr.offset;
        int lkey = mr == null ? 0 : mr.lkey();
        if (qp == null) {
            if (pendingRecvs.size() >= attrs.maxRecvWr()) {
                throw new VerbsException("receive queue is full (" + attrs.maxRecvWr() + ")");
            }
            pendingRecvs.add(new long[] {wr.wrId, addr, wr.length, lkey});
            return;
        }
        postRecvNow(wr.wrId, addr, wr.length, lkey);
    }

    private void postRecvNow(long wrId, long addr, int len, int lkey) {
        IbvRecvWR r = new IbvRecvWR();
        r.setWr_id(wrId);
        LinkedList<IbvSge> sges = new LinkedList<>();
        if (len > 0) {
            IbvSge sge = new IbvSge();
            sge.setAddr(addr);
            sge.setLength(len);
            sge.setLkey(lkey);
            sges.add(sge);
        }
        r.setSg_list(sges);
        List<IbvRecvWR> list = new LinkedList<>();
        list.add(r);
        try {
            qp.postRecv(list, null).execute().free();
        } catch (IOException e) {
            throw new VerbsException("ibv_post_recv failed: " + e, e);
        }
    }

    @Override
    public synchronized void toError() {
        error = true;
        if (id != null) {
            try {
                id.disconnect();               // rdma_disconnect moves the QP to ERROR
            } catch (IOException e) {
                throw new VerbsException("rdma_disconnect failed: " + e, e);
            }
        }
    }

    @Override
    public CompletionQueue sendCq() {
        return attrs.sendCq();
    }

    @Override
    public CompletionQueue recvCq() {
        return attrs.recvCq();
    }

    @Override
    public synchronized int pathMtu() {
        return mtu;
    }

    @Override
    public synchronized void close() {
        if (id != null) {
            try {
                id.destroyQP();
            } catch (IOException e) {
                throw new VerbsException("rdma_destroy_qp failed: " + e, e);
            }
        }
    }
}

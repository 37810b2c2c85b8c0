package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInfo;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.soft.port.PacketPort;
import io.vibridge.verbs.soft.port.SoftCounters;
import io.vibridge.verbs.soft.port.Transmittable;
import io.vibridge.verbs.soft.port.TxBatch;
import io.vibridge.verbs.soft.resource.KeyTable;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RC queue pair of the soft engine: the QP state machine (IBA 10.3) around a requester ({@link RcRequester})
 * and a completer ({@link RcCompleter}) sharing the send queue, and a responder ({@link RcResponder}).
 * Concurrency: every method that touches transport state runs under this object's monitor (posting threads, the
 * device receive thread, timer tasks, deferred READ responders); completion handlers are dispatched outside it.
 */
public final class RcQueuePair implements QueuePair, Transmittable, PacketPort.AckSender {
    private static final Logger LOG = LoggerFactory.getLogger(RcQueuePair.class);

    private final QpTable table;
    final PacketPort port;
    final KeyTable keys;
    final ProtectionDomain pd;
    final SoftCompletionQueue sendCq;
    final SoftCompletionQueue recvCq;
    final SoftCounters counters;
    final int qpn;
    /** Lays out every packet this QP sends into a borrowed {@link TxBatch} (under the lock). */
    final PacketWriter writer = new PacketWriter();
    final RcRequester requester;
    final RcCompleter completer;
    final RcResponder responder;
    /** Takes every inbound RDMA WRITE/READ when set (cut-through); read by the receive thread. */
    volatile QueuePairAccessHandler accessHandler;

    QpState state = QpState.INIT;
    /** Queued for the port's transmit thread (under the lock); {@link #txNext} links the queue. */
    boolean transmitScheduled;
    private Transmittable txNext;
    RcAttributes attrs;
    InetSocketAddress peer;
    int peerIp;
    int destQpn;
    int mtu;
    private volatile Runnable firstPacketHook;

    RcQueuePair(QpTable table, ProtectionDomain pd, SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, int qpn,
                int maxSend, int maxRecv) {
        this.table = table;
        this.port = table.port;
        this.keys = table.keys;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.counters = port.counters();
        this.qpn = qpn;
        SendQueue sq = new SendQueue(maxSend);
        this.requester = new RcRequester(this, sq, table.window, table.maxPktPerAck);
        this.completer = new RcCompleter(this, sq, table.rnrBackoff);
        this.responder = new RcResponder(this, maxRecv);
    }

    /** CM: INIT -> RTR -> RTS with the negotiated attributes. */
    public synchronized void connect(RcAttributes a) {
        if (state != QpState.INIT) {
            throw new VerbsException("QP " + qpn + " must be in INIT to connect, is " + state);
        }
        this.attrs = a;
        this.peer = new InetSocketAddress(a.peer(), a.peerPort());
        this.peerIp = Gid.ipv4(a.peer().getAddress());
        this.destQpn = a.destQpn();
        this.mtu = a.pathMtu();
        responder.start(a);
        state = QpState.RTR;
        requester.start(a);
        completer.start(a);
        state = QpState.RTS;
    }

    /** Out of band (no CM): the application's attributes, the peer's RoCE UDP port taken as ours. */
    @Override
    public void connect(QpConnection c) {
        connect(new RcAttributes(c.remote(), port.udpPort(), c.remoteQpn(), c.sendPsn(), c.receivePsn(),
                Math.min(c.pathMtu(), port.maxPathMtu()), c.retryCount(), c.rnrRetryCount(), c.localAckTimeout(),
                c.maxRdAtomic(), c.maxDestRdAtomic(), c.minRnrTimer()));
    }

    /** CM: run once when the first packet from the peer arrives (communication established). */
    public void onFirstPacket(Runnable hook) {
        this.firstPacketHook = hook;
    }

    public synchronized RcAttributes attributes() {
        return attrs;
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public synchronized QpState state() {
        return state;
    }

    @Override
    public void setAccessHandler(QueuePairAccessHandler handler) {
        accessHandler = handler;
    }

    @Override
    public synchronized int pathMtu() {
        return mtu;
    }

    /** Everything {@code rdma res show qp} shows of an rxe QP, and this QP's own retry counts. */
    @Override
    public synchronized QpInfo info() {
        boolean connected = attrs != null;
        long unknown = QpInfo.UNKNOWN;
        return new QpInfo(qpn, state, connected ? destQpn : unknown,
                connected ? requester.nextPsn() : unknown, connected ? responder.expectedPsn() : unknown, mtu,
                requester.retransmissions(), completer.timeouts());
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public synchronized void postSend(SendWorkRequest wr) {
        requester.post(wr);
    }

    /** Without this QP's monitor: a consumer reposting receives does not wait for the receive thread ({@link ReceiveQueue}). */
    @Override
    public void postRecv(ReceiveWorkRequest wr) {
        responder.postRecv(wr);
    }

    @Override
    public synchronized void toError() {
        enterError("user request");
    }

    void enterError(String why) {
        if (state == QpState.ERROR) {
            return;
        }
        LOG.debug("QP {} -> ERROR: {}", qpn, why);
        state = QpState.ERROR;
        completer.flush();
        requester.flush();
        responder.flush();
    }

    /** Raises this QP's asynchronous error event (the device's handler runs it on its executor). */
    void raise(AsyncEvent.QpErrorCause cause) {
        table.raise(new AsyncEvent.QueuePairError(qpn, cause));
    }

    @Override
    public void close() {
        toError();
        table.remove(this);
    }

    /** Receive thread: one packet for this QP (ICRC already verified; {@code len} excludes the ICRC). */
    public void onPacket(ByteBuffer pkt, int len, int srcIp) {
        Runnable hook = firstPacketHook;
        synchronized (this) {
            if (state != QpState.RTR && state != QpState.RTS && state != QpState.SQD) {
                counters.malformedDrops.increment();
                return;
            }
            if (srcIp != peerIp) {                   // §1.6: RC source must be the peer
                counters.malformedDrops.increment();
                return;
            }
            Opcode op = Opcode.lookup(Bth.opcode(pkt, 0));
            if (!implemented(op)) {
                // atomics, reserved: not supported -> NAK Invalid Request (§4.3)
                responder.unsupported(pkt);
                return;
            }
            int hl = op.headerLength();
            int plen = len - hl - Bth.padCount(pkt, 0);
            if (plen < 0) {
                counters.malformedDrops.increment();
                return;
            }
            if (op.isAck() || op.isReadResponse()) {
                if (state == QpState.RTS) {
                    completer.onResponse(op, pkt, hl, plen);
                }
            } else {
                responder.onRequest(op, pkt, hl, plen);
            }
        }
        if (hook != null) {
            firstPacketHook = null;
            hook.run();
        }
    }

    /**
     * The RC opcodes this engine executes (§4.3), SEND with Invalidate among them (reported, nothing invalidated:
     * {@link RcResponder}); atomics and codes unknown to {@link Opcode} (the receive thread passes only RC codes
     * 0x00-0x1F) are answered with NAK invalid request.
     */
    private static boolean implemented(Opcode op) {
        return op != null && op.isRc() && !op.isAtomic() && !op.hasAtomicAckEth();
    }

    /** Hands this QP's posted work to the port's transmit thread, once until it ran (under the lock). */
    void scheduleTransmit() {
        if (!transmitScheduled) {
            transmitScheduled = true;
            port.scheduleTransmit(this);
        }
    }

    @Override
    public void sendWaitingAck() {
        synchronized (this) {
            if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD) {
                responder.sendWaitingAck();
            }
        }
    }

    @Override
    public void transmit() {
        synchronized (this) {
            transmitScheduled = false;
            requester.pump();
        }
    }

    @Override
    public Transmittable txNext() {
        return txNext;
    }

    @Override
    public void txNext(Transmittable next) {
        txNext = next;
    }

    /** Borrows a batch for this locked section's packets to the peer; {@link #closeBatch} sends them. */
    TxBatch openBatch() {
        return port.openBatch(peer, peerIp);
    }

    void closeBatch(TxBatch out) {
        port.closeBatch(out);
    }

    /**
     * Starts laying out the next packet to the peer in {@code out} (under the lock): reserves its room and
     * begins {@link #writer} there; finish it with {@code writer.finish()}.
     */
    PacketWriter begin(TxBatch out, Opcode op, boolean solicited, boolean ackReq, int psn, int payloadLength) {
        int at = out.reserve(PacketWriter.packetLength(op, payloadLength));
        return writer.begin(out.buffer(), at, op, solicited, Bth.DEFAULT_PKEY, destQpn, ackReq, psn, payloadLength);
    }
}

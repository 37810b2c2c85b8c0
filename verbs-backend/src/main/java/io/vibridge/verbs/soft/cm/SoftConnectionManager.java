package io.vibridge.verbs.soft.cm;

import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.cm.CmConnection.State;
import io.vibridge.verbs.soft.port.PacketPort;
import io.vibridge.verbs.soft.transport.RcAttributes;
import io.vibridge.verbs.soft.transport.RcQueuePair;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmDrep;
import io.vibridge.verbs.soft.wire.CmDreq;
import io.vibridge.verbs.soft.wire.CmMad;
import io.vibridge.verbs.soft.wire.CmMessage;
import io.vibridge.verbs.soft.wire.CmMra;
import io.vibridge.verbs.soft.wire.CmPath;
import io.vibridge.verbs.soft.wire.CmRej;
import io.vibridge.verbs.soft.wire.CmRep;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.CmRtu;
import io.vibridge.verbs.soft.wire.CmTargetMessage;
import io.vibridge.verbs.soft.wire.CmTimeout;
import io.vibridge.verbs.soft.wire.Deth;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Mad;
import io.vibridge.verbs.soft.wire.MalformedPacketException;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.PathMtu;
import io.vibridge.verbs.soft.wire.Psn;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IB CM of a soft device over QP1 MADs carried as UD SEND Only (IB-WIRE-REFERENCE §5). State
 * machines per §5.10 (MRA is understood when received but never sent: we answer REQs as soon as the
 * application decides). One monitor (this object) guards the listen table and all ids; events go to
 * the id's executor (default: the device event thread), never run under the monitor.
 *
 * <p>Packets and events decided under the monitor go to an outbox (in decision order) and leave it
 * after the monitor is released: the receive thread, which takes the monitor for every CM packet,
 * never waits for another thread's UDP send or event hand-off (see {@link #flush()}).
 */
public final class SoftConnectionManager implements ConnectionManager {
    private static final Logger LOG = LoggerFactory.getLogger(SoftConnectionManager.class);
    /** Offset of the MAD in a QP1 packet: BTH + DETH (§5.1). */
    private static final int MAD_OFFSET = Bth.LENGTH + Deth.LENGTH;
    /** Hop limit of the REQ's primary path, as rdma_cm sends over RoCEv2 (§5.3). */
    private static final int HOP_LIMIT = 64;
    static final int REJ_INVALID_PRIMARY_GID = 12;
    static final int REJ_INVALID_PATH_MTU = 26;

    final PacketPort port;
    /** Packet lifetime exponent used in the REQ timeout (SoftParams.PACKET_LIFETIME). */
    final int packetLifetime;
    /** Local CA ACK delay we announce in REP (SoftParams.TARGET_ACK_DELAY). */
    final int targetAckDelay;
    /** TIMEWAIT exits due within this much of the first leave together (SoftParams.timewaitBatchNanos). */
    private final long timewaitBatchNanos;
    final long caGuid;
    /**
     * Comm IDs and starting PSNs: a fast generator seeded once from SecureRandom (a SecureRandom call per
     * connection reads /dev/urandom under a lock). Used under the CM monitor.
     */
    final RandomGenerator random =
            RandomGeneratorFactory.of("L64X128MixRandom").create(new SecureRandom().nextLong());
    private final Map<Long, Listener> listeners = new HashMap<>();
    final Map<Integer, CmConnection> byLocal = new HashMap<>();
    private final Map<RemoteKey, CmConnection> byRemote = new HashMap<>();
    /** Ids in TIMEWAIT by exit time, and the one timer serving them (guarded by the monitor). */
    private final PriorityQueue<CmConnection> timewait =
            new PriorityQueue<>((a, b) -> Long.compare(a.timewaitEnd - b.timewaitEnd, 0));
    private ScheduledFuture<?> timewaitTimer;
    private long timewaitTimerAt;
    private final Gid localGid;
    /** Packets ({@link Outgoing}) and events ({@link Emit}) in the order they were decided under the monitor. */
    final ConcurrentLinkedQueue<Object> outbox = new ConcurrentLinkedQueue<>();
    /** Held by the one thread draining the outbox; guards tx, writer and udPsn. */
    private final ReentrantLock outLock = new ReentrantLock();
    private final ByteBuffer tx = ByteBuffer.allocateDirect(512);
    private final PacketWriter writer = new PacketWriter();
    final int tidHigh;
    private int udPsn;
    private boolean shutdown;

    /** A CM MAD to send as a UD SEND Only to QP1 of {@code to}. */
    private record Outgoing(CmMessage message, long tid, InetAddress to) {
    }

    /** An event for its id's handler, handed to the id's executor. */
    record Emit(CmConnection id, CmEvent event) {
    }

    private record RemoteKey(InetAddress address, int commId) {
    }

    public SoftConnectionManager(PacketPort port, int packetLifetime, int targetAckDelay, long timewaitBatchNanos) {
        this.port = port;
        this.packetLifetime = packetLifetime;
        this.targetAckDelay = targetAckDelay;
        this.timewaitBatchNanos = timewaitBatchNanos;
        byte[] ip = port.address().getAddress();
        // EUI-64-like node GUID derived from the IP address
        this.caGuid = 0x020000FFFE000000L | (ip[0] & 0xFFL) << 40 | (ip[1] & 0xFFL) << 32
                | (ip[2] & 0xFFL) << 8 | (ip[3] & 0xFFL);
        this.tidHigh = random.nextInt();
        this.localGid = Gid.of(port.address());
    }

    // ---------------------------------------------------------------- API

    @Override
    public synchronized CmListener listen(long serviceId, CmEventHandler handler, Executor executor) {
        if (listeners.containsKey(serviceId)) {
            throw new VerbsException("Service ID 0x" + Long.toHexString(serviceId) + " is already listened on");
        }
        Listener l = new Listener(serviceId, handler, executor);
        listeners.put(serviceId, l);
        return l;
    }

    @Override
    public CmId connect(ConnectParams p, QueuePair qp, CmEventHandler handler, Executor executor) {
        if (!(qp instanceof RcQueuePair rq) || qp.state() != QpState.INIT) {
            throw new VerbsException("connect needs a soft QP in INIT");
        }
        try {
            return connectLocked(p, rq, handler, executor);
        } finally {
            flush();
        }
    }

    private CmId connectLocked(ConnectParams p, RcQueuePair rq, CmEventHandler handler, Executor executor) {
        synchronized (this) {
            CmConnection id = new CmConnection(this, true, p.remote(), p.serviceId(), handler, executor);
            id.qp = rq;
            id.params = p;
            id.pathMtu = Math.min(p.pathMtu(), port.maxPathMtu());     // REF §1.4: never above the port's
            id.startPsn = random.nextInt() & 0xFFFFFF;
            id.tid = (long) tidHigh << 32 | id.localCommId & 0xFFFFFFFFL;
            id.lastSent = CmReq.rc(id.localCommId, p.serviceId(), caGuid, rq.qpNum(), id.startPsn,
                    p.responderResources(), p.initiatorDepth(), p.cmResponseTimeout(), p.cmResponseTimeout(),
                    p.retryCount(), p.rnrRetryCount(), PathMtu.codeAtMost(id.pathMtu), p.maxCmRetries(),
                    CmPath.roce(localGid, Gid.of(p.remote()), 0, HOP_LIMIT, p.localAckTimeout()), p.privateData());
            id.state = State.REQ_SENT;
            id.retriesLeft = p.maxCmRetries();
            id.retryNanos = CmTimeout.nanos(p.cmResponseTimeout()) + 2 * CmTimeout.nanos(packetLifetime);
            send(id.lastSent, id.tid, p.remote());
            id.armRetry();
            return id;
        }
    }

    public synchronized void shutdown() {
        shutdown = true;
        for (CmConnection id : byLocal.values()) {
            id.cancelTimer();
        }
        if (timewaitTimer != null) {
            timewaitTimer.cancel(false);
            timewaitTimer = null;
        }
    }

    int newCommId() {
        int c;
        do {
            c = random.nextInt();
        } while (c == 0 || byLocal.containsKey(c));
        return c;
    }

    /** Under the monitor: queues {@code m} for sending once the monitor is released ({@link #flush()}). */
    void send(CmMessage m, long tid, InetAddress to) {
        if (shutdown) {
            return;
        }
        outbox.add(new Outgoing(m, tid, to));
    }

    /**
     * Sends the queued packets and hands over the queued events, in queue order; call without the
     * monitor after every section that may have queued something. One thread drains at a time; a
     * caller that finds another draining leaves its entries to it (the drainer looks again after
     * releasing {@link #outLock}, so nothing is left behind).
     */
    void flush() {
        while (!outbox.isEmpty()) {
            if (!outLock.tryLock()) {
                return;
            }
            try {
                Object o;
                while ((o = outbox.poll()) != null) {
                    if (o instanceof Outgoing g) {
                        transmit(g);
                    } else {
                        Emit e = (Emit) o;
                        e.id.dispatch(e.event);
                    }
                }
            } finally {
                outLock.unlock();
            }
        }
    }

    /** Under {@link #outLock}. */
    private void transmit(Outgoing g) {
        udPsn = Psn.next(udPsn);
        int total = CmCodec.writeGsiPacket(writer, tx, 0, udPsn, g.message, g.tid);     // UD SEND Only to QP1 (§5.1)
        InetSocketAddress dst = new InetSocketAddress(g.to, port.udpPort());
        port.transmit(tx, total, dst, Gid.ipv4(g.to.getAddress()));
    }

    // ---------------------------------------------------------------- receive

    /** Receive thread: a UD packet for QP1 ({@code len} excludes the ICRC). */
    public void onPacket(ByteBuffer pkt, int len, InetAddress src) {
        if (len != MAD_OFFSET + Mad.LENGTH || Deth.qkey(pkt, Bth.LENGTH) != Mad.GSI_QKEY) {
            port.counters().malformedDrops.increment();
            return;
        }
        CmMad mad;
        try {
            mad = CmCodec.decodeMad(pkt, MAD_OFFSET);
        } catch (MalformedPacketException e) {
            port.counters().malformedDrops.increment();
            return;
        }
        long tid = mad.header().transactionId();
        try {
            onMad(mad.message(), tid, src);
        } finally {
            flush();
        }
    }

    private synchronized void onMad(CmMessage m, long tid, InetAddress src) {
        if (shutdown) {
            return;
        }
        switch (m) {
            case CmReq r -> onReq(r, tid, src);
            case CmRep r -> onRep(r, src);
            case CmRtu r -> onRtu(r, src);
            case CmRej r -> onRej(r, src);
            case CmDreq r -> onDreq(r, tid, src);
            case CmDrep r -> onDrep(r, src);
            case CmMra r -> onMra(r, src);
        }
    }

    private void onReq(CmReq r, long tid, InetAddress src) {
        CmConnection old = byRemote.get(new RemoteKey(src, r.localCommId()));
        if (old != null) {                                      // duplicate REQ (§5.9)
            switch (old.state) {
                case REP_SENT, ESTABLISHED -> send(old.lastSent, old.tid, src);
                case TIMEWAIT -> send(rej(old.localCommId, r.localCommId(), CmTargetMessage.REQ,
                        CmEvent.REJ_STALE_CONNECTION), tid, src);
                default -> {
                    // REQ_RCVD: the application is still deciding; ignore
                }
            }
            return;
        }
        Listener l = listeners.get(r.serviceId());
        if (l == null) {
            send(rej(0, r.localCommId(), CmTargetMessage.REQ, CmEvent.REJ_INVALID_SERVICE_ID), tid, src);
            return;
        }
        if (!r.primaryPath().remoteGid().equals(localGid)) {
            // §5.9: over RoCE the REQ's primary remote GID must be ours
            send(rej(0, r.localCommId(), CmTargetMessage.REQ, REJ_INVALID_PRIMARY_GID), tid, src);
            return;
        }
        if (PathMtu.isValid(r.pathMtu()) && PathMtu.bytes(r.pathMtu()) > port.maxPathMtu()) {
            // REF §1.4: both QPs use the REQ's MTU, and our link cannot carry it: REJ 26 (Invalid path MTU)
            LOG.warn("REQ from {} asks for path MTU {} above this port's {}: rejected (26)", src.getHostAddress(),
                    PathMtu.bytes(r.pathMtu()), port.maxPathMtu());
            send(rej(0, r.localCommId(), CmTargetMessage.REQ, REJ_INVALID_PATH_MTU), tid, src);
            return;
        }
        CmConnection id = new CmConnection(this, false, src, r.serviceId(), l.handler, l.executor);
        id.remoteCommId = r.localCommId();
        id.req = r;
        id.tid = tid;
        id.state = State.REQ_RCVD;
        byRemote.put(new RemoteKey(src, r.localCommId()), id);
        id.emit(new CmEvent.ConnectRequest(id, src, r.serviceId(), r.privateData(), r.responderResources(),
                r.initiatorDepth()));
    }

    private CmConnection find(int ourCommId, InetAddress src) {
        CmConnection id = byLocal.get(ourCommId);
        return id != null && id.remote.equals(src) ? id : null;
    }

    private void onRep(CmRep r, InetAddress src) {
        CmConnection id = find(r.remoteCommId(), src);
        if (id == null || !id.active) {
            return;
        }
        if (id.state == State.ESTABLISHED && id.remoteCommId == r.localCommId()) {
            send(id.lastSent, id.tid, src);                     // lost RTU: answer the duplicate REP
            return;
        }
        if (id.state != State.REQ_SENT) {
            return;
        }
        id.cancelTimer();
        id.remoteCommId = r.localCommId();
        ConnectParams p = id.params;
        try {
            // IB-WIRE-REFERENCE §5.7 (Linux cm.c: cm_rep_handler sets sq_psn from the REP, ib_send_cm_req rq_psn
            // from its own REQ): the REP's Starting PSN is the PSN the passive side expects, so we send from it
            id.qp.connect(new RcAttributes(src, port.udpPort(), r.localQpn(), r.startingPsn(), id.startPsn,
                    id.pathMtu, p.retryCount(), r.rnrRetryCount(), p.localAckTimeout(),
                    Math.min(p.initiatorDepth(), r.responderResources()), p.responderResources(), p.minRnrTimer()));
        } catch (VerbsException e) {
            LOG.warn("REP for comm id {} but QP cannot connect: {}", id.localCommId, e.getMessage());
            send(rej(id.localCommId, id.remoteCommId, CmTargetMessage.REP, 1), id.tid, src);
            id.state = State.IDLE;
            remove(id);
            id.emit(new CmEvent.Rejected(id, 1, new byte[0]));
            return;
        }
        id.lastSent = new CmRtu(id.localCommId, id.remoteCommId, null);
        send(id.lastSent, id.tid, src);
        id.state = State.ESTABLISHED;
        id.emit(new CmEvent.Established(id, r.privateData(), r.responderResources(), r.initiatorDepth()));
    }

    private void onRtu(CmRtu r, InetAddress src) {
        CmConnection id = find(r.remoteCommId(), src);
        if (id != null && id.state == State.REP_SENT && id.remoteCommId == r.localCommId()) {
            establishPassive(id, r.privateData());
        }
    }

    void establishPassive(CmConnection id, byte[] pd) {
        id.cancelTimer();
        id.state = State.ESTABLISHED;
        id.emit(new CmEvent.Established(id, pd));
    }

    private void onRej(CmRej r, InetAddress src) {
        CmConnection id = byLocal.get(r.remoteCommId());
        if (id == null) {
            CmConnection p = byRemote.get(new RemoteKey(src, r.localCommId()));  // active side gave up before our REP
            if (p != null && p.state == State.REQ_RCVD) {
                remove(p);
                p.state = State.IDLE;
                p.emit(new CmEvent.Rejected(p, r.reason(), r.privateData()));
            }
            return;
        }
        if (!id.remote.equals(src)) {
            return;
        }
        switch (id.state) {
            case REQ_SENT, REP_SENT -> {
                id.cancelTimer();
                if (id.qp != null && id.state == State.REP_SENT) {
                    id.qp.toError();
                }
                id.state = State.IDLE;
                remove(id);
                id.emit(new CmEvent.Rejected(id, r.reason(), r.privateData()));
            }
            case ESTABLISHED -> {
                id.peerDisconnected = true;
                id.qp.toError();
                enterTimewait(id);
                id.emit(new CmEvent.Disconnected(id));
            }
            default -> {
            }
        }
    }

    private void onDreq(CmDreq r, long tid, InetAddress src) {
        CmConnection id = find(r.remoteCommId(), src);
        if (id != null && id.qp != null && r.remoteQpn() != id.qp.qpNum()) {
            return;                                             // §5.10: Linux ignores a DREQ for another QPN
        }
        if (id == null || id.remoteCommId != r.localCommId()) {
            // unknown connection: still answer (§5.9)
            send(new CmDrep(r.remoteCommId(), r.localCommId(), null), tid, src);
            return;
        }
        switch (id.state) {
            case REP_SENT, ESTABLISHED, DREQ_SENT -> {
                // We answer at once (as rdma_cm does when its user disconnects on the event).
                id.cancelTimer();
                id.peerDisconnected = true;
                id.qp.toError();
                id.lastSent = new CmDrep(id.localCommId, id.remoteCommId, null);
                id.dreqTid = tid;
                send(id.lastSent, tid, src);
                enterTimewait(id);
                id.emit(new CmEvent.Disconnected(id));
            }
            case TIMEWAIT -> send(new CmDrep(id.localCommId, id.remoteCommId, null), tid, src);
            default -> {
            }
        }
    }

    private void onDrep(CmDrep r, InetAddress src) {
        CmConnection id = find(r.remoteCommId(), src);
        if (id != null && id.state == State.DREQ_SENT) {
            id.cancelTimer();
            enterTimewait(id);
            id.emit(new CmEvent.Disconnected(id));
        }
    }

    private void onMra(CmMra r, InetAddress src) {
        CmConnection id = byLocal.get(r.remoteCommId());
        if (id != null && id.remote.equals(src) && (id.state == State.REQ_SENT || id.state == State.REP_SENT)) {
            // §5.8: the peer needs more time: one longer wait, retries unchanged
            id.cancelTimer();
            id.schedule(CmTimeout.nanos(r.serviceTimeout()) + id.retryNanos);
        }
    }

    void enterTimewait(CmConnection id) {
        id.cancelTimer();
        id.state = State.TIMEWAIT;
        RcAttributes a = id.qp == null ? null : id.qp.attributes();
        long wait = a == null ? CmTimeout.nanos(14) : Math.max(CmTimeout.nanos(a.ackTimeoutExp()), 1_000_000L);
        id.timewaitEnd = System.nanoTime() + wait;
        timewait.add(id);
        armTimewait();
    }

    /** Under the monitor: the timewait timer fires once the first id is due, late by at most the batch window. */
    private void armTimewait() {
        CmConnection first = timewait.peek();
        if (first == null || shutdown) {
            return;
        }
        long at = first.timewaitEnd + timewaitBatchNanos;
        if (timewaitTimer != null) {
            if (timewaitTimerAt - at <= 0) {
                return;                                         // fires early enough already
            }
            unschedule(timewaitTimer);
        }
        timewaitTimerAt = at;
        timewaitTimer = port.timers().schedule(this::onTimewaitTimer, Math.max(0, at - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    /**
     * Cancels {@code f} and takes it out of the timer queue at once: a retry timer is cancelled on almost
     * every connection (the answer came), and a cancelled task left queued would wake the timer thread
     * when its (seconds-long) timeout comes only to be discarded, and lengthen every queue operation.
     */
    void unschedule(ScheduledFuture<?> f) {
        if (f.cancel(false) && f instanceof Runnable r) {
            port.timers().remove(r);
        }
    }

    /** Timer thread: every id whose TimeWait is over leaves it (IDLE, TimewaitExit), in exit-time order. */
    private void onTimewaitTimer() {
        try {
            synchronized (this) {
                timewaitTimer = null;
                long now = System.nanoTime();
                CmConnection id;
                while ((id = timewait.peek()) != null && id.timewaitEnd - now <= 0) {
                    timewait.poll();
                    if (id.state == State.TIMEWAIT) {
                        id.state = State.IDLE;
                        remove(id);
                        id.emit(new CmEvent.TimewaitExit(id));
                    }
                }
                armTimewait();
            }
        } finally {
            flush();
        }
    }

    /** A REJ without ARI or private data. */
    private static CmRej rej(int localCommId, int remoteCommId, CmTargetMessage rejected, int reason) {
        return new CmRej(localCommId, remoteCommId, rejected, reason, null, null);
    }

    void remove(CmConnection id) {
        byLocal.remove(id.localCommId, id);
        if (!id.active) {
            byRemote.remove(new RemoteKey(id.remote, id.remoteCommId), id);
        }
    }

    // ---------------------------------------------------------------- ids

    private final class Listener implements CmListener {
        final long serviceId;
        final CmEventHandler handler;
        final Executor executor;

        Listener(long serviceId, CmEventHandler handler, Executor executor) {
            this.serviceId = serviceId;
            this.handler = handler;
            this.executor = executor;
        }

        @Override
        public long serviceId() {
            return serviceId;
        }

        @Override
        public void close() {
            synchronized (SoftConnectionManager.this) {
                listeners.remove(serviceId, this);
            }
        }
    }
}

package io.vibridge.gateway.bridge;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmEventHandler;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.QueuePairAccessHandler;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verbs objects for unit tests of the bridge's pieces: no device, no sockets, no threads. The
 * protection domain registers heap-free direct memory; the queue pair records what is posted; the
 * completion queue returns what the test {@linkplain Cq#complete completes}.
 */
public final class FakeVerbs {
    private FakeVerbs() {
    }

    /** A protection domain that registers memory and creates {@link Qp}s (into {@code qps}). */
    static ProtectionDomain protectionDomain(List<Qp> qps) {
        AtomicInteger keys = new AtomicInteger(1);
        return (ProtectionDomain) Proxy.newProxyInstance(FakeVerbs.class.getClassLoader(),
                new Class<?>[] {ProtectionDomain.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "registerMemory" -> new Region((ByteBuffer) args[0], keys.getAndIncrement());
                    case "createQueuePair" -> {
                        Qp qp = new Qp((QpInitAttributes) args[0]);
                        qps.add(qp);
                        yield qp;
                    }
                    case "close" -> null;
                    case "toString" -> "FakeVerbs.protectionDomain";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    public static ProtectionDomain protectionDomain() {
        return protectionDomain(new ArrayList<>());
    }

    /** A device that creates {@link Cq}s (into {@code cqs}) and has {@code capabilities}. */
    static VerbsDevice device(List<Cq> cqs, Set<Capability> capabilities) {
        return device(cqs, capabilities, null);
    }

    /** The same, with {@code cm} as its connection manager. */
    static VerbsDevice device(List<Cq> cqs, Set<Capability> capabilities, Cm cm) {
        return (VerbsDevice) Proxy.newProxyInstance(FakeVerbs.class.getClassLoader(),
                new Class<?>[] {VerbsDevice.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "createCompletionQueue" -> {
                        Cq cq = new Cq();
                        cqs.add(cq);
                        yield cq;
                    }
                    case "capabilities" -> capabilities.isEmpty() ? EnumSet.noneOf(Capability.class)
                            : EnumSet.copyOf(capabilities);
                    case "connectionManager" -> cm;
                    case "address" -> InetAddress.getLoopbackAddress();
                    case "name", "providerName", "toString" -> "fake";
                    case "close" -> null;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    record Region(ByteBuffer buffer, int lkey) implements MemoryRegion {
        @Override
        public long address() {
            return 0x1000L * lkey;
        }

        @Override
        public int length() {
            return buffer.capacity();
        }

        @Override
        public int rkey() {
            return lkey;
        }

        @Override
        public Set<Access> access() {
            return Set.of(Access.LOCAL_WRITE);
        }

        @Override
        public void close() {
        }
    }

    /** What was posted, copied (the poster reuses its request objects). */
    record Posted(long wrId, WrOpcode opcode, MemoryRegion region, int offset, int length, long remoteAddress,
                  int rkey, int immediate) {
    }

    static final class Qp implements QueuePair {
        final QpInitAttributes attributes;
        final List<Posted> sends = new ArrayList<>();
        final List<Posted> receives = new ArrayList<>();
        /** Posted and not completed yet (by identity): what a move to ERROR flushes when {@link #flushOnError}. */
        final List<Posted> outstanding = new ArrayList<>();
        /** Whether {@link #toError} flushes what is outstanding into the CQs, as a device does (IBA 10.8.3.2). */
        boolean flushOnError;
        QueuePairAccessHandler handler;
        QpState state = QpState.RTS;
        boolean closed;

        Qp(QpInitAttributes attributes) {
            this.attributes = attributes;
        }

        @Override
        public void postSend(SendWorkRequest wr) {
            Posted p = new Posted(wr.wrId, wr.opcode, wr.local, wr.localOffset, wr.length, wr.remoteAddress, wr.rkey,
                    wr.immediate);
            sends.add(p);
            if (wr.signaled) {
                outstanding.add(p);
            }
        }

        @Override
        public void postRecv(ReceiveWorkRequest wr) {
            Posted p = new Posted(wr.wrId, null, wr.region, wr.offset, wr.length, 0, 0, 0);
            receives.add(p);
            outstanding.add(p);
        }

        /** The oldest outstanding send (not a receive) with {@code opcode}. */
        Posted outstandingSend(WrOpcode opcode) {
            return outstanding.stream().filter(p -> p.opcode() == opcode).findFirst().orElseThrow();
        }

        /** Completes {@code p} with {@code status} in its CQ, and notifies the CQ's owner. */
        void complete(Posted p, WcStatus status) {
            remove(p);
            Cq cq = (Cq) (p.opcode() == null ? attributes.recvCq() : attributes.sendCq());
            cq.complete(p, status).notifyOwner();
        }

        /** A target SEND of {@code payload} lands in the oldest outstanding receive, which completes. */
        void receive(byte[] payload) {
            Posted r = outstanding.stream().filter(p -> p.opcode() == null).findFirst().orElseThrow();
            remove(r);
            ByteBuffer b = ((Region) r.region()).buffer().duplicate();
            b.position(r.offset());
            b.put(payload);
            Cq cq = (Cq) attributes.recvCq();
            cq.complete(r.wrId(), WcStatus.SUCCESS, WcOpcode.RECV, payload.length).notifyOwner();
        }

        private void remove(Posted p) {
            for (int i = 0; i < outstanding.size(); i++) {
                if (outstanding.get(i) == p) {
                    outstanding.remove(i);
                    return;
                }
            }
            throw new IllegalStateException("not outstanding: " + p);
        }

        @Override
        public void setAccessHandler(QueuePairAccessHandler handler) {
            this.handler = handler;
        }

        @Override
        public int qpNum() {
            return 17;
        }

        @Override
        public QpState state() {
            return state;
        }

        @Override
        public void toError() {
            if (state == QpState.ERROR) {
                return;
            }
            state = QpState.ERROR;
            if (flushOnError && !outstanding.isEmpty()) {
                for (Posted p : outstanding) {
                    Cq cq = (Cq) (p.opcode() == null ? attributes.recvCq() : attributes.sendCq());
                    cq.complete(p, WcStatus.WR_FLUSH_ERROR);
                }
                outstanding.clear();
                ((Cq) attributes.recvCq()).notifyOwner();
            }
        }

        @Override
        public CompletionQueue sendCq() {
            return attributes.sendCq();
        }

        @Override
        public CompletionQueue recvCq() {
            return attributes.recvCq();
        }

        @Override
        public int pathMtu() {
            return 4096;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    static final class Cq implements CompletionQueue {
        private final ArrayDeque<WorkCompletion> ready = new ArrayDeque<>();
        Runnable handler;
        Executor executor;
        int armed;
        boolean closed;

        /** Queues a completion for the next poll. */
        Cq complete(long wrId, WcStatus status, WcOpcode opcode, int byteLength) {
            WorkCompletion wc = new WorkCompletion();
            wc.wrId = wrId;
            wc.status = status;
            wc.opcode = opcode;
            wc.byteLength = byteLength;
            ready.add(wc);
            return this;
        }

        /** Queues the completion of {@code posted} with {@code status}. */
        Cq complete(Posted posted, WcStatus status) {
            WcOpcode op = switch (posted.opcode() == null ? WrOpcode.SEND : posted.opcode()) {
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
                case RDMA_READ -> WcOpcode.RDMA_READ;
                default -> WcOpcode.SEND;
            };
            return complete(posted.wrId(), status, op, posted.length());
        }

        /** Runs the notification handler, as the provider does after queueing completions. */
        void notifyOwner() {
            executor.execute(handler);
        }

        int pending() {
            return ready.size();
        }

        @Override
        public int poll(WorkCompletion[] out) {
            int n = 0;
            while (n < out.length && !ready.isEmpty()) {
                WorkCompletion wc = ready.poll();
                out[n].wrId = wc.wrId;
                out[n].status = wc.status;
                out[n].opcode = wc.opcode;
                out[n].byteLength = wc.byteLength;
                out[n].hasImmediate = wc.hasImmediate;
                out[n].immediate = wc.immediate;
                n++;
            }
            return n;
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
            armed++;
        }

        @Override
        public void onNotify(Runnable handler, Executor executor) {
            this.handler = handler;
            this.executor = executor;
        }

        @Override
        public int capacity() {
            return 1024;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A connection manager whose REQs the test answers: each {@link #connect} is an {@link Id} in {@link #ids}. */
    static final class Cm implements ConnectionManager {
        final List<Id> ids = new ArrayList<>();

        @Override
        public CmListener listen(long serviceId, CmEventHandler handler, Executor executor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CmId connect(ConnectParams params, QueuePair qp, CmEventHandler handler, Executor executor) {
            Id id = new Id(params, (Qp) qp, handler, executor);
            ids.add(id);
            return id;
        }
    }

    /** One active CM id: the test delivers the target's answers; a disconnect is recorded and answered. */
    static final class Id implements CmId {
        final ConnectParams params;
        final Qp qp;
        private final CmEventHandler handler;
        private final Executor executor;
        final AtomicInteger disconnects = new AtomicInteger();
        private volatile boolean peerDisconnected;

        Id(ConnectParams params, Qp qp, CmEventHandler handler, Executor executor) {
            this.params = params;
            this.qp = qp;
            this.handler = handler;
            this.executor = executor;
        }

        /** Delivers the event {@code of} makes for this id, on the consumer's executor, as a provider does. */
        void deliver(Function<CmId, CmEvent> of) {
            CmEvent e = of.apply(this);
            executor.execute(() -> handler.onEvent(e));
        }

        /** The target's DREQ: the CM moves the QP to ERROR (its work flushes), then reports the disconnect. */
        void peerDisconnects() {
            peerDisconnected = true;
            executor.execute(() -> {
                qp.toError();
                handler.onEvent(new CmEvent.Disconnected(this));
                handler.onEvent(new CmEvent.TimewaitExit(this));
            });
        }

        @Override
        public void disconnect() {
            // our DREQ: the QP to ERROR, the target's DREP, then TimeWait's end (IBA 12.9.5)
            disconnects.incrementAndGet();
            executor.execute(() -> {
                qp.toError();
                handler.onEvent(new CmEvent.Disconnected(this));
                handler.onEvent(new CmEvent.TimewaitExit(this));
            });
        }

        @Override
        public boolean peerDisconnected() {
            return peerDisconnected;
        }

        @Override
        public int localCommId() {
            return 1;
        }

        @Override
        public InetAddress remoteAddress() {
            return params.remote();
        }

        @Override
        public long serviceId() {
            return params.serviceId();
        }

        @Override
        public QueuePair queuePair() {
            return qp;
        }

        @Override
        public void accept(QueuePair qp, AcceptParams params) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reject(byte[] privateData) {
            throw new UnsupportedOperationException();
        }
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectNoMatch;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ProtocolException;
import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.ViErrorType;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One VI/TCP connection, free of I/O (sans-I/O): bytes in through {@link #receive}, events out
 * through a {@link ConnectionPeer}, bytes out through {@link #produce} / {@link #written}. No
 * sockets, threads, clocks or locks: the caller serialises every call and passes time in.
 *
 * <p>State machines: draft section 4 (figures 4.2, 4.3) with VITCP-PROFILE §7. Data path:
 * VITCP-PROFILE §3, §4, §6, §9.
 *
 * <p>Output protocol: while {@link #hasOutput()}, call {@link #produce} (header bytes written to the
 * given buffer from index 0, payload views appended to the given array), write header then payload
 * to TCP, then call {@link #written()}. Segments may be produced in batches of up to
 * {@link #MAX_UNWRITTEN} and written with one gathering write, then confirmed in order with one
 * {@link #written()} each. When {@link #closeRequested()} and no output remains, close TCP.
 */
public final class ViConnection {

    /** Connection states: draft figures 4.2 (active) and 4.3 (passive). */
    public enum State {
        /** Active: Connect Request sent, waiting for Accept/Reject/No Match (draft 4.2 Pending Accept). */
        ACTIVE_PENDING_ACCEPT,
        /** Passive: TCP accepted, waiting for the Connect Request (draft 4.3 Incoming). */
        PASSIVE_INCOMING,
        /** Passive: request matched, waiting for the consumer's accept or reject (draft 4.3 Pending Accept). */
        PASSIVE_PENDING_ACCEPT,
        CONNECTED,
        /** Broken by an error (VIA 5.4): inbound refused, waiting for TCP close. */
        ERROR,
        /** Establishment ended or the consumer disconnected (draft: Disconnected). */
        DISCONNECTED
    }

    /** Header buffer size {@link #produce} needs. */
    public static final int MAX_HEADER = 256;
    /** Passive "Incoming" timeout (VITCP-PROFILE §7), the default of {@link EngineOptions}. */
    public static final long INCOMING_TIMEOUT_NANOS = EngineOptions.DEFAULT_INCOMING_TIMEOUT_NANOS;
    public static final long MIN_MTU = ConnectionHeader.MIN_MTU;

    private static final int HDR = SegmentHeader.LENGTH;
    private static final int RDMA_HDR = HDR + RdmaHeader.LENGTH;
    // VI Error Types of an error report (VITCP-PROFILE §6)
    private static final int RDMA_PROTECTION = ViErrorType.RDMA_PROTECTION.code();
    private static final int DESCRIPTOR = ViErrorType.DESCRIPTOR.code();

    private final ConnectionPeer peer;
    private final EngineOptions.SecurityResolver passiveSecurity;
    private State state;
    private LocalEndpoint local;
    private Negotiated negotiated;
    private ReliabilityLevel level;
    private boolean rr;
    private long deadline = Long.MAX_VALUE;
    private boolean closeRequested;
    private ConnectRequest request;
    private ConnectFailure failure;
    private int failureIsCode;

    // ---- control output
    private ControlSegment pendingControl;

    // ---- credits (VITCP-PROFILE §6, §9.4)
    // credits the peer's messages used (lifetime count), checked against rxAdvertised: credit abuse
    private int peerCreditsUsed;
    private int rxPosted;
    private int rxAdvertised;
    private int peerRxPosted;
    private int creditsConsumed;
    private int peerConsumed;
    private boolean flowControl;

    // ---- outbound
    private final ArrayDeque<OutboundWork> sendQueue = new ArrayDeque<>(4);
    private OutboundWork current;
    private long currentOffset;
    private final ArrayDeque<OutboundWork> unacked = new ArrayDeque<>(4);
    private final ArrayDeque<OutboundWork> pendingReads = new ArrayDeque<>(2);
    private int nextMessage;
    private int peerReadWindow;
    private boolean preferResponse;
    // what the last produce() emitted, settled by written()
    private static final int K_NONE = 0, K_CONTROL = 1, K_DATA = 2, K_RESPONSE = 3, K_NOP = 4;
    private int payloadIndex;
    // segments produced but not yet confirmed by written(), oldest first (lets callers batch writes)
    /** Segments {@link #produce} may emit before {@link #written()} confirms the oldest. */
    public static final int MAX_UNWRITTEN = 16;
    private final int[] pKind = new int[MAX_UNWRITTEN];
    private final boolean[] pEom = new boolean[MAX_UNWRITTEN];
    private final boolean[] pReport = new boolean[MAX_UNWRITTEN];
    // the work whose last segment this is (K_DATA), and whether written() completes it
    private final OutboundWork[] pWork = new OutboundWork[MAX_UNWRITTEN];
    private final boolean[] pComplete = new boolean[MAX_UNWRITTEN];
    // the message number of a Read Response segment (K_RESPONSE)
    private final int[] pMsg = new int[MAX_UNWRITTEN];
    private int pHead;
    private int pCount;
    // Read Responses whose last segment was produced but not yet confirmed by written(): held-back
    // receive completions (VIA 6.3.1.1) wait for these as well
    private int respUnwritten;

    // ---- responder side of RDMA Reads (VITCP-PROFILE §9.5): requests whose last response segment has not
    // been produced yet. A slot frees when that segment is produced (handed to the output, in TCP order),
    // not at written(): the requester cannot see the segment earlier, so it cannot overrun the window
    private int[] respMsg;
    private long[] respAddr;
    private int[] respHandle;
    private long[] respLen;
    private int respHead;
    private int respCount;
    private long respSent;

    // ---- acknowledgement (Reliable Reception)
    private int ackCompleted;
    // inbound messages not yet complete, in arrival order (Reliable Reception): the ACK is their done prefix
    private int[] ackMsg = new int[4];
    private boolean[] ackDone = new boolean[4];
    private int ackHead;
    private int ackCount;
    private boolean manualAcks;
    private boolean respBlocked;
    private static final int BLOCKED = -2;
    private int ackSent;

    // ---- error report pending (Reliable Reception)
    private boolean reportPending;
    private int reportMsg;
    private int reportType;
    private int reportIs;

    // ---- inbound parser (streaming: payload is placed as it arrives)
    // P_ADMIT: a complete header waits for ConnectionPeer.admitMessage
    private static final int P_HEADER = 0, P_PAYLOAD = 1, P_WHOLE = 2, P_DEAD = 3, P_ADMIT = 4;
    private final ByteBuffer hdr = ByteBuffer.allocate(RDMA_HDR);
    private int phase = P_HEADER;
    private int hdrNeed = HDR;
    private ByteBuffer whole;
    private SegmentType segType;
    private int segFlags;
    private int payloadLeft;
    private long segDataOffset;
    // payload target of the current segment
    private static final int T_DISCARD = 0, T_RECEIVE = 1, T_WRITE = 2, T_RESPONSE = 3;
    private int target;
    private long targetOffset;

    // inbound message in progress (Send / RDMA Write)
    private boolean inActive;
    private SegmentType inType;
    private int inMsg;
    private long inOffset;
    private boolean inDiscard;
    private InboundReceive inReceive;
    private long inAddr;
    private int inHandle;
    private long inLen;
    private int expectedMessage;
    // inbound Read Response in progress
    private long respInOffset;

    private ViConnection(ConnectionPeer peer, EngineOptions.SecurityResolver passiveSecurity, State state) {
        this.peer = peer;
        this.passiveSecurity = passiveSecurity;
        this.state = state;
    }

    /**
     * Active side, TCP already established (draft 4.2 "TCP connection established - ConnectRequest").
     *
     * @param initialRxPosted receives posted before the connection (initial credits, §9.4)
     * @param timeoutNanos the consumer's connect timeout
     */
    public static ViConnection active(ConnectionPeer peer, LocalEndpoint local, Discriminator called,
            int initialRxPosted, long now, long timeoutNanos) {
        ViConnection c = new ViConnection(peer, EngineOptions.SecurityResolver.NONE, State.ACTIVE_PENDING_ACCEPT);
        c.local = local;
        c.rxPosted = initialRxPosted;
        c.rxAdvertised = initialRxPosted;
        ConnectionHeader h = header(local, local.discriminator(), local.mtu(), called);
        c.pendingControl = new ConnectRequest(local.initialMessageNumber(), 0, initialRxPosted & 0xFFFF, h);
        c.deadline = saturatedAdd(now, timeoutNanos);
        return c;
    }

    /** Passive side, TCP just accepted (draft 4.3 Incoming); {@code security} is the listener's key or null. */
    public static ViConnection passive(ConnectionPeer peer, ConnectSecurity security, long now) {
        return incoming(peer, EngineOptions.of(security), now);
    }

    /**
     * Passive side, TCP just accepted (draft 4.3 Incoming): times out and verifies as {@code options}
     * say. Not an overload of {@code passive}, so that {@code passive(peer, null, now)} stays unambiguous.
     */
    public static ViConnection incoming(ConnectionPeer peer, EngineOptions options, long now) {
        ViConnection c = new ViConnection(peer, options.security(), State.PASSIVE_INCOMING);
        c.deadline = saturatedAdd(now, options.incomingTimeoutNanos());
        return c;
    }

    private static ConnectionHeader header(LocalEndpoint local, Discriminator calling, long mtu, Discriminator called) {
        return local.security() == null
                ? ConnectionHeader.unsigned(local.attributes(), calling, mtu, local.rdmaReadWindow(), called)
                : ConnectionHeader.toBeSigned(local.attributes(), calling, mtu, local.rdmaReadWindow(), called);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    // =====================================================================================
    // queries

    public State state() {
        return state;
    }

    /** Agreed parameters, once connected. */
    public Negotiated negotiated() {
        return negotiated;
    }

    /** Passive: the Connect Request being decided. */
    public ConnectRequest request() {
        return request;
    }

    public ConnectFailure failure() {
        return failure;
    }

    public int failureIsCode() {
        return failureIsCode;
    }

    /** Close TCP once {@link #hasOutput()} is false. */
    public boolean closeRequested() {
        return closeRequested;
    }

    /** Earliest time {@link #tick} must be called, or {@code Long.MAX_VALUE}. */
    public long deadline() {
        return deadline;
    }

    /**
     * Receives the peer has announced (Rx Descriptors Posted) and this side has not yet used, mod 2^16;
     * meaningful as a hint even without descriptor flow control (e.g. a gateway holding Sends back).
     */
    public int peerCredits() {
        return (peerRxPosted - creditsConsumed) & 0xFFFF;
    }

    /** Inbound messages dropped for receiver-detected errors at Unreliable Delivery (VITCP-PROFILE §6). */
    public long droppedMessages() {
        return dropped;
    }

    private long dropped;

    /** Outbound works not yet completed (queued, in progress, awaiting ACK or Read Response). */
    public int outstandingWork() {
        return sendQueue.size() + (current != null ? 1 : 0) + unacked.size() + pendingReads.size();
    }

    // =====================================================================================
    // consumer events

    /** Passive: accept with this side's parameters. Returns false (and rejects, IS 9) on a reliability mismatch. */
    public boolean accept(LocalEndpoint endpoint, int initialRxPosted) {
        requireState(State.PASSIVE_PENDING_ACCEPT);
        ConnectionHeader req = request.header();
        if (req.attributes().reliabilityCode() != endpoint.attributes().reliabilityCode()) {
            reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES); // VITCP-PROFILE §5
            return false;
        }
        this.local = endpoint;
        long mtu = Math.min(endpoint.mtu(), req.mtu());
        rxPosted = initialRxPosted;
        rxAdvertised = initialRxPosted;
        ConnectionHeader h = header(endpoint, req.called(), mtu, req.calling());
        ReliabilityLevel lvl = endpoint.attributes().reliability();
        pendingControl = new ConnectAccept(endpoint.initialMessageNumber(),
                ConnectAccept.messageAckFor(lvl, request.initialMessageNumber()), initialRxPosted & 0xFFFF, h);
        establish(req, mtu, request.initialMessageNumber(), request.rxDescriptorsPosted());
        return true;
    }

    /** Passive: Connect Reject with the IS code (8 when the consumer refuses), then close. */
    public void reject(int isCode) {
        if (state != State.PASSIVE_PENDING_ACCEPT && state != State.PASSIVE_INCOMING) {
            throw new IllegalStateException("reject in state " + state);
        }
        pendingControl = new ConnectReject(isCode);
        endSetup(ConnectFailure.REJECTED, isCode);
    }

    /** Passive: no VipConnectWait matches the called discriminator: Connect No Match, close (draft 4.3). */
    public void noMatch() {
        requireState(State.PASSIVE_PENDING_ACCEPT);
        pendingControl = new ConnectNoMatch();
        endSetup(ConnectFailure.NO_MATCH, 0);
    }

    /** A receive descriptor was posted (VITCP-PROFILE §6: lifetime count). */
    public void receivePosted() {
        rxPosted++;
    }

    /**
     * Queues outbound work (VIA 6.2). The caller rejects work in states other than Connected (VIA 5:
     * completed in error) and validates the descriptor locally before posting.
     */
    public void post(OutboundWork work) {
        requireState(State.CONNECTED);
        sendQueue.addLast(work);
    }

    /** The consumer disconnects (VIA 4.2): everything outstanding completes flushed, then TCP closes. */
    public void disconnect() {
        if (state == State.CONNECTED || state == State.ERROR) {
            boolean wasConnected = state == State.CONNECTED;
            state = State.DISCONNECTED;
            flushInbound();
            flushOutbound();
            if (wasConnected) {
                peer.broken(this, BreakCause.LOCAL_DISCONNECT, 0, 0);
            }
        } else if (state != State.DISCONNECTED) {
            endSetup(ConnectFailure.CLOSED, 0);
        }
        pendingControl = null;
        phase = P_DEAD;
        closeRequested = true;
    }

    /** TCP closed or reset (draft 2.2.2.2.2: closing TCP closes the VI). */
    public void transportClosed() {
        phase = P_DEAD;
        closeRequested = true;
        switch (state) {
            case CONNECTED -> {
                state = State.ERROR;
                flushInbound();
                // VIA 10.2 bit 6: an RDMA Read in flight when the transport failed also gets Transport Error
                readsLost = true;
                flushOutbound();
                peer.broken(this, BreakCause.TRANSPORT_CLOSED, 0, 0);
            }
            case ACTIVE_PENDING_ACCEPT, PASSIVE_INCOMING, PASSIVE_PENDING_ACCEPT -> {
                pendingControl = null;
                endSetup(ConnectFailure.CLOSED, 0);
            }
            default -> {
            }
        }
        clearUnwritten();
    }

    /** Timers: call when {@code now >= deadline()}. */
    public void tick(long now) {
        if (now < deadline) {
            return;
        }
        deadline = Long.MAX_VALUE;
        if (state == State.ACTIVE_PENDING_ACCEPT || state == State.PASSIVE_INCOMING) {
            pendingControl = null;
            endSetup(ConnectFailure.TIMEOUT, IsCode.TIMEOUT);
            phase = P_DEAD;
        }
    }

    private void requireState(State s) {
        if (state != s) {
            throw new IllegalStateException("expected state " + s + " but is " + state);
        }
    }

    private void endSetup(ConnectFailure why, int isCode) {
        State was = state;
        state = State.DISCONNECTED;
        deadline = Long.MAX_VALUE;
        closeRequested = true;
        failure = why;
        failureIsCode = isCode;
        if (was == State.ACTIVE_PENDING_ACCEPT || was == State.PASSIVE_INCOMING
                || was == State.PASSIVE_PENDING_ACCEPT) {
            peer.connectFailed(this, why, isCode);
        }
    }

    private void establish(ConnectionHeader peerHeader, long mtu, int peerImn, int peerRx) {
        level = local.attributes().reliability();
        rr = level == ReliabilityLevel.RELIABLE_RECEPTION;
        flowControl = local.attributes().flowControl() && peerHeader.attributes().flowControl();
        peerReadWindow = peerHeader.rdmaReadWindow();
        int w = Math.max(1, local.rdmaReadWindow());
        respMsg = new int[w];
        respAddr = new long[w];
        respHandle = new int[w];
        respLen = new long[w];
        negotiated = new Negotiated(peerHeader, level, mtu, flowControl, local.rdmaReadWindow(), peerReadWindow,
                local.initialMessageNumber(), peerImn);
        nextMessage = local.initialMessageNumber();
        expectedMessage = peerImn;
        ackCompleted = peerImn - 1; // VITCP-PROFILE §6: before any message, peerIMN - 1
        ackSent = ackCompleted;
        peerRxPosted = peerRx;
        state = State.CONNECTED;
        deadline = Long.MAX_VALUE;
        peer.connected(this);
    }

    // =====================================================================================
    // output

    /** True when {@link #produce} has a segment to emit. */
    public boolean hasOutput() {
        if (pendingControl != null) {
            return true;
        }
        if (state != State.CONNECTED) {
            return false;
        }
        if (pCount == MAX_UNWRITTEN) {
            return false; // confirm written segments first
        }
        if (reportPending || (respCount > 0 && !respBlocked) || current != null) {
            return true;
        }
        if (nextWorkReady()) {
            return true;
        }
        return nopNeeded();
    }

    private boolean nopNeeded() {
        if (rr && ackable() != ackSent) {
            return true;
        }
        int unannounced = (rxPosted - rxAdvertised) & 0xFFFF;
        if (flowControl && unannounced != 0) {
            // VITCP-PROFILE §6: NOP when the credits the peer knows about fall below the threshold;
            // announce in batches unless the peer has none left
            int known = (rxAdvertised - peerConsumed) & 0xFFFF;
            int threshold = local.creditThreshold();
            return known == 0 || (known < threshold && unannounced >= Math.max(1, threshold / 2));
        }
        return false;
    }

    private int ackable() {
        return ackCompleted;
    }

    /** Reliable Reception: an inbound message began (its number joins the ACK queue). */
    private void trackInbound(int msg) {
        if (!rr) {
            return;
        }
        if (ackCount == ackMsg.length) {
            int[] m = new int[ackCount * 2];
            boolean[] d = new boolean[ackCount * 2];
            for (int k = 0; k < ackCount; k++) {
                m[k] = ackMsg[(ackHead + k) % ackMsg.length];
                d[k] = ackDone[(ackHead + k) % ackMsg.length];
            }
            ackMsg = m;
            ackDone = d;
            ackHead = 0;
        }
        int i = (ackHead + ackCount) % ackMsg.length;
        ackMsg[i] = msg;
        ackDone[i] = false;
        ackCount++;
    }

    /**
     * Reliable Reception: inbound message {@code msg} is complete (VITCP-PROFILE §6: placed and its
     * receive completed; §9.3: a Read once its last response segment went to TCP). The Message ACK
     * advances over the completed prefix, so it never passes an incomplete message.
     */
    private void markDone(int msg) {
        for (int k = 0; k < ackCount; k++) {
            int i = (ackHead + k) % ackMsg.length;
            if (ackMsg[i] == msg) {
                ackDone[i] = true;
                break;
            }
        }
        while (ackCount > 0 && ackDone[ackHead]) {
            ackCompleted = ackMsg[ackHead];
            ackHead = (ackHead + 1) % ackMsg.length;
            ackCount--;
        }
    }

    /**
     * For owners that complete inbound Sends and RDMA Writes asynchronously (the gateway: only once
     * the far side completed the matching work): with {@code manual}, the Message ACK covers a Send or
     * RDMA Write only after {@link #inboundCompleted} names it. Set before data flows.
     */
    public void manualInboundCompletion(boolean manual) {
        manualAcks = manual;
    }

    /** The inbound Send or RDMA Write {@code messageNumber} is complete (with {@link #manualInboundCompletion}). */
    public void inboundCompleted(int messageNumber) {
        markDone(messageNumber);
    }

    /**
     * An inbound message failed at the owner after the engine accepted it (e.g. the far side of a
     * gateway refused it): handled like a receiver-detected error (VITCP-PROFILE §6) for that message.
     */
    public void failInbound(int messageNumber, int viErrorType, int isCode) {
        if (state != State.CONNECTED) {
            return;
        }
        inMsg = messageNumber;
        receiverError(isCode, viErrorType, null, 0);
    }

    /** A {@link ConnectionPeer#rdmaSource} that returned null now has its data. */
    public void readSourceReady() {
        respBlocked = false;
    }

    private boolean nextWorkReady() {
        OutboundWork w = sendQueue.peekFirst();
        if (w == null) {
            return false;
        }
        if (w.queueFence() && !pendingReads.isEmpty()) {
            return false; // VIA 6.3.1.2
        }
        int op = w.operation();
        if (op == OutboundWork.OP_RDMA_READ) {
            return pendingReads.size() < peerReadWindow; // VITCP-PROFILE §5: never exceed the peer's window
        }
        if (flowControl && (op == OutboundWork.OP_SEND || op == OutboundWork.OP_RDMA_WRITE && w.hasImmediate())) {
            int available = (peerRxPosted - creditsConsumed) & 0xFFFF;
            return available > 0 && available < 0x8000; // VITCP-PROFILE §6
        }
        return true;
    }

    /**
     * Emits the next segment: header bytes into {@code header} (from index 0; position 0, limit =
     * header length), payload views into {@code payload}. Returns the number of payload buffers, or -1
     * when there is nothing to send. Call {@link #written()} once the bytes went to TCP.
     */
    public int produce(ByteBuffer header, ByteBuffer[] payload) {
        return produce(header, payload, 0);
    }

    /** As {@link #produce(ByteBuffer, ByteBuffer[])}, payload views stored from {@code payload[index]}. */
    public int produce(ByteBuffer header, ByteBuffer[] payload, int index) {
        payloadIndex = index;
        header.clear();
        if (pCount == MAX_UNWRITTEN) {
            return -1; // confirm written segments first
        }
        if (pendingControl != null) {
            ControlSegment c = pendingControl;
            pendingControl = null;
            int len = c.encode(header, 0);
            ConnectSecurity sec = local != null ? local.security() : null;
            if (sec != null && (c instanceof ConnectRequest || c instanceof ConnectAccept)) {
                sec.sign(header, 0, len);
            }
            header.limit(len);
            record(K_CONTROL, true, null, false, false, 0);
            return 0;
        }
        if (state != State.CONNECTED) {
            return -1;
        }
        if (reportPending && current == null) {
            return nop(header, true);
        }
        boolean workReady = current != null || nextWorkReady();
        if (respCount > 0 && !respBlocked && (preferResponse || !workReady) && !reportPending) {
            int n = responseSegment(header, payload);
            if (n != BLOCKED) {
                preferResponse = false;
                return n;
            }
            header.clear();
        }
        preferResponse = true;
        if (workReady) {
            if (current == null) {
                startWork();
            }
            if (current.operation() == OutboundWork.OP_RDMA_READ) {
                return readRequest(header);
            }
            return dataSegment(header, payload);
        }
        if (nopNeeded()) {
            return nop(header, false);
        }
        return -1;
    }

    private void startWork() {
        current = sendQueue.pollFirst();
        currentOffset = 0;
        current.messageNumber(nextMessage++);
        if (current.operation() == OutboundWork.OP_SEND
                || current.operation() == OutboundWork.OP_RDMA_WRITE && current.hasImmediate()) {
            creditsConsumed++; // VITCP-PROFILE §9.4: Sends and RDMA Writes with immediate data use a credit
        }
    }

    private int ackField() {
        if (!rr) {
            return 0; // VITCP-PROFILE §6: 0 at other levels
        }
        int a = reportPending ? reportMsg : ackable();
        ackSent = a;
        return a;
    }

    private void advertised() {
        rxAdvertised = rxPosted;
    }

    private int nop(ByteBuffer header, boolean report) {
        // VITCP-PROFILE §9.2: Message Number = last assigned; §9.1: End of Message set
        int ack = ackField();
        SegmentHeader.write(header, 0, SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, HDR, 0, 0,
                nextMessage - 1, ack, rxPosted, report ? reportType : 0, report ? reportIs : 0);
        advertised();
        header.limit(HDR);
        record(K_NOP, true, null, false, report, 0);
        return 0;
    }

    private int readRequest(ByteBuffer header) {
        OutboundWork w = current;
        SegmentHeader.write(header, 0, SegmentType.RDMA_READ_REQUEST, SegmentHeader.FLAG_END_OF_MESSAGE, RDMA_HDR,
                0, 0, w.messageNumber(), ackField(), rxPosted, 0, 0);
        RdmaHeader.write(header, HDR, w.remoteAddress(), w.remoteHandle(), w.length());
        advertised();
        header.limit(RDMA_HDR);
        pendingReads.addLast(w); // before the bytes leave: the response may race written()
        if (pendingReads.size() == 1) {
            respInOffset = 0;
        }
        current = null;
        record(K_DATA, true, w, false, false, 0);
        return 0;
    }

    private int dataSegment(ByteBuffer header, ByteBuffer[] payload) {
        OutboundWork w = current;
        long total = w.length();
        int chunk = (int) Math.min(local.segmentPayload(), total - currentOffset);
        boolean eom = currentOffset + chunk == total;
        boolean write = w.operation() == OutboundWork.OP_RDMA_WRITE;
        int hl = write ? RDMA_HDR : HDR;
        int flags = eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0;
        int imm = 0;
        if (eom && w.hasImmediate()) {
            flags |= SegmentHeader.FLAG_IMMEDIATE;
            imm = w.immediateData();
        }
        boolean report = reportPending;
        SegmentHeader.write(header, 0, write ? SegmentType.RDMA_WRITE : SegmentType.SEND, flags, hl + chunk,
                currentOffset, imm, w.messageNumber(), ackField(), rxPosted, report ? reportType : 0,
                report ? reportIs : 0);
        if (write) {
            RdmaHeader.write(header, HDR, w.remoteAddress(), w.remoteHandle(), total);
        }
        advertised();
        header.limit(hl);
        int n = chunk == 0 ? 0 : w.gather(currentOffset, chunk, payload, payloadIndex);
        currentOffset += chunk;
        if (eom) {
            current = null;
            if (rr) {
                unacked.addLast(w); // completes when a Message ACK covers it (VITCP-PROFILE §6)
            }
        }
        record(K_DATA, eom, eom ? w : null, eom && !rr, report, 0);
        return n;
    }

    private int responseSegment(ByteBuffer header, ByteBuffer[] payload) {
        int i = respHead;
        long total = respLen[i];
        int chunk = (int) Math.min(local.segmentPayload(), total - respSent);
        boolean eom = respSent + chunk == total;
        ByteBuffer src = null;
        if (chunk > 0) {
            src = peer.rdmaSource(respAddr[i] + respSent, respHandle[i], chunk);
            if (src == null) {
                respBlocked = true; // the owner calls readSourceReady() once it has the data
                return BLOCKED;
            }
        }
        SegmentHeader.write(header, 0, SegmentType.RDMA_READ_RESPONSE, eom ? SegmentHeader.FLAG_END_OF_MESSAGE : 0,
                HDR + chunk, respSent, 0, respMsg[i], ackField(), rxPosted, 0, 0);
        advertised();
        header.limit(HDR);
        int n = 0;
        if (src != null) {
            payload[payloadIndex] = src;
            n = 1;
        }
        respSent += chunk;
        record(K_RESPONSE, eom, null, false, false, respMsg[i]);
        if (eom) {
            // VITCP-PROFILE §9.5: the request stops counting against our window now; §9.3: at Reliable
            // Reception it counts as completed from the same point (later segments carry the ACK)
            respSent = 0;
            respHead = (respHead + 1) % respMsg.length;
            respCount--;
            respUnwritten++;
            markDone(respMsg[i]);
        }
        return n;
    }

    private void record(int kind, boolean eom, OutboundWork work, boolean complete, boolean report, int msg) {
        int i = (pHead + pCount) % MAX_UNWRITTEN;
        pKind[i] = kind;
        pEom[i] = eom;
        pWork[i] = work;
        pComplete[i] = complete;
        pReport[i] = report;
        pMsg[i] = msg;
        pCount++;
    }

    /** The bytes of the last {@link #produce} were handed to TCP. */
    public void written() {
        if (pCount == 0) {
            return;
        }
        int h = pHead;
        int kind = pKind[h];
        boolean lastEom = pEom[h];
        boolean lastWasReport = pReport[h];
        OutboundWork w = pWork[h];
        boolean complete = pComplete[h];
        pWork[h] = null;
        pHead = (h + 1) % MAX_UNWRITTEN;
        pCount--;
        switch (kind) {
            case K_DATA -> {
                if (w != null) {
                    peer.workWritten(w);
                }
                if (complete) {
                    // Unreliable / Reliable Delivery: complete once the last byte went to TCP (VITCP-PROFILE §6)
                    peer.workCompleted(w, Status.DONE | Status.opFor(w.operation()), w.length());
                }
                if (lastWasReport) {
                    reportSent();
                }
            }
            case K_RESPONSE -> {
                if (lastEom) {
                    peer.readResponseWritten(pMsg[h]);
                }
                if (lastEom && respUnwritten > 0) {
                    respUnwritten--;
                    while (respCount == 0 && respUnwritten == 0 && !deferred.isEmpty()) {
                        Deferred d = deferred.pollFirst();
                        peer.receiveCompleted(d.receive, d.status, d.length, d.immediate);
                    }
                }
            }
            case K_NOP -> {
                if (lastWasReport) {
                    reportSent();
                }
            }
            default -> {
            }
        }
    }

    private void clearUnwritten() {
        java.util.Arrays.fill(pWork, null);
        pHead = 0;
        pCount = 0;
    }

    private void reportSent() {
        reportPending = false;
        breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, reportType, reportIs);
    }

    // =====================================================================================
    // input

    /**
     * Consumes bytes from TCP (any chunking). Everything in {@code in} is consumed unless
     * {@link ConnectionPeer#admitMessage} refused a message: then {@code in.position()} is the first
     * byte after that segment's header (the engine keeps the header) and {@link #awaitingAdmission()}
     * is true. Call again with the rest of the input, or with an empty buffer, to retry the admission.
     */
    public void receive(ByteBuffer in) {
        if (phase == P_ADMIT && !retryAdmission()) {
            return;
        }
        while (in.hasRemaining()) {
            switch (phase) {
                case P_HEADER -> {
                    int n = Math.min(in.remaining(), hdrNeed - hdr.position());
                    int lim = in.limit();
                    in.limit(in.position() + n);
                    hdr.put(in);
                    in.limit(lim);
                    if (hdr.position() < hdrNeed) {
                        return;
                    }
                    if (hdrNeed == HDR && !basicHeader()) {
                        continue;
                    }
                    if (hdr.position() == hdrNeed && phase == P_HEADER) {
                        onHeader();
                        if (phase == P_ADMIT) {
                            return;
                        }
                    }
                }
                case P_PAYLOAD -> {
                    int n = Math.min(in.remaining(), payloadLeft);
                    int lim = in.limit();
                    int pos = in.position();
                    in.limit(pos + n);
                    deliver(in);
                    in.limit(lim);
                    in.position(pos + n);
                    payloadLeft -= n;
                    targetOffset += n;
                    if (payloadLeft == 0) {
                        segmentEnd();
                    }
                }
                case P_WHOLE -> {
                    int n = Math.min(in.remaining(), whole.remaining());
                    int lim = in.limit();
                    in.limit(in.position() + n);
                    whole.put(in);
                    in.limit(lim);
                    if (!whole.hasRemaining()) {
                        ByteBuffer seg = whole;
                        whole = null;
                        resetHeader();
                        onConnectionSegment(seg.flip());
                    }
                }
                default -> {
                    in.position(in.limit()); // refused (VIA 5.4) or closed
                    return;
                }
            }
        }
    }

    /** True while a refused message's header waits for {@link ConnectionPeer#admitMessage}. */
    public boolean awaitingAdmission() {
        return phase == P_ADMIT;
    }

    private boolean retryAdmission() {
        phase = P_HEADER;
        onHeader();
        return phase != P_ADMIT;
    }

    private void resetHeader() {
        hdr.clear();
        hdrNeed = HDR;
        phase = P_HEADER;
    }

    /** First 24 bytes: validates what decides the segment's framing. Returns false if it switched phase. */
    private boolean basicHeader() {
        int version = SegmentHeader.version(hdr, 0);
        int type = SegmentHeader.typeCode(hdr, 0);
        int len = SegmentHeader.segmentLength(hdr, 0);
        if (version != SegmentHeader.VERSION) {
            if (state == State.PASSIVE_INCOMING) {
                request = null;
                state = State.PASSIVE_PENDING_ACCEPT;
                reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES); // VITCP-PROFILE §2
                phase = P_DEAD;
                return false;
            }
            protocolError("version " + version);
            return false;
        }
        if (!SegmentType.isDefined(type)) {
            protocolError("reserved type " + type);
            return false;
        }
        SegmentType t = SegmentType.of(type, SegmentHeader.OFF_TYPE_FLAGS);
        if (len < t.minimumSegmentLength()) {
            protocolError("segment length " + len + " too short for " + t);
            return false;
        }
        if (t.hasConnectionHeader() || t.isConnectionSetup()) {
            whole = ByteBuffer.allocate(len);
            whole.put(hdr.flip());
            if (!whole.hasRemaining()) {
                ByteBuffer seg = whole;
                whole = null;
                resetHeader();
                onConnectionSegment(seg.flip());
            } else {
                phase = P_WHOLE;
            }
            return false;
        }
        if (t.hasRdmaHeader()) {
            hdrNeed = RDMA_HDR;
        }
        return true;
    }

    private void protocolError(String why) {
        // VITCP-PROFILE §9.8: close without report, at every level
        lastProtocolError = why; // before the callbacks, so that an owner can log it from broken()
        phase = P_DEAD;
        closeRequested = true;
        switch (state) {
            case CONNECTED -> {
                state = State.ERROR;
                flushInbound();
                flushOutbound();
                peer.broken(this, BreakCause.PROTOCOL_ERROR, 0, 0);
            }
            case ACTIVE_PENDING_ACCEPT, PASSIVE_INCOMING, PASSIVE_PENDING_ACCEPT -> endSetup(ConnectFailure.PROTOCOL, 0);
            default -> {
            }
        }
    }

    private String lastProtocolError;

    /** Why the last protocol error closed the connection (diagnostics). */
    public String lastProtocolError() {
        return lastProtocolError;
    }

    private void onConnectionSegment(ByteBuffer seg) {
        ControlSegment c;
        try {
            c = ControlSegment.decode(seg, 0, seg.limit());
        } catch (ProtocolException e) {
            if (state == State.PASSIVE_INCOMING) {
                state = State.PASSIVE_PENDING_ACCEPT;
                reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES);
                phase = P_DEAD;
            } else {
                protocolError(e.getMessage());
            }
            return;
        }
        switch (state) {
            case PASSIVE_INCOMING -> {
                if (!(c instanceof ConnectRequest cr)) {
                    protocolError("expected Connect Request, got " + c.type());
                    return;
                }
                onConnectRequest(cr, seg);
            }
            case ACTIVE_PENDING_ACCEPT -> {
                switch (c) {
                    case ConnectAccept ca -> onConnectAccept(ca, seg);
                    case ConnectReject rj -> {
                        phase = P_DEAD;
                        endSetup(ConnectFailure.REJECTED, rj.isErrorCode());
                    }
                    case ConnectNoMatch nm -> {
                        phase = P_DEAD;
                        endSetup(ConnectFailure.NO_MATCH, 0);
                    }
                    default -> protocolError("unexpected " + c.type());
                }
            }
            // VITCP-PROFILE §9.8: a connection segment on a connected VI is a protocol error
            default -> protocolError("connection segment " + c.type() + " in state " + state);
        }
    }

    private void onConnectRequest(ConnectRequest cr, ByteBuffer seg) {
        request = cr;
        state = State.PASSIVE_PENDING_ACCEPT;
        deadline = Long.MAX_VALUE;
        phase = P_DEAD; // nothing may follow before our answer
        ConnectionHeader h = cr.header();
        ConnectSecurity sec = passiveSecurity.forCalled(h.called());
        if (sec != null && (h.securityType() != ConnectionHeader.SECURITY_HMAC_SHA256
                || !sec.verify(seg, 0, seg.limit()))) {
            pendingControl = new ConnectReject(IsCode.SECURITY_REJECTED); // VITCP-PROFILE §5
            endSetup(ConnectFailure.SECURITY, IsCode.SECURITY_REJECTED);
            return;
        }
        if (!h.attributes().conformsToProfile()) {
            reject(IsCode.UNSUPPORTED_VERSION_OR_ATTRIBUTES); // VITCP-PROFILE §9.9
            return;
        }
        if (h.mtu() < MIN_MTU) {
            reject(IsCode.MTU_TOO_SMALL); // VITCP-PROFILE §5
            return;
        }
        phase = P_HEADER;
        peer.connectRequested(this);
    }

    private void onConnectAccept(ConnectAccept ca, ByteBuffer seg) {
        ConnectionHeader h = ca.header();
        ConnectSecurity sec = local.security();
        if (sec != null && (h.securityType() != ConnectionHeader.SECURITY_HMAC_SHA256 || !sec.verify(seg, 0, seg.limit()))) {
            phase = P_DEAD;
            endSetup(ConnectFailure.SECURITY, IsCode.SECURITY_REJECTED);
            return;
        }
        if (!h.attributes().hasValidReliability()
                || h.attributes().reliabilityCode() != local.attributes().reliabilityCode()
                || h.mtu() < MIN_MTU || h.mtu() > local.mtu()) {
            protocolError("Connect Accept does not match the request: " + h);
            return;
        }
        establish(h, h.mtu(), ca.initialMessageNumber(), ca.rxDescriptorsPosted());
    }

    /**
     * Full 24 (or 40) header bytes of a non-connection segment are in {@code hdr}. Stops in P_ADMIT
     * when the owner refuses a new message; everything before the admission is safe to repeat (the
     * same Rx Descriptors Posted and Message ACK again), so a retry simply runs it again.
     */
    private void onHeader() {
        if (state != State.CONNECTED) {
            if (state == State.ERROR || state == State.DISCONNECTED) {
                phase = P_DEAD;
                return;
            }
            protocolError("data segment before the connection is established");
            return;
        }
        // VITCP-PROFILE §9.10: unordered types are handled as their ordered counterparts
        SegmentType type = SegmentType.of(SegmentHeader.typeCode(hdr, 0), SegmentHeader.OFF_TYPE_FLAGS).ordered();
        segFlags = SegmentHeader.flags(hdr, 0);
        int len = SegmentHeader.segmentLength(hdr, 0);
        segDataOffset = SegmentHeader.dataOffset(hdr, 0);
        int msg = SegmentHeader.messageNumber(hdr, 0);
        boolean eom = (segFlags & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
        payloadLeft = len - hdrNeed;
        segType = type;
        segImmediate = SegmentHeader.immediateData(hdr, 0);
        // credits and acknowledgement travel in every segment (VITCP-PROFILE §6)
        peerRxPosted = SegmentHeader.rxDescriptorsPosted(hdr, 0);
        if (rr && !onAck(SegmentHeader.messageAck(hdr, 0), SegmentHeader.viErrorType(hdr, 0),
                SegmentHeader.isErrorCode(hdr, 0))) {
            return;
        }
        boolean transmitError = (segFlags & SegmentHeader.FLAG_TRANSMIT_ERROR) != 0;
        if (transmitError && !type.carriesPayload()) {
            protocolError("Transmit Error flag on a segment without payload"); // wire §2.2.2.2.5: data segments only
            return;
        }
        target = T_DISCARD;
        targetOffset = 0;
        switch (type) {
            case NOP -> {
                if (payloadLeft != 0) {
                    protocolError("NOP with payload");
                    return;
                }
                if (inActive) {
                    protocolError("NOP inside a message"); // VITCP-PROFILE §9.2
                    return;
                }
            }
            case SEND -> {
                if (!beginMessageSegment(type, msg)) {
                    return;
                }
                onSendSegment(eom);
                if (transmitError && phase != P_DEAD) {
                    transmitError(Status.OP_RECEIVE);
                }
            }
            case RDMA_WRITE -> {
                if (!beginMessageSegment(type, msg)) {
                    return;
                }
                onWriteSegment(eom);
                if (transmitError && phase != P_DEAD) {
                    transmitError(Status.OP_REMOTE_RDMA_WRITE);
                }
            }
            case RDMA_READ_REQUEST -> onReadRequest(msg, eom);
            case RDMA_READ_RESPONSE -> {
                onReadResponse(msg, eom);
                if (transmitError && phase != P_DEAD) {
                    readResponseTransmitError();
                }
            }
            default -> {
                protocolError("unexpected type " + type);
                return;
            }
        }
        if (phase == P_DEAD || phase == P_ADMIT) {
            return;
        }
        resetHeaderKeepTarget();
        if (payloadLeft == 0) {
            segmentEnd();
        } else {
            phase = P_PAYLOAD;
        }
    }

    private void resetHeaderKeepTarget() {
        hdr.clear();
        hdrNeed = HDR;
        phase = P_HEADER;
    }

    /**
     * Sequence (VITCP-PROFILE §9.8) and credit checks of a Send or RDMA Write segment, then admission of
     * a new message. Returns false when the segment must not be processed (protocol error or refused).
     */
    private boolean beginMessageSegment(SegmentType type, int msg) {
        boolean immediate = (segFlags & (SegmentHeader.FLAG_IMMEDIATE | SegmentHeader.FLAG_END_OF_MESSAGE))
                == (SegmentHeader.FLAG_IMMEDIATE | SegmentHeader.FLAG_END_OF_MESSAGE);
        if (inActive) {
            if (inType != type || msg != inMsg || segDataOffset != inOffset) {
                protocolError("broken segment sequence"); // VITCP-PROFILE §9.8
                return false;
            }
            inFirst = false;
            // VITCP-PROFILE §9.4: the last segment of an RDMA Write with immediate data uses a credit
            if (type == SegmentType.RDMA_WRITE && immediate) {
                if (creditAbused(msg)) {
                    return false;
                }
                useCredit();
            }
            return true;
        }
        if (segDataOffset != 0 || msg != expectedMessage) {
            protocolError("message " + msg + " offset " + segDataOffset + ", expected message " + expectedMessage);
            return false;
        }
        // VITCP-PROFILE §9.4: a Send uses a credit, an RDMA Write with immediate data too
        boolean usesCredit = type == SegmentType.SEND || immediate;
        if (usesCredit && creditAbused(msg)) {
            return false;
        }
        if (!admitted(type, msg)) {
            return false;
        }
        if (usesCredit) {
            useCredit();
        }
        expectedMessage++;
        inActive = true;
        inType = type;
        inMsg = msg;
        trackInbound(msg);
        inOffset = 0;
        inDiscard = false;
        inReceive = null;
        inFirst = true;
        return true;
    }

    /**
     * VITCP-PROFILE §6: with descriptor flow control the peer may use only the credits this side
     * announced; using one more is a protocol error.
     */
    private boolean creditAbused(int msg) {
        if (!flowControl) {
            return false;
        }
        if (peerCreditsUsed + 1 - rxAdvertised > 0) {
            protocolError("credit abuse: message " + Integer.toUnsignedString(msg) + " sent without a receive credit");
            return true;
        }
        return false;
    }

    private void useCredit() {
        if (flowControl) {
            peerCreditsUsed++;
        }
    }

    /** Asks the owner to admit a new message; when refused, the header waits in P_ADMIT. */
    private boolean admitted(SegmentType type, int msg) {
        if (peer.admitMessage(type, msg)) {
            return true;
        }
        phase = P_ADMIT;
        return false;
    }

    private void onSendSegment(boolean eom) {
        long end = inOffset + payloadLeft;
        if (end > negotiated.mtu()) {
            protocolError("message larger than the MTU");
            return;
        }
        if (inFirst) {
            peerConsumed++;
            inReceive = peer.takeReceive(SegmentType.SEND, inMsg);
            if (inReceive == null) {
                receiverError(IsCode.RECEIVE_QUEUE_EMPTY, DESCRIPTOR, null, Status.OP_RECEIVE);
            }
        }
        if (!inDiscard && end > inReceive.capacity()) {
            InboundReceive r = inReceive;
            inReceive = null;
            receiverError(IsCode.RECEIVE_DESCRIPTOR_TOO_SMALL, DESCRIPTOR, r, Status.OP_RECEIVE);
        }
        if (!inDiscard) {
            target = T_RECEIVE;
            targetOffset = inOffset;
        }
        inOffset = end;
        pendingEom = eom;
    }

    private boolean pendingEom;

    private void onWriteSegment(boolean eom) {
        long addr = RdmaHeader.address(hdr, HDR);
        int handle = RdmaHeader.handle(hdr, HDR);
        long len = RdmaHeader.length(hdr, HDR);
        long end = inOffset + payloadLeft;
        if (inFirst) {
            if (len > negotiated.mtu()) {
                protocolError("RDMA Write larger than the MTU");
                return;
            }
            inAddr = addr;
            inHandle = handle;
            inLen = len;
            int is = peer.checkRemoteAccess(inMsg, addr, handle, len, true); // VITCP-PROFILE §9.6
            if (is != 0) {
                receiverError(is, RDMA_PROTECTION, null, Status.OP_REMOTE_RDMA_WRITE);
            }
        } else if (addr != inAddr || handle != inHandle || len != inLen) {
            protocolError("RDMA header changed within a message");
            return;
        }
        if (end > inLen || eom != (end == inLen)) {
            protocolError("RDMA Write offset/length/End of Message disagree");
            return;
        }
        if (!inDiscard) {
            target = T_WRITE;
            targetOffset = inOffset;
        }
        inOffset = end;
        pendingEom = eom;
    }

    private void onReadRequest(int msg, boolean eom) {
        if (inActive) {
            protocolError("RDMA Read Request inside a message");
            return;
        }
        if (payloadLeft != 0 || !eom || segDataOffset != 0 || msg != expectedMessage) {
            protocolError("malformed RDMA Read Request");
            return;
        }
        long addr = RdmaHeader.address(hdr, HDR);
        int handle = RdmaHeader.handle(hdr, HDR);
        long len = RdmaHeader.length(hdr, HDR);
        if (len > negotiated.mtu()) {
            protocolError("RDMA Read larger than the MTU");
            return;
        }
        boolean withinWindow = respCount < local.rdmaReadWindow();
        if (withinWindow && !admitted(SegmentType.RDMA_READ_REQUEST, msg)) {
            return;
        }
        expectedMessage++;
        if (!withinWindow) {
            inMsg = msg;
            receiverError(IsCode.READ_WINDOW_EXCEEDED, DESCRIPTOR, null, 0); // VITCP-PROFILE §6: IS 7, type 2
            return;
        }
        int is = peer.checkRemoteAccess(msg, addr, handle, len, false);
        if (is != 0) {
            inMsg = msg;
            receiverError(is, RDMA_PROTECTION, null, 0);
            return;
        }
        int i = (respHead + respCount) % respMsg.length;
        respMsg[i] = msg;
        respAddr[i] = addr;
        respHandle[i] = handle;
        respLen[i] = len;
        respCount++;
        trackInbound(msg);
    }

    private void onReadResponse(int msg, boolean eom) {
        OutboundWork w = pendingReads.peekFirst();
        if (w == null || msg != w.messageNumber() || segDataOffset != respInOffset) {
            protocolError("unexpected RDMA Read Response");
            return;
        }
        long end = respInOffset + payloadLeft;
        if (end > w.length() || eom != (end == w.length())) {
            protocolError("RDMA Read Response length disagrees with the request");
            return;
        }
        target = T_RESPONSE;
        targetOffset = respInOffset;
        respInOffset = end;
        respEom = eom;
    }

    private boolean respEom;

    private void deliver(ByteBuffer slice) {
        switch (target) {
            case T_RECEIVE -> inReceive.place(targetOffset, slice);
            case T_WRITE -> peer.rdmaPlace(inAddr + targetOffset, inHandle, slice);
            case T_RESPONSE -> pendingReads.peekFirst().scatter(targetOffset, slice);
            default -> {
            }
        }
    }

    /** The current segment's payload has fully arrived. */
    private void segmentEnd() {
        phase = phase == P_DEAD ? P_DEAD : P_HEADER;
        switch (segType) {
            case SEND -> {
                if (pendingEom) {
                    inActive = false;
                    if (!inDiscard) {
                        InboundReceive r = inReceive;
                        inReceive = null;
                        boolean imm = (segFlags & SegmentHeader.FLAG_IMMEDIATE) != 0;
                        int immediate = imm ? segImmediate : 0;
                        int st = Status.DONE | Status.OP_RECEIVE | (imm ? Status.IMMEDIATE : 0);
                        if (rr && (respCount > 0 || respUnwritten > 0)) {
                            // VIA 6.3.1.1: at Reliable Reception a Send that bypassed an RDMA Read completes only
                            // after the Read's data went out
                            deferred.addLast(new Deferred(r, st, inOffset, immediate));
                        } else {
                            peer.receiveCompleted(r, st, inOffset, immediate);
                        }
                        if (!manualAcks) {
                            markDone(inMsg);
                        }
                    }
                }
            }
            case RDMA_WRITE -> {
                if (pendingEom) {
                    inActive = false;
                    if (!inDiscard) {
                        boolean imm = (segFlags & SegmentHeader.FLAG_IMMEDIATE) != 0;
                        peer.rdmaWritePlaced(inMsg, imm, imm ? segImmediate : 0);
                        if (imm) {
                            // VIA 10.2: immediate data consumes a receive descriptor
                            peerConsumed++;
                            InboundReceive r = peer.takeReceive(SegmentType.RDMA_WRITE, inMsg);
                            if (r == null) {
                                receiverError(IsCode.RECEIVE_QUEUE_EMPTY, DESCRIPTOR, null, Status.OP_REMOTE_RDMA_WRITE);
                                return;
                            }
                            peer.receiveCompleted(r, Status.DONE | Status.OP_REMOTE_RDMA_WRITE | Status.IMMEDIATE, 0,
                                    segImmediate);
                        }
                        if (!manualAcks) {
                            markDone(inMsg);
                        }
                    }
                }
            }
            case RDMA_READ_RESPONSE -> {
                if (respEom) {
                    OutboundWork w = pendingReads.pollFirst();
                    respInOffset = 0;
                    peer.workCompleted(w, Status.DONE | Status.OP_RDMA_READ, w.length());
                }
            }
            default -> {
            }
        }
    }

    private int segImmediate;
    private boolean inFirst;

    /**
     * Handles a Message ACK (Reliable Reception). Returns false when the segment reported an error
     * and the connection broke.
     */
    private boolean onAck(int ack, int viErrorType, int isCode) {
        if (viErrorType == ViErrorType.NONE.code()) {
            completeAcked(ack);
            return true;
        }
        // VITCP-PROFILE §6: the Message ACK names the failing message
        int errorBit = viErrorType == RDMA_PROTECTION ? Status.RDMA_PROT_ERROR : Status.REMOTE_DESC_ERROR;
        completeAcked(ack - 1);
        OutboundWork failed = null;
        if (!unacked.isEmpty() && unacked.peekFirst().messageNumber() == ack) {
            failed = unacked.pollFirst();
        } else {
            for (OutboundWork r : pendingReads) {
                if (r.messageNumber() == ack) {
                    failed = r;
                    pendingReads.remove(r);
                    if (viErrorType != RDMA_PROTECTION) {
                        errorBit = Status.TRANSPORT_ERROR;
                    }
                    break;
                }
            }
        }
        if (failed != null) {
            peer.workCompleted(failed, Status.DONE | errorBit | Status.opFor(failed.operation()), 0);
        }
        state = State.ERROR;
        phase = P_DEAD;
        closeRequested = true;
        flushInbound();
        flushOutbound();
        peer.broken(this, BreakCause.REMOTE_ERROR, viErrorType, isCode);
        return false;
    }

    private void completeAcked(int ack) {
        while (!unacked.isEmpty() && ack - unacked.peekFirst().messageNumber() >= 0) {
            OutboundWork w = unacked.pollFirst();
            peer.workCompleted(w, Status.DONE | Status.opFor(w.operation()), w.length());
        }
    }

    /** A receiver-detected error (VITCP-PROFILE §6), per reliability level. */
    private void receiverError(int isCode, int viErrorType, InboundReceive consumed, int op) {
        inDiscard = true;
        target = T_DISCARD;
        if (consumed != null) {
            peer.receiveCompleted(consumed, Status.DONE | Status.LENGTH_ERROR | op, 0, 0);
        }
        switch (level) {
            case UNRELIABLE_DELIVERY -> {
                dropped++; // dropped; the connection stays up (VIA 2.5.1)
            }
            case RELIABLE_DELIVERY -> {
                phase = P_DEAD;
                breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, viErrorType, isCode);
            }
            case RELIABLE_RECEPTION -> {
                // report on the next segment, then Error and close
                reportPending = true;
                reportMsg = inMsg;
                reportType = viErrorType;
                reportIs = isCode;
                phase = P_DEAD; // inbound refused from now on (VIA 5.4)
            }
        }
    }

    /**
     * A Send or RDMA Write segment carries the Transmit Error flag (draft 2.2.2.2.5: the sender could
     * not retransmit the original data and padded): the message is corrupt. Its payload is discarded
     * from here on, a receive it consumed completes with Transport Error (VIA 10.2 bit 6) and, per
     * level (VIA 2.5): Unreliable Delivery drops the message and stays connected; Reliable Delivery
     * and Reliable Reception move the VI to Error and close TCP without a report. No report at Reliable
     * Reception: no VI Error Type / IS code pair names it (VITCP-PROFILE §6) and the sender, which set
     * the flag, already knows; its descriptor completes flushed when TCP closes.
     */
    private void transmitError(int op) {
        if (inDiscard) {
            return; // the message already failed (e.g. no receive posted)
        }
        inDiscard = true;
        target = T_DISCARD;
        InboundReceive r = inReceive;
        inReceive = null;
        if (r != null) {
            peer.receiveCompleted(r, Status.DONE | Status.TRANSPORT_ERROR | op, 0, 0);
        }
        if (level == ReliabilityLevel.UNRELIABLE_DELIVERY) {
            dropped++;
            return;
        }
        phase = P_DEAD;
        breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, 0, IsCode.REMOTE_TRANSPORT_ERROR);
    }

    /**
     * A Read Response segment carries the Transmit Error flag (draft 2.2.2.2.5): the responder could not
     * read its memory; the RDMA Read completes with Transport Error (VIA 10.2 bit 6), nothing more of it
     * is placed, and the VI goes to Error (Reads exist only at Reliable Delivery and Reception, VIA 2.5).
     */
    private void readResponseTransmitError() {
        target = T_DISCARD;
        OutboundWork w = pendingReads.pollFirst();
        respInOffset = 0;
        peer.workCompleted(w, Status.DONE | Status.TRANSPORT_ERROR | Status.OP_RDMA_READ, 0);
        phase = P_DEAD;
        breakConnection(BreakCause.LOCAL_RECEIVE_ERROR, 0, IsCode.REMOTE_TRANSPORT_ERROR);
    }

    private void breakConnection(BreakCause cause, int viErrorType, int isCode) {
        if (state != State.CONNECTED) {
            return;
        }
        state = State.ERROR;
        phase = P_DEAD;
        closeRequested = true;
        flushInbound();
        flushOutbound();
        peer.broken(this, cause, viErrorType, isCode);
    }

    /** A receive completion held back behind outstanding RDMA Read responses (Reliable Reception). */
    private record Deferred(InboundReceive receive, int status, long length, int immediate) {
    }

    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>(0);

    private void flushInbound() {
        while (!deferred.isEmpty()) {
            Deferred d = deferred.pollFirst();
            peer.receiveCompleted(d.receive, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.OP_RECEIVE, 0, 0);
        }
        if (inReceive != null) {
            InboundReceive r = inReceive;
            inReceive = null;
            peer.receiveCompleted(r, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.PARTIAL_ERROR | Status.OP_RECEIVE,
                    0, 0);
        }
        inActive = false;
    }

    /** VIA 5.4: outbound work left on the queues completes in error (flushed). */
    private void flushOutbound() {
        reportPending = false;
        ArrayDeque<OutboundWork> all = new ArrayDeque<>();
        for (int k = 0; k < pCount; k++) {
            int i = (pHead + k) % MAX_UNWRITTEN;
            if (pComplete[i]) {
                all.add(pWork[i]); // produced, but written() did not confirm it
            }
        }
        clearUnwritten();
        all.addAll(unacked);
        if (current != null) {
            all.add(current);
        }
        int reads = readsLost ? pendingReads.size() : 0;
        readsLost = false;
        ArrayDeque<OutboundWork> lostReads = new ArrayDeque<>(pendingReads);
        all.addAll(sendQueue);
        unacked.clear();
        current = null;
        pendingReads.clear();
        sendQueue.clear();
        respCount = 0;
        respUnwritten = 0;
        respSent = 0;
        respBlocked = false;
        // RDMA Reads in flight when the transport failed: Transport Error as well (VIA 10.2 bit 6)
        for (OutboundWork w : lostReads) {
            peer.workCompleted(w, Status.DONE | Status.DESC_FLUSHED_ERROR | (reads > 0 ? Status.TRANSPORT_ERROR : 0)
                    | Status.OP_RDMA_READ, 0);
        }
        for (OutboundWork w : all) {
            peer.workCompleted(w, Status.DONE | Status.DESC_FLUSHED_ERROR | Status.opFor(w.operation()), 0);
        }
    }

    private boolean readsLost;
}

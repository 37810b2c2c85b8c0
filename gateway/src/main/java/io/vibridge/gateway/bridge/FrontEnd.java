package io.vibridge.gateway.bridge;

import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.metrics.GatewayMetrics;
import java.net.InetAddress;
import java.time.Duration;

/**
 * The client side of one {@link BridgedConnection}: a TCP protocol (VI/TCP, iWARP) that speaks RDMA
 * operations, as rdma_cm runs IB and iWARP through one lifecycle with small per-transport hooks (Linux
 * cma.c). The seam is the operation, not a wire format:
 * <ul>
 *   <li>setup: the front end asks its {@link Host} to {@link Host#connect} a route with read depths; the
 *       connection answers {@link #targetAccepted} or {@link #targetRefused}, which the front end puts in
 *       its own wire (a Connect Accept or Reject and its IS code; an MPA Reply or Reject);</li>
 *   <li>client to target: the front end stages the client's Sends, Writes and Read Requests in the
 *       connection's {@link StagingSlots} and hands each to {@link Host#stage}; the connection reports
 *       each slot's end ({@link #clientOpDone}, {@link #clientOpFailed}, {@link #clientOpEnded},
 *       {@link #readDone});</li>
 *   <li>target to client: {@link #deliver} hands the target's operations in the order it issued them;</li>
 *   <li>teardown: the connection drains ({@link #idle}, {@link #close}) or fails ({@link #fail}).</li>
 * </ul>
 * Its client bytes it takes as the {@link ClientSocket.Stream} of the connection's socket. No verbs type crosses
 * this seam. Everything runs on the connection's event loop.
 */
public interface FrontEnd extends ClientSocket.Stream {

    /** What the front end asks of its connection. */
    interface Host {
        long id();

        InetAddress clientAddress();

        int clientPort();

        /** The client's socket (the front end lays its output out there). */
        ClientSocket socket();

        GatewayConfig config();

        GatewayMetrics metrics();

        /**
         * Setup failed before the client was answered ({@code what} happened): counted, and logged at INFO once per
         * kind and summary period, the others at DEBUG (a flood of bad clients is one line, not thousands).
         */
        void setupFailed(SetupFailure failure, String what);

        Phase phase();

        /**
         * The client asked for {@code route} on the terms of {@code request}. The answer comes as
         * {@link #targetAccepted} or {@link #targetRefused}.
         */
        void connect(Route route, ClientRequest request);

        /** The connection's staging slots (null before {@link #connect} reserved them). */
        StagingSlots slots();

        /**
         * Admits the client's next message into a free slot ({@link StagingSlots#takeAdmitted} then names it):
         * false while none is free (backpressure; the stall is counted once per waiting message) or once the
         * connection is not CONNECTED (no new message while it drains).
         */
        boolean admit();

        /** The client message staged in slot {@code slot} goes to the target in its turn. */
        void stage(int slot);

        /** The target SEND in receive slot {@code slot} reached the client: the slot takes the next one. */
        void delivered(int slot);

        /** Target READs longer than {@code length} are split into several Read Requests to the client. */
        void splitTargetReads(long length);

        /** A client slot came back: the connection may have drained, held input may go on. */
        void slotFreed();

        /** The client's connection ended or broke ({@code why}): the bridge drains and closes. */
        void clientEnded(String why);

        /** The front end cannot carry on ({@code why}): the bridge fails, as on an InfiniBand failure. */
        void fail(String why);

        /**
         * Runs {@code action} on the connection's context after {@code delay} unless the connection is released
         * first; one such timer at a time (a new one replaces the one before).
         */
        void schedule(Duration delay, Runnable action);

        /** Writes what is due to the client (re-entrant calls ask the running pass for another round). */
        void pump();
    }

    /** Why the connection cannot be bridged; each front end answers it in its own wire. */
    enum Refusal {
        /** A limit of the gateway (connections, per client, staging). */
        LIMIT,
        /** The target cannot be reached: no answer, an unknown Service ID, a failed setup. */
        TARGET_UNREACHABLE,
        /** The target refused (a CM REJ, or a HelloReply not understood). */
        TARGET_REJECTED,
        /** The target disconnected before the connection was bridged. */
        TARGET_GONE
    }

    /**
     * What the client asks for a connection.
     *
     * @param ird the target's RDMA Reads of the client at most at once (IWARP-MAPPING "Read depths";
     *     {@link Integer#MAX_VALUE}: the configured depth)
     * @param ord the client's RDMA Reads of the target at most at once (likewise)
     * @param privateData the client application's private data for the CM REQ (IWARP-MAPPING §2.1), at most
     *     the route's {@link io.vibridge.cm.route.RouteTarget#ulpPrivateDataRoom()}; empty for none
     */
    record ClientRequest(int ird, int ord, byte[] privateData) {
        /** No private data, the configured read depths (a VI client). */
        public static final ClientRequest CONFIGURED = new ClientRequest(Integer.MAX_VALUE, Integer.MAX_VALUE,
                new byte[0]);
    }

    /**
     * What the target agreed to in its CM REP: its receive buffers and receive size (from a HelloReply, else
     * the route's), the read depths both ways, and its application's private data.
     *
     * @param readsIn the client's RDMA Reads the target takes at once (the REP's responder resources)
     * @param readsOut the target's RDMA Reads of the client at once (the REP's initiator depth)
     * @param privateData the REP's private data for the client's application: all of it on an {@code rdma-cm}
     *     route (IBA 12.6.8: 196 bytes, trailing zeros included, as rdma_cm hands them to its consumer), none on
     *     a Hello route (the HelloReply is the gateway's)
     * @param sendWithInvalidate whether the gateway's side posts SENDs with Invalidate (its verbs provider does)
     */
    record TargetTerms(int targetBufs, long targetReceiveSize, boolean flowC0, int readsIn, int readsOut,
                       byte[] privateData, boolean sendWithInvalidate) {
    }

    void start(Host host);

    ClientProtocol protocol();

    // ---------------------------------------------------------------------------- the socket (and ClientSocket.Stream)

    /** The socket closed (either end); the connection drains or closes after this. */
    void socketClosed();

    // ---------------------------------------------------------------------------- setup

    /** What the client's request for a connection is called ("Connect Request", "MPA Request"). */
    String requestName();

    /** How long the client may take to ask for a connection. */
    Duration requestTimeout();

    /** Whether the client has not asked for a connection yet. */
    boolean awaitingRequest();

    /** The request timeout ran out with no request: the front end ends the connection. */
    void requestTimedOut();

    /** The target accepted: answer the client; false when the front end refused after all (counted and logged). */
    boolean targetAccepted(TargetTerms terms);

    /**
     * Tells the client it was refused ({@code why}); returns the answer for the log ("Connect Reject IS 12").
     * {@code privateData}: the target application's own words when it rejected (a consumer REJ on an
     * {@code rdma-cm} route: the REJ's private data, IWARP-MAPPING §2.1), else null.
     */
    String targetRefused(Refusal refusal, String why, byte[] privateData);

    // ---------------------------------------------------------------------------- data

    /** Whether operations of the target are still delivered (else they fail). */
    boolean up();

    /** An operation of the target, in the order it issued them. */
    void deliver(TargetOp op);

    /** Every InfiniBand work request of client slot {@code slot} completed. */
    void clientOpDone(int slot);

    /**
     * The InfiniBand work of client slot {@code slot} failed ({@code accessError}: a remote access error).
     * True when the front end reports it to its client and closes by itself; false to fail the connection.
     */
    boolean clientOpFailed(int slot, boolean accessError);

    /** The last work request of client slot {@code slot} ended after a failure: free the slot. */
    void clientOpEnded(int slot);

    /** The InfiniBand READ of client slot {@code slot} completed: its Read Response may go out. */
    void readDone(int slot);

    // ---------------------------------------------------------------------------- teardown

    /** Nothing owed to the client is outstanding (the drain waits for this, or for the socket to close). */
    boolean idle();

    /** The connection drained: end the client's connection after what is queued. */
    void close();

    /** The connection fails ({@code why}; {@code accessError}: a remote access error): tell the client. */
    void fail(String why, boolean accessError);

    /** The connection is force-closed (shutdown grace over): stop at once. */
    void forceClose();

    /** Resources go: end whatever the front end still holds of the target's (READs fail). */
    void released();

    /** The front end's state, for diagnostics. */
    String debugState();
}

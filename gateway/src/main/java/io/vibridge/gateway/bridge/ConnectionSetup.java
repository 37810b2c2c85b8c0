package io.vibridge.gateway.bridge;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.route.Route;
import io.vibridge.gateway.admission.Pending;
import io.vibridge.gateway.admission.SetupFailure;
import io.vibridge.gateway.bridge.FrontEnd.Refusal;
import io.vibridge.gateway.metrics.GatewayMetrics;
import io.vibridge.gateway.metrics.Limit;
import io.vibridge.gateway.metrics.RejectReason;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CmEvent;
import java.net.InetAddress;
import java.util.concurrent.Executor;
import org.slf4j.Logger;

/**
 * The gateway's books on one connection's setup, from accept to the target's answer: its place among the
 * pending connections, its place in the connection budgets, the staging it reserves, how long setup and
 * the CM round trip took, and the count and log line of each refusal and failed setup. The phases
 * themselves are the connection's. Confined to the connection's context.
 */
final class ConnectionSetup {
    private final BridgeContext shared;
    private final GatewayMetrics metrics;
    private final Pending pending;
    private final Logger log;
    private final long id;
    private final InetAddress client;
    private final int clientPort;
    /** Counted in the budgets ({@link BridgeContext#admit}). */
    private boolean admitted;
    private String refusal;
    private long requestAt;
    private long cmStart;

    ConnectionSetup(BridgeContext shared, Pending pending, Logger log, long id, InetAddress client, int clientPort) {
        this.shared = shared;
        this.metrics = shared.metrics;
        this.pending = pending;
        this.log = log;
        this.id = id;
        this.client = client;
        this.clientPort = clientPort;
    }

    /**
     * The client asked for {@code route}: a place in the budgets and the route's staging, or null when a limit
     * refuses (counted; {@link #refusal} describes it for the client's answer).
     */
    StagingSlots admit(Route route) {
        requestAt = System.nanoTime();
        Limit limit = shared.admit(client);
        if (limit != null) {
            return limited(limit);
        }
        admitted = true;
        StagingSlots slots = null;
        try {
            slots = StagingSlots.reserve(shared.pool, shared.config.slotsPerConnection(),
                    route.target().parameters().receiveBuffers(), TargetLeg.flowC0(route));
        } catch (RuntimeException e) {
            log.warn("conn {} cannot grow the staging pool: {}", id, e.toString()); // a new chunk failed to register
        }
        return slots != null ? slots : limited(Limit.STAGING);
    }

    private StagingSlots limited(Limit limit) {
        metrics.limited(limit);
        refusal = shared.describe(limit, client);
        return null;
    }

    /** Which limit refused the last {@link #admit}, for the client's answer. */
    String refusal() {
        return refusal;
    }

    /**
     * Opens the InfiniBand leg for {@code route} over the {@code slots} {@link #admit} reserved and sends the CM
     * REQ, read depths no deeper than the client's; on a failure nothing of the leg is left.
     */
    TargetLeg connect(Route route, StagingSlots slots, FrontEnd.ClientRequest request, ConnectionEvents events,
            Executor onContext, Runnable cutThroughReady) {
        TargetLeg leg = TargetLeg.open(shared, id, route, slots, events, onContext, cutThroughReady);
        try {
            cmStart = System.nanoTime();
            if (log.isDebugEnabled()) {
                log.debug("conn {} CM REQ to {} ({})", id, TargetLeg.targetName(route),
                        route.target().parameters().cmFormat());
            }
            leg.connect(shared, client, clientPort, request, onContext);
            return leg;
        } catch (RuntimeException e) {
            leg.close();
            throw e;
        }
    }

    /** The target's REP: the terms it grants, or null when its HelloReply cannot be read (logged). */
    FrontEnd.TargetTerms granted(Route route, CmEvent.Established rep) {
        metrics.cmRoundTrip(System.nanoTime() - cmStart);
        try {
            return CmTerms.granted(route.target(), shared.config.infiniband(), rep,
                    shared.device.capabilities().contains(Capability.SEND_WITH_INVALIDATE));
        } catch (CmFormatException e) {
            log.info("conn {} bad HelloReply: {}", id, e.getMessage());
            return null;
        }
    }

    /** The connection is bridged: setup is over. */
    void opened(FrontEnd front) {
        metrics.connectionOpened(front.protocol());
        metrics.connectSetup(System.nanoTime() - requestAt);
        pending.end();
    }

    /** The client is about to be refused: counted (before the client can see its answer), and setup is over. */
    void refused(Refusal refusal) {
        switch (refusal) {
            case LIMIT -> {
                // counted by limit
            }
            case TARGET_UNREACHABLE, TARGET_GONE -> metrics.rejected(RejectReason.TARGET_UNREACHABLE);
            case TARGET_REJECTED -> metrics.rejected(RejectReason.TARGET_REJECTED);
        }
        pending.end();
    }

    /** The client was refused with {@code answer} on its wire, for {@code why}. */
    void answered(String answer, String why) {
        log.info("conn {} {}:{} {} ({})", id, client.getHostAddress(), clientPort, answer, why);
    }

    /**
     * The client's request never came (nothing, or part of one), or the client closed before it was answered:
     * counted, one INFO line per kind and summary period, the others DEBUG (a flood of silent connections is one
     * line, not thousands).
     */
    void failed(SetupFailure failure, String what) {
        if (pending.failed(failure)) {
            log.info("conn {} {}:{} {} (the first this period; GatewayServer's summary counts the rest)", id,
                    client.getHostAddress(), clientPort, what);
        } else {
            log.debug("conn {} {}:{} {}", id, client.getHostAddress(), clientPort, what);
        }
    }

    boolean inSetup() {
        return pending.inSetup();
    }

    /** Setup is over however it ended (answered, counted, or bridged): the pending place goes. */
    void ended() {
        pending.end();
    }

    /** The connection is gone: its place in the budgets goes, and its pending place if setup never ended. */
    void released() {
        if (admitted) {
            admitted = false;
            shared.release(client);
        }
        pending.end();
    }
}

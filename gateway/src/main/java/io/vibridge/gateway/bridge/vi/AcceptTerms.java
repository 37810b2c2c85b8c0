package io.vibridge.gateway.bridge.vi;

import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.StagingSlots;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ReliabilityLevel;

/**
 * What the gateway answers the client once the target accepted (README-bridge "One connection", step
 * 4): the agreed MTU, never above the client's, {@code vi.max-mtu}, a staging slot's payload or the
 * target's ActRcvSz for Sends (less the FlowC 0 header); the read window, at most the client slots
 * and 0 at Unreliable Delivery; descriptor flow control offered (in force when the client asks too).
 *
 * @param targetBufs the target's receive buffers from its HelloReply (FlowC 0's initial credits), 0 without a Hello
 */
record AcceptTerms(long mtu, long targetReceiveSize, int targetBufs, int readWindow, ReliabilityLevel reliability) {

    /** The terms for the client's {@code request}, from the target's ({@code target}) and the gateway's. */
    static AcceptTerms negotiate(ConnectionHeader request, FrontEnd.TargetTerms target, GatewayConfig config,
                                 int clientSlots) {
        long actRcvSz = target.targetReceiveSize();
        long mtu = Math.min(Math.min(request.mtu(), config.vi().maxMtu()),
                Math.min(config.staging().payloadSize(), actRcvSz - (target.flowC0() ? StagingSlots.HEADROOM : 0)));
        ReliabilityLevel level = request.attributes().reliability();
        int window = level == ReliabilityLevel.UNRELIABLE_DELIVERY ? 0 : Math.min(config.vi().rdmaReadWindow(), clientSlots);
        return new AcceptTerms(mtu, actRcvSz, target.targetBufs(), window, level);
    }

    /** Below the profile's 32 KiB minimum (VITCP-PROFILE §5): the client gets Connect Reject IS 10. */
    boolean mtuTooSmall() {
        return mtu < ConnectionHeader.MIN_MTU;
    }

    /**
     * This side of the Connect Accept. Attribute bit 6 "Unordered operations understood" is set (VITCP-PROFILE
     * §5, seed 002): the engine takes types 9/10/11 as their ordered counterparts and the bridge maps them to
     * the same InfiniBand operations, executed in order (README-bridge "Unordered operations").
     */
    LocalEndpoint endpoint(ConnectionHeader request, GatewayConfig.Vi vi, int initialMessageNumber,
                           ConnectSecurity security) {
        ConnectionAttributes attrs = ConnectionAttributes.of(reliability, true, readable(), true, false, true);
        return new LocalEndpoint(attrs, request.called(), mtu, readWindow, initialMessageNumber, vi.segmentSize(),
                vi.creditThreshold(), security);
    }

    /** RDMA Read is offered at Reliable Delivery and Reception (VIA: not at Unreliable Delivery). */
    private boolean readable() {
        return reliability != ReliabilityLevel.UNRELIABLE_DELIVERY;
    }
}

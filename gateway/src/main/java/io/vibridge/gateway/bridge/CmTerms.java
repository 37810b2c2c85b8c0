package io.vibridge.gateway.bridge;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.ConnectParams;

/** What the gateway asks in its CM REQ to a route's target, and what the target's REP grants. */
final class CmTerms {
    /** The RNR NAK timer our QP asks of the target: code 12, 0.64 ms (IBA 9.7.5.2.8 table 45). */
    private static final int MIN_RNR_TIMER = 12;

    private CmTerms() {
    }

    /**
     * The REQ to {@code t}: the route's Service ID and {@code privateData}, the configured timers and retries,
     * read depths no deeper than the client's: the target may READ the client as deep as the client's IRD,
     * and the client READs the target as deep as its ORD (IWARP-MAPPING "Read depths").
     */
    static ConnectParams request(RouteTarget t, GatewayConfig.Infiniband ib, byte[] privateData, int clientIrd,
            int clientOrd) {
        int responder = Math.max(1, Math.min(ib.responderResources(), clientIrd));
        int initiator = Math.max(1, Math.min(ib.initiatorDepth(), clientOrd));
        return new ConnectParams(t.address(), t.serviceId().value(), privateData, responder, initiator,
                ib.retryCount(), ib.rnrRetry(), ib.localAckTimeout(), ib.cmResponseTimeout(), ib.maxCmRetries(),
                ib.pathMtu(), MIN_RNR_TIMER);
    }

    /**
     * The target application's own words in its REJ, for the client's: the private data of a consumer reject
     * (IBA 12.6.7 reason 28, what rdma_reject() sends; Linux cma.c {@code rdma_consumer_reject_data}) on an
     * {@code rdma-cm} route, else null (the CM's own reasons, and a Hello route's REJ, are not the application's).
     */
    static byte[] rejectData(RouteTarget t, CmEvent.Rejected rej) {
        return rej.reason() == CmEvent.REJ_CONSUMER && t.parameters().cmFormat() == CmFormat.RDMA_CM
                ? rej.privateData() : null;
    }

    /** The target's terms from its REP: its HelloReply on a Hello route, the read depths it agreed to. */
    static FrontEnd.TargetTerms granted(RouteTarget t, GatewayConfig.Infiniband ib, CmEvent.Established est,
            boolean sendWithInvalidate) throws CmFormatException {
        int bufs = 0;
        long receiveSize = t.parameters().receiveSize();
        byte[] ulp = est.privateData();
        if (t.parameters().cmFormat() == CmFormat.HELLO) {
            HelloReply reply = HelloReply.fromBytes(est.privateData());
            bufs = reply.bufs();
            receiveSize = reply.actualReceiveSize();
            ulp = new byte[0]; // the HelloReply is the gateway's, not the client's
        }
        // the client's READs the target takes at once (REP responder resources), the target's READs of the client
        // (REP initiator depth); a provider that does not report them leaves the configured depths
        int in = est.responderResources() >= 0 ? Math.min(ib.initiatorDepth(), est.responderResources())
                : ib.initiatorDepth();
        int out = est.initiatorDepth() >= 0 ? Math.min(ib.responderResources(), est.initiatorDepth())
                : ib.responderResources();
        return new FrontEnd.TargetTerms(bufs, receiveSize, t.parameters().flowControl() == FlowControl.TRANSPORT,
                Math.max(in, 1), Math.max(out, 1), ulp, sendWithInvalidate);
    }
}

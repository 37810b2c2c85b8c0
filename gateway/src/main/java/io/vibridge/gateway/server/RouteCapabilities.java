package io.vibridge.gateway.server;

import io.vibridge.cm.route.CmFormat;
import io.vibridge.cm.route.HelloCarriage;
import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteParameters;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.cm.route.Routes;
import io.vibridge.gateway.config.ConfigError;
import io.vibridge.verbs.Capability;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Checks at start that the opened verbs provider can serve every route, so a route it cannot serve
 * is refused with its name instead of failing each connection ("bad HelloReply" on every connect).
 */
final class RouteCapabilities {
    /** rdma_cm's port-space Service IDs, 0x0000000001PPxxxx (IB-WIRE-REFERENCE; Linux cma.c cma_get_service_id). */
    private static final long RDMA_CM_PREFIX = 0x0000_0000_0100_0000L;
    private static final long RDMA_CM_MASK = 0xFFFF_FFFF_FF00_0000L;

    private RouteCapabilities() {
    }

    /**
     * {@link #check(Routes, Set, String, boolean, LongPredicate)} for a CM that passes all 92 bytes and takes the
     * Service IDs {@link Capability#ANY_SERVICE_ID} allows (without it, rdma_cm's {@code 0x0000000001PPxxxx}).
     */
    static void check(Routes routes, Set<Capability> capabilities, String provider) {
        check(routes, capabilities, provider, false,
                sid -> capabilities.contains(Capability.ANY_SERVICE_ID) || (sid & RDMA_CM_MASK) == RDMA_CM_PREFIX);
    }

    /**
     * @param writesCmaHeader the provider's CM is rdma_cm with IP addressing
     *        ({@link io.vibridge.verbs.ConnectionManager#writesCmaHeader()}): 56 bytes of REQ private data
     * @param takesServiceId  the Service IDs its CM takes ({@link io.vibridge.verbs.ConnectionManager#takesServiceId})
     * @throws ConfigError naming the first route (as {@code routes[i]} or {@code direct-routes}) that
     *         needs what {@code provider} lacks
     */
    static void check(Routes routes, Set<Capability> capabilities, String provider, boolean writesCmaHeader,
                      LongPredicate takesServiceId) {
        List<Route> list = routes.routes();
        for (int i = 0; i < list.size(); i++) {
            Route r = list.get(i);
            check("routes[" + i + "]", "route " + r.discriminator(), r.target(), capabilities, provider,
                    writesCmaHeader, takesServiceId);
        }
        routes.directRoutes().ifPresent(p -> check("direct-routes", "direct routes", sample(p), capabilities,
                provider, writesCmaHeader, takesServiceId));
    }

    private static void check(String key, String name, RouteTarget t, Set<Capability> capabilities,
                              String provider, boolean writesCmaHeader, LongPredicate takesServiceId) {
        if (t.parameters().cmFormat() == CmFormat.HELLO && !capabilities.contains(Capability.CM_PRIVATE_DATA)) {
            throw new ConfigError(key, name + ": cm-format hello carries the Hello and HelloReply in CM private data, which the "
                    + provider + " verbs provider does not deliver; use cm-format rdma-cm or the soft provider");
        }
        if (t.parameters().cmFormat() == CmFormat.HELLO && writesCmaHeader
                && t.parameters().helloCarriage() == HelloCarriage.WHOLE) {
            throw new ConfigError(key, name + ": hello-carriage whole needs 92 bytes of REQ private data; the " + provider
                    + " verbs provider's rdma_cm leaves 56 behind its CMA header: use hello-carriage cma-header or auto"
                    + " (CM-MAPPING §2.1)");
        }
        long sid = t.serviceId().value();
        if (!takesServiceId.test(sid)) {
            throw new ConfigError(key, name + ": Service ID 0x" + Long.toHexString(sid) + " is not one the " + provider
                    + " verbs provider's CM can use (rdma_cm: its port spaces' IDs, ps << 16 | port); use service-id = "
                    + "rdma-cm");
        }
    }

    /** A direct route's target, for what does not depend on the address or port (the Service ID prefix). */
    private static RouteTarget sample(RouteParameters parameters) {
        return new RouteTarget(InetAddress.getLoopbackAddress(), 1, parameters);
    }
}

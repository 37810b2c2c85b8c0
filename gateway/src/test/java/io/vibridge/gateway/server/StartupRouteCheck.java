package io.vibridge.gateway.server;

import io.vibridge.cm.route.Routes;
import io.vibridge.verbs.Capability;
import java.util.Set;

/** For the deployment tests (another package): the route check {@link GatewayServer} makes at start. */
public final class StartupRouteCheck {
    private StartupRouteCheck() {
    }

    /** @throws io.vibridge.gateway.config.ConfigError as the gateway's start would */
    public static void check(Routes routes, Set<Capability> capabilities, String provider) {
        RouteCapabilities.check(routes, capabilities, provider);
    }
}

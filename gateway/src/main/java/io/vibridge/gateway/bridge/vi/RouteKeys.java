package io.vibridge.gateway.bridge.vi;

import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.vitcp.engine.ConnectSecurity;
import io.vibridge.vitcp.provider.HmacConnectSecurity;
import io.vibridge.vitcp.security.ConnectSigner;
import io.vibridge.vitcp.wire.Discriminator;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;

/**
 * The gateway's Security Type 1 keys (VITCP-PROFILE §5): the global one (or none) and the routes' own,
 * each with its replay memory, shared by every VI/TCP connection of the gateway.
 */
public final class RouteKeys {
    private final HmacConnectSecurity global;
    private final Map<Discriminator, HmacConnectSecurity> routes;

    public RouteKeys(GatewayConfig.Security s) {
        global = s.key() == null ? null : hmac(s.key(), s.replay());
        Map<Discriminator, HmacConnectSecurity> m = new HashMap<>();
        s.routeKeys().forEach((d, k) -> m.put(d, hmac(k, s.replay())));
        routes = Map.copyOf(m);
    }

    private static HmacConnectSecurity hmac(byte[] key, ConnectSigner.Policy replay) {
        return new HmacConnectSecurity(new ConnectSigner(key, InstantSource.system(), replay));
    }

    /** The key a route's Connect Requests are signed with (and its Accepts signed): its own, else the global one. */
    public ConnectSecurity security(Discriminator route) {
        return routes.getOrDefault(route, global);
    }

    /**
     * As {@link #security(Discriminator)}, a verified request taking {@code client}'s share of the key's replay
     * memory (security.replay-per-client): one client cannot fill it for the route's others.
     */
    public ConnectSecurity security(Discriminator route, InetAddress client) {
        HmacConnectSecurity s = routes.getOrDefault(route, global);
        return s == null ? null : s.forClient(client);
    }
}

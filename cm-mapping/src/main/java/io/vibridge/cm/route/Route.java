package io.vibridge.cm.route;

import io.vibridge.vitcp.wire.Discriminator;
import java.util.Objects;

/**
 * A route: which called discriminators it takes and where they go (CM-MAPPING §6).
 *
 * @param discriminator the exact discriminator or prefix; for a {@link Kind#DIRECT} route the
 *     called discriminator itself
 * @param kind how the discriminator matched
 * @param target where the connection goes
 */
public record Route(Discriminator discriminator, Kind kind, RouteTarget target) {

    /** How a route matches. */
    public enum Kind {
        /** The called discriminator equals the route's. */
        EXACT,
        /** The called discriminator starts with the route's (the longest such prefix wins). */
        PREFIX,
        /** The called discriminator was written {@code host:port} and direct routes are enabled. */
        DIRECT
    }

    /** Requires every component. */
    public Route {
        Objects.requireNonNull(discriminator, "discriminator");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
    }

    /** An exact route for a discriminator given as configuration text (see {@link Discriminator#parse}). */
    public static Route exact(String discriminator, RouteTarget target) {
        return new Route(Discriminator.parse(discriminator), Kind.EXACT, target);
    }

    /** A prefix route for a discriminator given as configuration text. */
    public static Route prefix(String discriminator, RouteTarget target) {
        return new Route(Discriminator.parse(discriminator), Kind.PREFIX, target);
    }

    /** The route's discriminator as configuration text ({@code hex:...} when not printable), for logs and views. */
    public String name() {
        return discriminator.toString();
    }
}

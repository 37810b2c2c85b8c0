package io.vibridge.testcontainers;

import java.net.InetAddress;
import java.util.Objects;

/** Where a route leads: a target container of the same network, or an InfiniBand/RoCE address given as is. */
public sealed interface RouteTarget {

    /** A demo target container: its address on the gateway's network, known once it runs. */
    record Container(VibridgeTargetContainer target) implements RouteTarget {
        public Container {
            Objects.requireNonNull(target, "target");
        }
    }

    /** An IP literal (the gateway resolves no host names: docs/configuration.md, {@code routes[].target}). */
    record Address(String ip) implements RouteTarget {
        public Address {
            Objects.requireNonNull(ip, "ip");
            try {
                InetAddress.ofLiteral(ip);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("a route's target is an IP address literal (the gateway resolves "
                        + "no host names), got '" + ip + "'; route to a VibridgeTargetContainer to use its address");
            }
        }
    }
}

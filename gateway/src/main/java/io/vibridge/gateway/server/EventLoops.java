package io.vibridge.gateway.server;

import io.vertx.core.Vertx;
import io.vertx.core.transport.Transport;
import io.vibridge.gateway.config.GatewayConfig;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's Vert.x on the configured socket I/O ({@code vibridge.gateway.transport}): Netty's native
 * epoll transport (edge-triggered epoll and direct system calls, no selector keys or NIO channel layer), or
 * Java NIO. One INFO line at start says which, and why not epoll when it was not taken.
 */
final class EventLoops {
    private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

    private EventLoops() {
    }

    /** A Vert.x instance on {@code wanted}'s transport; {@link IllegalStateException} if epoll is demanded and absent. */
    static Vertx create(GatewayConfig.Transport wanted) {
        Transport t = choose(wanted, Transport.EPOLL);
        Vertx vertx = Vertx.builder().withTransport(t).build();
        if (t == Transport.NIO && wanted == GatewayConfig.Transport.AUTO) {
            log.info("event loops on Java NIO (native epoll unavailable: {})", Transport.EPOLL.unavailabilityCause());
        } else {
            log.info("event loops on {} (transport = {})", t == Transport.NIO ? "Java NIO" : "Netty native epoll",
                    wanted.name().toLowerCase(Locale.ROOT));
        }
        return vertx;
    }

    /** The transport for {@code wanted} when the native one is {@code epoll}. */
    static Transport choose(GatewayConfig.Transport wanted, Transport epoll) {
        return switch (wanted) {
            case NIO -> Transport.NIO;
            case AUTO -> epoll.available() ? epoll : Transport.NIO;
            case EPOLL -> {
                if (!epoll.available()) {
                    throw new IllegalStateException("transport = epoll, but Netty's native epoll transport is "
                            + "unavailable: " + epoll.unavailabilityCause());
                }
                yield epoll;
            }
        };
    }
}

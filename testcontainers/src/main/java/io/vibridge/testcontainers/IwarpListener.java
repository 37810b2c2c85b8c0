package io.vibridge.testcontainers;

import java.util.Objects;

/**
 * An iWARP listener of the gateway ({@code iwarp.listeners}): MPA names no service, so the port chooses
 * the route its clients go to.
 *
 * @param port  the port in the container (published to a random host port)
 * @param route the {@code match} of the route its clients go to
 */
public record IwarpListener(int port, String route) {
    public IwarpListener {
        Route.requirePort(port, "an iWARP listener's port");
        Objects.requireNonNull(route, "route");
    }
}

package io.vibridge.gateway.admin;

/**
 * One bridged connection as the admin endpoint lists it.
 *
 * @param id          the gateway's connection id (also in every log line of the connection)
 * @param client      the VI/TCP client's address, {@code ip:port}
 * @param route       the route name the called discriminator matched
 * @param target      the InfiniBand-side target, {@code ip:port/serviceId}
 * @param state       the bridge's state
 * @param bytesIn     payload bytes from the client towards the target
 * @param bytesOut    payload bytes from the target towards the client
 * @param openedAtMillis when the client's Connect Request arrived, milliseconds since the epoch
 */
public record ConnectionInfo(long id, String client, String route, String target, String state,
                             long bytesIn, long bytesOut, long openedAtMillis) {
}

package io.vibridge.gateway.admin;

import io.vibridge.verbs.QpInfo;

/**
 * One bridged connection as the admin endpoint lists it.
 *
 * @param id          the gateway's connection id (also in every log line of the connection)
 * @param client      the client's TCP address, {@code ip:port}
 * @param route       the route (its match): the called discriminator's, or the iWARP listener's
 * @param target      the InfiniBand-side target, {@code ip:port/serviceId}
 * @param state       the bridge's state
 * @param bytesIn     payload bytes from the client towards the target
 * @param bytesOut    payload bytes from the target towards the client
 * @param openedAtMillis when the connection was accepted, milliseconds since the epoch
 * @param frontEnd    the TCP-side protocol: {@code vitcp}, {@code rdmatcp} or {@code iwarp}
 * @param qp          the InfiniBand side: the bridge's queue pair as the verbs provider reports it, or null
 *                    before the bridge has one
 */
public record ConnectionInfo(long id, String client, String route, String target, String state,
                             long bytesIn, long bytesOut, long openedAtMillis, String frontEnd, QpInfo qp) {

    /** Without the InfiniBand side. */
    public ConnectionInfo(long id, String client, String route, String target, String state, long bytesIn,
                          long bytesOut, long openedAtMillis, String frontEnd) {
        this(id, client, route, target, state, bytesIn, bytesOut, openedAtMillis, frontEnd, null);
    }
}

/**
 * An iWARP client for applications: {@link io.vibridge.iwarp.client.IwarpEndpoint} drives the
 * {@code io.vibridge.iwarp} engine's initiator role over a TCP socket. The engine's types (Terminate codes)
 * appear in its API, hence {@code requires transitive}.
 */
module io.vibridge.iwarp.client {
    requires transitive io.vibridge.iwarp;

    exports io.vibridge.iwarp.client;
}

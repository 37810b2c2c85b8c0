package io.vibridge.cm.route;

import io.vibridge.cm.serviceid.ServiceId;
import java.net.InetAddress;

/**
 * Where and how a route connects: the target's IP address, the emulated TCP listener port P (which
 * the Service ID is derived from) and the {@link RouteParameters}.
 *
 * @param address the target's IP address (the Hello's / CMA header's destination address)
 * @param port the target port P, 1..65535
 * @param parameters scheme, CM format, FlowC, receive size and buffers
 */
public record RouteTarget(InetAddress address, int port, RouteParameters parameters) {

    /** Validates: address and parameters present, port in 1..65535. */
    public RouteTarget {
        if (address == null) {
            throw new RouteConfigException("target", "missing");
        }
        if (port < 1 || port > 0xFFFF) {
            throw new RouteConfigException("port", "must be in 1..65535, got " + port);
        }
        if (parameters == null) {
            throw new RouteConfigException("parameters", "missing");
        }
    }

    /** The Service ID of the CM REQ: the route's scheme (and port space) applied to {@link #port()}. */
    public ServiceId serviceId() {
        return new ServiceId(parameters.scheme(), parameters.portSpace(), port);
    }
}

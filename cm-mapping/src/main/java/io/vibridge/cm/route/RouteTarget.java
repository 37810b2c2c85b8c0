package io.vibridge.cm.route;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.cm.wire.IpAddressField;
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

    /**
     * The Hello the gateway sends on this route for a VI client (CM-MAPPING §2): bufs = receive
     * buffers, DesRemRcvSz = LocalRcvSz = receive size, the route's FlowC, the client's address
     * and TCP source port, the target's address. The Hello has one IP version for both addresses:
     * an IPv4 client of an IPv6 target is sent as {@code ::ffff:a.b.c.d}.
     *
     * @throws IllegalArgumentException if the client is IPv6 (not IPv4-mapped) and the target IPv4,
     *     or the port is out of range
     */
    public Hello hello(InetAddress client, int clientPort) {
        return Hello.of(parameters.receiveBuffers(), parameters.flowControl(), parameters.receiveSize(),
                parameters.receiveSize(), clientPort, clientIn(client), address);
    }

    /**
     * The CMA header the gateway sends on an {@code rdma-cm} route for a VI client (CM-MAPPING
     * §5): source port = the client's TCP port, source = the client's address in the target's IP
     * version (as for {@link #hello}).
     */
    public CmaHeader cmaHeader(InetAddress client, int clientPort) {
        return new CmaHeader(clientPort, clientIn(client), address);
    }

    /**
     * The whole CM REQ private data (92 bytes) for this route's CM format: a Hello, or a CMA header
     * followed by zeros.
     */
    public byte[] requestPrivateData(InetAddress client, int clientPort) {
        return switch (parameters.cmFormat()) {
            case HELLO -> hello(client, clientPort).toBytes();
            case RDMA_CM -> cmaHeader(client, clientPort).toPrivateData(new byte[0]);
        };
    }

    private InetAddress clientIn(InetAddress client) {
        try {
            return IpAddressField.inVersion(client, IpAddressField.ipVersionOf(address));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("client " + client.getHostAddress()
                    + " cannot be named in the IP version of target " + address.getHostAddress(), e);
        }
    }

    /** The Service ID of the CM REQ: the route's scheme (and port space) applied to {@link #port()}. */
    public ServiceId serviceId() {
        return new ServiceId(parameters.scheme(), parameters.portSpace(), port);
    }
}

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
     * The CMA header the gateway sends on an {@code rdma-cm} route (CM-MAPPING §5): the source is the
     * gateway's own RoCE address and a port it assigned to the connection, never the VI client's, because
     * Linux's rdma_cm route-validates that source through the RoCE interface the REQ arrived on and
     * answers REJ 28 otherwise (IB-WIRE-REFERENCE §6.2; Linux cma.c: validate_net_dev).
     *
     * @param roceAddress the gateway's RoCE port address (its GID's IPv4 or IPv6 form)
     * @param rocePort the source port the gateway assigned to this connection, 1..65535
     */
    public CmaHeader cmaHeader(InetAddress roceAddress, int rocePort) {
        return new CmaHeader(rocePort, clientIn(roceAddress), address);
    }

    /**
     * Bytes of the client application's own private data the REQ carries behind what the route puts first
     * (IWARP-MAPPING §2.1): on an {@code rdma-cm} route the 56 bytes rdma_cm leaves its consumer behind the
     * 36-byte CMA header (IBA 12.6.5: the REQ's private data is 92 bytes; Linux cma.c
     * {@code cma_user_data_offset}); on a Hello route none, the Hello (or the short Hello behind the CMA header)
     * fills the REQ.
     */
    public int ulpPrivateDataRoom() {
        return switch (parameters.cmFormat()) {
            case RDMA_CM -> CmaHeader.MAX_USER_DATA;
            case HELLO -> 0;
        };
    }

    /**
     * The CM REQ private data for this route's CM format (CM-MAPPING §2, §2.1, §5): a Hello naming the VI client
     * ({@code client}, {@code clientPort}), or a CMA header naming the gateway ({@code roceAddress},
     * {@code rocePort}) followed by the client application's {@code ulp} private data (an iWARP client's, from
     * its MPA Request; empty for VI clients) and zeros. The client's identity travels only in the Hello format.
     *
     * <p>{@code cmWritesCmaHeader}: the CM puts librdmacm's CMA header in front of what it is given (rdma_cm with
     * IP addressing): then the result is what follows the header (the 56-byte short Hello, or {@code ulp}), else
     * the whole 92 bytes, header included where the carriage has one.
     *
     * @throws IllegalStateException a {@code whole} Hello on a CM that writes the CMA header (no room for it)
     * @throws IllegalArgumentException {@code ulp} longer than {@link #ulpPrivateDataRoom()}
     */
    public byte[] requestPrivateData(InetAddress client, int clientPort, InetAddress roceAddress, int rocePort,
            boolean cmWritesCmaHeader, byte[] ulp) {
        if (ulp.length > ulpPrivateDataRoom()) {
            throw new IllegalArgumentException("the CM REQ of cm-format " + parameters.cmFormat().configName()
                    + " carries at most " + ulpPrivateDataRoom() + " bytes of client private data, not " + ulp.length);
        }
        return switch (parameters.cmFormat()) {
            case HELLO -> switch (parameters.helloCarriage().resolve(cmWritesCmaHeader)) {
                case WHOLE -> {
                    if (cmWritesCmaHeader) {
                        throw new IllegalStateException("a whole Hello (92 bytes) does not fit behind the CMA header");
                    }
                    yield hello(client, clientPort).toBytes();
                }
                case CMA_HEADER -> cmWritesCmaHeader ? hello(client, clientPort).toShortBytes()
                        : cmaHeader(roceAddress, rocePort).toPrivateData(hello(client, clientPort).toShortBytes());
                case AUTO -> throw new AssertionError("resolved");
            };
            case RDMA_CM -> cmWritesCmaHeader ? ulp.clone() : cmaHeader(roceAddress, rocePort).toPrivateData(ulp);
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

package io.vibridge.cm.route;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceIdScheme;

/**
 * How a route talks to its target, everything but the address and port (CM-MAPPING §6): the
 * Service ID scheme (and rdma-cm port space), the CM format, FlowC, the receive size and the
 * number of receive buffers the gateway posts. Also the parameters of direct routes.
 *
 * <p>Rules (each violation is a {@link RouteConfigException} naming the configuration key):
 *
 * <ul>
 *   <li>{@code port-space} only with {@code service-id = rdma-cm}, and then {@code tcp} or
 *       {@code ib} (the RC port spaces; default {@code tcp}).</li>
 *   <li>{@code cm-format = rdma-cm} needs {@code service-id = rdma-cm} and {@code flowc = 1}
 *       (CM-MAPPING §5).</li>
 *   <li>{@code hello-carriage} other than {@code auto} only with {@code cm-format = hello}; {@code cma-header}
 *       needs {@code service-id = rdma-cm}, one of rdma_cm's RC port spaces (CM-MAPPING §2.1).</li>
 *   <li>{@code receive-size} &gt; 0; {@code receive-buffers} in 1..65535 (bufs is 16 bits), and at
 *       least 3 with {@code flowc = 0} (see {@link FlowCredits}: fewer makes credit updates
 *       ping-pong).</li>
 * </ul>
 *
 * @param scheme Service ID scheme
 * @param portSpace rdma-cm port space; {@code null} for other schemes (rdma-cm with null means TCP)
 * @param cmFormat the private data of the REQ
 * @param helloCarriage how a {@code hello} route carries the Hello (CM-MAPPING §2.1)
 * @param flowControl FlowC
 * @param receiveSize receive buffer size the gateway uses and asks for, bytes
 * @param receiveBuffers receive buffers the gateway posts
 */
public record RouteParameters(
        ServiceIdScheme scheme,
        RdmaPortSpace portSpace,
        CmFormat cmFormat,
        HelloCarriage helloCarriage,
        FlowControl flowControl,
        int receiveSize,
        int receiveBuffers) {

    /** Default receive size: 64 KiB. */
    public static final int DEFAULT_RECEIVE_SIZE = 65536;
    /** Default number of receive buffers. */
    public static final int DEFAULT_RECEIVE_BUFFERS = 64;
    /** iwarp, hello, FlowC 1, 64 KiB, 64 buffers. */
    public static final RouteParameters DEFAULTS = new RouteParameters(ServiceIdScheme.IWARP, null,
            CmFormat.HELLO, HelloCarriage.AUTO, FlowControl.APPLICATION, DEFAULT_RECEIVE_SIZE,
            DEFAULT_RECEIVE_BUFFERS);

    /** Parameters with {@link HelloCarriage#AUTO}. */
    public RouteParameters(ServiceIdScheme scheme, RdmaPortSpace portSpace, CmFormat cmFormat,
            FlowControl flowControl, int receiveSize, int receiveBuffers) {
        this(scheme, portSpace, cmFormat, HelloCarriage.AUTO, flowControl, receiveSize, receiveBuffers);
    }

    /** Validates per the class comment; the rdma-cm port space defaults to TCP, the carriage to auto. */
    public RouteParameters {
        if (scheme == null) {
            throw new RouteConfigException("service-id", "missing");
        }
        if (cmFormat == null) {
            throw new RouteConfigException("cm-format", "missing");
        }
        if (flowControl == null) {
            throw new RouteConfigException("flowc", "missing");
        }
        if (helloCarriage == null) {
            helloCarriage = HelloCarriage.AUTO;
        }
        if (helloCarriage != HelloCarriage.AUTO && cmFormat != CmFormat.HELLO) {
            throw new RouteConfigException("hello-carriage", "only applies to cm-format = hello");
        }
        if (helloCarriage == HelloCarriage.CMA_HEADER && scheme != ServiceIdScheme.RDMA_CM) {
            throw new RouteConfigException("hello-carriage", "cma-header needs service-id = rdma-cm (an rdma_cm RC port"
                    + " space: TCP or IB), got " + scheme.configName());
        }
        if (scheme == ServiceIdScheme.RDMA_CM) {
            if (portSpace == null) {
                portSpace = RdmaPortSpace.TCP;
            }
            if (portSpace != RdmaPortSpace.TCP && portSpace != RdmaPortSpace.IB) {
                throw new RouteConfigException("port-space", "must be tcp or ib for an RC connection, got "
                        + portSpace.configName());
            }
        } else if (portSpace != null) {
            throw new RouteConfigException("port-space", "only applies to service-id = rdma-cm, not "
                    + scheme.configName());
        }
        if (cmFormat == CmFormat.RDMA_CM) {
            if (scheme != ServiceIdScheme.RDMA_CM) {
                throw new RouteConfigException("service-id", "cm-format = rdma-cm needs service-id = rdma-cm, got "
                        + scheme.configName());
            }
            if (flowControl != FlowControl.APPLICATION) {
                throw new RouteConfigException("flowc", "cm-format = rdma-cm needs flowc = 1 (CM-MAPPING §5)");
            }
        }
        if (receiveSize <= 0) {
            throw new RouteConfigException("receive-size", "must be > 0, got " + receiveSize);
        }
        if (receiveBuffers <= 0 || receiveBuffers > 0xFFFF) {
            throw new RouteConfigException("receive-buffers", "must be in 1..65535, got " + receiveBuffers);
        }
        if (flowControl == FlowControl.TRANSPORT && receiveBuffers < FlowCredits.MIN_BUFS_FOR_QUIET_UPDATES) {
            throw new RouteConfigException("receive-buffers", "must be at least "
                    + FlowCredits.MIN_BUFS_FOR_QUIET_UPDATES + " with flowc = 0, got " + receiveBuffers);
        }
    }
}

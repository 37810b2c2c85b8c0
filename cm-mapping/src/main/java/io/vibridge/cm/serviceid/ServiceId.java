package io.vibridge.cm.serviceid;

import io.vibridge.cm.wire.Fields;
import java.util.Objects;
import java.util.Optional;

/**
 * A Service ID together with what it was derived from (CM-MAPPING §1; IB-WIRE-REFERENCE §6.1): a
 * scheme, the listener port P and, for {@code rdma-cm}, the port space.
 *
 * <p><b>Reverse mapping and its ambiguity.</b> librdmacm's IPoIB port space is 0x0002, so
 * {@code rdma-cm} with {@link RdmaPortSpace#IPOIB} gives exactly the {@code iwarp} Service IDs.
 * {@link #fromValue(long)} resolves {@code 0x0000000000020000 + P} to {@link ServiceIdScheme#IWARP}
 * (the project's default and the seed's meaning; an IPoIB port space is UD, which no route of
 * ours uses). A listener that knows its scheme asks {@link #fromValue(long, ServiceIdScheme)},
 * which answers under that scheme only and so has no ambiguity.
 *
 * @param scheme the scheme
 * @param portSpace the rdma-cm port space, {@code null} for {@code iwarp} and {@code sdp}
 * @param port the emulated TCP listener port P, 0..65535
 */
public record ServiceId(ServiceIdScheme scheme, RdmaPortSpace portSpace, int port) {

    /** Base of the {@code iwarp} scheme (seed 001's IBTA_IWARP_PREFIX). */
    public static final long IWARP_BASE = 0x0000_0000_0002_0000L;
    /** Base of the {@code sdp} scheme ({@code IB_SDP_SERVICE_ID}). */
    public static final long SDP_BASE = 0x0000_0000_0001_0000L;
    /** Mask of the part above the port (librdmacm's PS mask). */
    public static final long PREFIX_MASK = 0xFFFF_FFFF_FFFF_0000L;

    /** Validates: port range; a port space exactly when the scheme is rdma-cm. */
    public ServiceId {
        Objects.requireNonNull(scheme, "scheme");
        Fields.requireRange("port", port, 0xFFFF);
        if ((scheme == ServiceIdScheme.RDMA_CM) != (portSpace != null)) {
            throw new IllegalArgumentException(scheme == ServiceIdScheme.RDMA_CM
                    ? "the rdma-cm scheme needs a port space" : "only the rdma-cm scheme has a port space");
        }
    }

    /** The Service ID of {@code port} under {@code scheme}; rdma-cm uses the TCP port space. */
    public static ServiceId of(ServiceIdScheme scheme, int port) {
        return new ServiceId(scheme, scheme == ServiceIdScheme.RDMA_CM ? RdmaPortSpace.TCP : null, port);
    }

    /** The rdma-cm Service ID of {@code port} in {@code portSpace}. */
    public static ServiceId rdmaCm(RdmaPortSpace portSpace, int port) {
        return new ServiceId(ServiceIdScheme.RDMA_CM, Objects.requireNonNull(portSpace, "portSpace"), port);
    }

    /** The 64-bit Service ID, as sent big-endian in REQ bytes 8-15. */
    public long value() {
        return switch (scheme) {
            case IWARP -> IWARP_BASE + port;
            case SDP -> SDP_BASE + port;
            case RDMA_CM -> ((long) portSpace.value() << 16) + port;
        };
    }

    /** Shorthand for {@code of(scheme, port).value()}. */
    public static long valueOf(ServiceIdScheme scheme, int port) {
        return of(scheme, port).value();
    }

    /**
     * The scheme, port space and port a Service ID was derived from, or empty if it lies in no
     * scheme's range. {@code 0x20000 + P} resolves to {@code iwarp} (see the class comment).
     */
    public static Optional<ServiceId> fromValue(long serviceId) {
        if ((serviceId & PREFIX_MASK) == IWARP_BASE) {
            return Optional.of(of(ServiceIdScheme.IWARP, (int) (serviceId & 0xFFFF)));
        }
        if ((serviceId & PREFIX_MASK) == SDP_BASE) {
            return Optional.of(of(ServiceIdScheme.SDP, (int) (serviceId & 0xFFFF)));
        }
        return fromValue(serviceId, ServiceIdScheme.RDMA_CM);
    }

    /**
     * The reading of a Service ID under one scheme, or empty if it is not in that scheme's range.
     * Under {@code rdma-cm} every librdmacm port space is recognised, IPoIB included.
     */
    public static Optional<ServiceId> fromValue(long serviceId, ServiceIdScheme scheme) {
        int port = (int) (serviceId & 0xFFFF);
        return switch (scheme) {
            case IWARP -> (serviceId & PREFIX_MASK) == IWARP_BASE ? Optional.of(of(scheme, port)) : Optional.empty();
            case SDP -> (serviceId & PREFIX_MASK) == SDP_BASE ? Optional.of(of(scheme, port)) : Optional.empty();
            case RDMA_CM -> {
                if ((serviceId >>> 32) != 0) {
                    yield Optional.empty();
                }
                RdmaPortSpace ps = RdmaPortSpace.ofValue((int) (serviceId >>> 16));
                yield ps == null ? Optional.empty() : Optional.of(rdmaCm(ps, port));
            }
        };
    }

    /** E.g. {@code iwarp:5000 (0x0000000000021388)}. */
    @Override
    public String toString() {
        return scheme.configName() + (portSpace != null ? "/" + portSpace.configName() : "") + ":" + port
                + " (0x" + String.format("%016x", value()) + ")";
    }
}

package io.vibridge.testcontainers;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One route of the gateway (docs/configuration.md "routes"): the VI discriminator it matches, the target
 * and its port, and the parameters a test may want other than the gateway's defaults (null: the default).
 *
 * @param match          the called discriminator (UTF-8, at most 64 bytes)
 * @param target         where it leads
 * @param port           the target's port, from which the Service ID derives (CM-MAPPING §1)
 * @param prefix         match as a prefix
 * @param cmFormat       the CM REQ's private data; null: {@code hello}
 * @param flowc          FlowC 0 (the 16-byte header and credits) or 1 (bare payloads); null: 1
 * @param receiveSize    receive buffer size the gateway uses and asks the target for; null: 65536
 * @param receiveBuffers receive buffers the gateway posts for the target's Sends; null: half its staging slots
 */
public record Route(String match, RouteTarget target, int port, boolean prefix, CmFormat cmFormat, Integer flowc,
        Integer receiveSize, Integer receiveBuffers) {

    /** The most bytes of a discriminator (VITCP-PROFILE §1). */
    static final int MAX_MATCH = 64;

    public Route {
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(target, "target");
        if (match.getBytes(StandardCharsets.UTF_8).length > MAX_MATCH) {
            throw new IllegalArgumentException("a route's match is at most " + MAX_MATCH + " bytes, got '" + match + "'");
        }
        requirePort(port, "route '" + match + "': the target's port");
        if (flowc != null && flowc != 0 && flowc != 1) {
            throw new IllegalArgumentException("route '" + match + "': FlowC is 0 or 1, got " + flowc);
        }
        if (receiveSize != null && receiveSize < 1) {
            throw new IllegalArgumentException("route '" + match + "': receive size " + receiveSize);
        }
        if (receiveBuffers != null && receiveBuffers < 1) {
            throw new IllegalArgumentException("route '" + match + "': receive buffers " + receiveBuffers);
        }
    }

    /** An exact route to an IP literal, every other parameter the gateway's default. */
    public static Route of(String match, String targetAddress, int port) {
        return new Route(match, new RouteTarget.Address(targetAddress), port, false, null, null, null, null);
    }

    /** An exact route to a demo target container, on the port it serves. */
    public static Route of(String match, VibridgeTargetContainer target) {
        return new Route(match, new RouteTarget.Container(target), target.getServicePort(), false, null, null, null,
                null);
    }

    public Route withPrefix(boolean on) {
        return new Route(match, target, port, on, cmFormat, flowc, receiveSize, receiveBuffers);
    }

    public Route withCmFormat(CmFormat format) {
        return new Route(match, target, port, prefix, format, flowc, receiveSize, receiveBuffers);
    }

    public Route withFlowC(int value) {
        return new Route(match, target, port, prefix, cmFormat, value, receiveSize, receiveBuffers);
    }

    public Route withReceiveSize(int bytes) {
        return new Route(match, target, port, prefix, cmFormat, flowc, bytes, receiveBuffers);
    }

    public Route withReceiveBuffers(int count) {
        return new Route(match, target, port, prefix, cmFormat, flowc, receiveSize, count);
    }

    static void requirePort(int port, String what) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(what + " is 1..65535, got " + port);
        }
    }
}

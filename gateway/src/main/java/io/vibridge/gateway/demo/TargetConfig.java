package io.vibridge.gateway.demo;

import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import java.net.InetAddress;
import java.util.Set;

/**
 * Settings of a {@link TargetService}.
 *
 * @param address          the verbs device's IP address (soft provider: its UDP socket's)
 * @param udpPort          RoCEv2 UDP port of the soft provider
 * @param provider         verbs provider name, or null for automatic
 * @param port             emulated TCP port P the Service IDs are derived from
 * @param schemes          Service ID schemes listened on (iwarp and sdp carry a Hello; rdma-cm a CMA header)
 * @param mode             initial mode of every connection (SET_MODE changes one connection)
 * @param receiveBuffers   receives posted per connection (the HelloReply's bufs)
 * @param receiveSize      bytes per receive; raised to the Hello's DesRemRcvSz up to {@code maxReceiveSize}
 * @param maxReceiveSize   cap on the receive size a Hello may ask for
 * @param regionSize       bytes of the region exposed for remote RDMA read and write
 * @param sourceSize       payload bytes of each Send in source mode
 * @param sourceDepth      Sends outstanding in source mode
 * @param maxConnections   concurrent connections; more are rejected (REJ 28)
 * @param memoryBudget     receive memory of all connections together; when it runs short new connections get
 *                         fewer receives (at least 3), then REJ 28
 */
public record TargetConfig(InetAddress address, int udpPort, String provider, int port, Set<ServiceIdScheme> schemes,
                           TargetMode mode, int receiveBuffers, int receiveSize, int maxReceiveSize, int regionSize,
                           int sourceSize, int sourceDepth, int maxConnections, long memoryBudget) {

    public static final int DEFAULT_PORT = 5000;

    public TargetConfig {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        schemes = Set.copyOf(schemes);
        if (schemes.isEmpty()) {
            throw new IllegalArgumentException("at least one Service ID scheme is required");
        }
        if (receiveBuffers < 3 || receiveBuffers > 0xFFFF) {
            // FlowC 0 needs at least 3 so credit updates settle (cm-mapping FlowCredits)
            throw new IllegalArgumentException("receive-buffers must be 3..65535, got " + receiveBuffers);
        }
        if (receiveSize < Control.MAX_REPLY + 16 || receiveSize > maxReceiveSize) {
            throw new IllegalArgumentException("receive-size must be " + (Control.MAX_REPLY + 16) + ".."
                    + maxReceiveSize + ", got " + receiveSize);
        }
        if (regionSize < 4096) {
            throw new IllegalArgumentException("region-size must be at least 4096, got " + regionSize);
        }
        if (sourceSize < 0 || sourceDepth < 1 || sourceDepth > 1024) {
            throw new IllegalArgumentException("bad source size/depth " + sourceSize + "/" + sourceDepth);
        }
        if (maxConnections < 1 || memoryBudget < 1) {
            throw new IllegalArgumentException("max-connections and memory budget must be positive");
        }
    }

    /** Defaults: port 5000, iwarp and sdp, echo (RDMA Writes with immediate not answered), 64 receives of 64 KiB, 16 MiB region. */
    public static TargetConfig defaults(InetAddress address) {
        return new TargetConfig(address, 4791, null, DEFAULT_PORT, Set.of(ServiceIdScheme.IWARP, ServiceIdScheme.SDP),
                TargetMode.ECHO, 64, 64 * 1024, 1 << 20, 16 << 20, 64 * 1024, 16, 4096, 2L << 30);
    }

    public TargetConfig withPort(int p) {
        return new TargetConfig(address, udpPort, provider, p, schemes, mode, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withMode(TargetMode m) {
        return new TargetConfig(address, udpPort, provider, port, schemes, m, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withSchemes(Set<ServiceIdScheme> s) {
        return new TargetConfig(address, udpPort, provider, port, s, mode, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withReceives(int buffers, int size) {
        return new TargetConfig(address, udpPort, provider, port, schemes, mode, buffers, size,
                Math.max(size, maxReceiveSize), regionSize, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withRegionSize(int bytes) {
        return new TargetConfig(address, udpPort, provider, port, schemes, mode, receiveBuffers, receiveSize,
                maxReceiveSize, bytes, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withSource(int size, int depth) {
        return new TargetConfig(address, udpPort, provider, port, schemes, mode, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, size, depth, maxConnections, memoryBudget);
    }

    public TargetConfig withProvider(String name) {
        return new TargetConfig(address, udpPort, name, port, schemes, mode, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, sourceSize, sourceDepth, maxConnections, memoryBudget);
    }

    public TargetConfig withLimits(int connections, long budget) {
        return new TargetConfig(address, udpPort, provider, port, schemes, mode, receiveBuffers, receiveSize,
                maxReceiveSize, regionSize, sourceSize, sourceDepth, connections, budget);
    }
}

package io.vibridge.vitcp.engine;

import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;

/**
 * This side's connection parameters (VITCP-PROFILE §5).
 *
 * @param attributes CE attributes this side announces
 * @param discriminator this side's discriminator (calling in a request, the matched one in an accept)
 * @param mtu the largest message this side supports (>= 32 KiB)
 * @param rdmaReadWindow inbound RDMA Read Requests this side holds outstanding for its peer
 * @param initialMessageNumber IMN, random (VITCP-PROFILE §3)
 * @param segmentPayload payload bytes per outbound segment (default 32 KiB)
 * @param creditThreshold NOP when the credits the peer knows about fall below this (VITCP-PROFILE §6)
 * @param security signs/verifies Connect Request/Accept, or null for Security Type 0
 */
public record LocalEndpoint(ConnectionAttributes attributes, Discriminator discriminator, long mtu,
        int rdmaReadWindow, int initialMessageNumber, int segmentPayload, int creditThreshold,
        ConnectSecurity security) {

    public static final int DEFAULT_SEGMENT_PAYLOAD = 32 * 1024;
    public static final int MAX_SEGMENT_PAYLOAD = 65535 - 24 - 16;

    public LocalEndpoint {
        if (segmentPayload < 1 || segmentPayload > MAX_SEGMENT_PAYLOAD) {
            throw new IllegalArgumentException("segment payload " + segmentPayload + " outside 1.." + MAX_SEGMENT_PAYLOAD);
        }
        if (rdmaReadWindow < 0 || rdmaReadWindow > 0xFFFF) {
            throw new IllegalArgumentException("RDMA read window " + rdmaReadWindow + " outside u16");
        }
    }
}

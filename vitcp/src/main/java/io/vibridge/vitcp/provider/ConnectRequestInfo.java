package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import java.net.InetSocketAddress;

/**
 * What VipConnectWait returns about the requesting VI (VIA 4.1).
 *
 * @param remote the requester's TCP address
 * @param remoteDiscriminator its calling discriminator
 * @param localDiscriminator the called discriminator it matched
 * @param attributes its CE attributes (reliability level, RDMA enables, flow control, peer-to-peer)
 * @param mtu the MTU it proposes
 * @param rdmaReadWindow the inbound RDMA Reads it holds for us
 */
public record ConnectRequestInfo(InetSocketAddress remote, Discriminator remoteDiscriminator,
        Discriminator localDiscriminator, ConnectionAttributes attributes, long mtu, int rdmaReadWindow) {
}

package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Discriminator;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * VIP_NET_ADDRESS (VIA 9.10.8) for VI/TCP (draft 2.2.2.2.1): host IP address and the passive
 * provider's TCP port, plus the endpoint discriminator.
 */
public record ViNetAddress(InetSocketAddress host, Discriminator discriminator) {
    public ViNetAddress {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(discriminator, "discriminator");
    }

    public static ViNetAddress of(String host, int port, String discriminator) {
        return new ViNetAddress(new InetSocketAddress(host, port), Discriminator.ofUtf8(discriminator));
    }
}

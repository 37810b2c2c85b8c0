package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * VIP_NET_ADDRESS (VIA 9.10.8) for VI/TCP (draft 2.2.2.2.1): host IP address and the passive
 * provider's TCP port, plus the endpoint discriminator, and the encapsulation that port speaks
 * (native VI/TCP on 7470, seed-004 RDMA/TCP framing on 7471: VITCP-PROFILE §8).
 */
public record ViNetAddress(InetSocketAddress host, Discriminator discriminator, Encapsulation encapsulation) {
    public ViNetAddress {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(discriminator, "discriminator");
        Objects.requireNonNull(encapsulation, "encapsulation");
    }

    /** Native VI/TCP. */
    public ViNetAddress(InetSocketAddress host, Discriminator discriminator) {
        this(host, discriminator, Encapsulation.VITCP);
    }

    public ViNetAddress withEncapsulation(Encapsulation e) {
        return new ViNetAddress(host, discriminator, e);
    }

    public static ViNetAddress of(String host, int port, String discriminator) {
        return new ViNetAddress(new InetSocketAddress(host, port), Discriminator.ofUtf8(discriminator));
    }
}

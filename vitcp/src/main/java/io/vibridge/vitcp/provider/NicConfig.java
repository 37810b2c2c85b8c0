package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Encapsulation;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * How a {@link ViNic} is opened.
 *
 * @param name NIC name (VipOpenNic's device name)
 * @param listen the passive provider's single TCP address (VITCP-PROFILE §1; port 7470 by default, 0 =
 *     chosen by the OS), or null for an active-only NIC
 * @param securityKey shared HMAC-SHA256 key for Security Type 1 (VITCP-PROFILE §5), or null
 * @param platformThreads read each connection with a platform thread instead of a virtual thread
 * @param segmentPayload payload bytes per outbound segment (VITCP-PROFILE §3: default 32 KiB)
 * @param creditThreshold send a NOP when the credits the peer knows about fall below this (§6)
 * @param readBufferSize bytes per TCP read (direct memory, one buffer per connection)
 * @param rdmaTcpListen the second listener, speaking seed-004 RDMA/TCP framing (VITCP-PROFILE §8; port
 *     7471 by default, 0 = chosen by the OS), or null for none
 * @param idle what readers, blocked writers and {@code VipRecvWait}/{@code VipSendWait} do while nothing
 *     arrives: block (default) or poll ({@link IdleStrategy}, the polling mode)
 */
public record NicConfig(String name, InetSocketAddress listen, byte[] securityKey, boolean platformThreads,
        int segmentPayload, int creditThreshold, int readBufferSize, InetSocketAddress rdmaTcpListen, IdleStrategy idle) {

    public static final int DEFAULT_PORT = Encapsulation.VITCP.defaultPort();
    public static final int DEFAULT_RDMATCP_PORT = Encapsulation.RDMATCP.defaultPort();

    /** Listens on 127.0.0.1 with an OS-chosen port, no key. */
    public static NicConfig loopback() {
        return new NicConfig("vitcp0", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null, false,
                32 * 1024, 8, 64 * 1024, null, IdleStrategy.BLOCK);
    }

    public NicConfig withListen(InetSocketAddress address) {
        return new NicConfig(name, address, securityKey, platformThreads, segmentPayload, creditThreshold, readBufferSize, rdmaTcpListen, idle);
    }

    public NicConfig withKey(byte[] key) {
        return new NicConfig(name, listen, key == null ? null : key.clone(), platformThreads, segmentPayload,
                creditThreshold, readBufferSize, rdmaTcpListen, idle);
    }

    public NicConfig withPlatformThreads(boolean on) {
        return new NicConfig(name, listen, securityKey, on, segmentPayload, creditThreshold, readBufferSize, rdmaTcpListen, idle);
    }

    public NicConfig withReadBufferSize(int bytes) {
        return new NicConfig(name, listen, securityKey, platformThreads, segmentPayload, creditThreshold, bytes, rdmaTcpListen, idle);
    }

    /** Also listens for seed-004 framed connections (VITCP-PROFILE §8) on {@code address}, or not (null). */
    public NicConfig withRdmaTcpListen(InetSocketAddress address) {
        return new NicConfig(name, listen, securityKey, platformThreads, segmentPayload, creditThreshold,
                readBufferSize, address, idle);
    }

    /** Readers, blocked writers and waits poll as {@code strategy} says ({@link IdleStrategy#BLOCK}: not at all). */
    public NicConfig withIdle(IdleStrategy strategy) {
        return new NicConfig(name, listen, securityKey, platformThreads, segmentPayload, creditThreshold, readBufferSize,
                rdmaTcpListen, strategy);
    }

    public NicConfig withName(String n) {
        return new NicConfig(n, listen, securityKey, platformThreads, segmentPayload, creditThreshold, readBufferSize, rdmaTcpListen, idle);
    }
}

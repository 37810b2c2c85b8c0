package io.vibridge.gateway.tools;

import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How a VI/TCP client tool connects.
 *
 * @param remote        the gateway's (or a vitcp peer's) listener
 * @param discriminator the called discriminator (the gateway's route name)
 * @param reliability   VI reliability level
 * @param flowControl   ask for descriptor flow control (VITCP-PROFILE §6)
 * @param key           HMAC-SHA256 key for Security Type 1, or null
 * @param messageSize   largest Send or RDMA transfer the tool will post (sizes its buffers)
 * @param receives      receive descriptors kept posted
 * @param window        Sends / RDMA operations kept outstanding in bandwidth tests
 * @param timeout       connect and per-operation timeout
 * @param framing       the encapsulation {@code remote} speaks: native VI/TCP or seed-004 frames (VITCP-PROFILE §8)
 */
public record ViClientOptions(InetSocketAddress remote, String discriminator, ReliabilityLevel reliability,
                              boolean flowControl, byte[] key, int messageSize, int receives, int window,
                              Duration timeout, Encapsulation framing) {

    /** Native VI/TCP framing. */
    public ViClientOptions(InetSocketAddress remote, String discriminator, ReliabilityLevel reliability,
                           boolean flowControl, byte[] key, int messageSize, int receives, int window, Duration timeout) {
        this(remote, discriminator, reliability, flowControl, key, messageSize, receives, window, timeout,
                Encapsulation.VITCP);
    }

    public ViClientOptions {
        if (messageSize < 0 || messageSize > (16 << 20)) {
            throw new IllegalArgumentException("size must be 0..16 MiB, got " + messageSize);
        }
        if (receives < 1 || window < 1) {
            throw new IllegalArgumentException("receives and window must be >= 1");
        }
    }

    /** Parses {@code host:port} or {@code [v6]:port}. */
    public static InetSocketAddress parseHostPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected host:port, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + text + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range in '" + text + "'");
        }
        return new InetSocketAddress(host, port);
    }

    public static String shortName(ReliabilityLevel level) {
        return switch (level) {
            case UNRELIABLE_DELIVERY -> "UD";
            case RELIABLE_DELIVERY -> "RD";
            case RELIABLE_RECEPTION -> "RR";
        };
    }

    public ViClientOptions withRemote(InetSocketAddress r) {
        return new ViClientOptions(r, discriminator, reliability, flowControl, key, messageSize, receives, window, timeout,
                framing);
    }

    public ViClientOptions withDiscriminator(String d) {
        return new ViClientOptions(remote, d, reliability, flowControl, key, messageSize, receives, window, timeout,
                framing);
    }

    public ViClientOptions withMessageSize(int size) {
        return new ViClientOptions(remote, discriminator, reliability, flowControl, key, size, receives, window, timeout,
                framing);
    }

    public ViClientOptions withFraming(Encapsulation f) {
        return new ViClientOptions(remote, discriminator, reliability, flowControl, key, messageSize, receives, window,
                timeout, f);
    }

    /** The VI network address of the remote end. */
    public ViNetAddress address() {
        return new ViNetAddress(remote, Discriminator.ofUtf8(discriminator), framing);
    }
}

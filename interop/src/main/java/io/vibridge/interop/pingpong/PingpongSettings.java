package io.vibridge.interop.pingpong;

/**
 * ibv_rc_pingpong's options that shape the traffic (libibverbs/examples/rc_pingpong.c main), and ours.
 *
 * @param size       {@code -s}: bytes per SEND (rc_pingpong: 4096)
 * @param iters      {@code -n}: exchanges (1000)
 * @param mtu        {@code -m}: path MTU (1024)
 * @param rxDepth    {@code -r}: receives kept posted (500)
 * @param chk        {@code -c}: the client zeroes the first byte of every page, the server checks them
 * @param ackTimeout our QP's local ACK timeout exponent (rc_pingpong's {@code attr.timeout = 14})
 */
public record PingpongSettings(int size, int iters, int mtu, int rxDepth, boolean chk, int ackTimeout) {
    public static final int DEFAULT_PORT = 18515;

    public PingpongSettings {
        if (size < 0 || size > (1 << 30)) {
            throw new IllegalArgumentException("size (-s) must be 0..1 GiB, got " + size);
        }
        if (iters < 1) {
            throw new IllegalArgumentException("iters (-n) must be at least 1, got " + iters);
        }
        if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            // pingpong.c pp_mtu_to_enum: anything else is refused
            throw new IllegalArgumentException("mtu (-m) must be 256, 512, 1024, 2048 or 4096, got " + mtu);
        }
        if (rxDepth < 1) {
            throw new IllegalArgumentException("rx-depth (-r) must be at least 1, got " + rxDepth);
        }
        if (ackTimeout < 0 || ackTimeout > 31) {
            throw new IllegalArgumentException("ack timeout must be 0..31, got " + ackTimeout);
        }
    }

    /** rc_pingpong's defaults. */
    public static PingpongSettings defaults() {
        return new PingpongSettings(4096, 1000, 1024, 500, false, 14);
    }
}

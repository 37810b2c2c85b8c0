package io.vibridge.verbs.soft.wire;

/** The IB path MTU enumeration of the CM and QP attributes (REF §1.4): 1=256 ... 5=4096 bytes. */
public final class PathMtu {

    public static final int MTU_256 = 1;
    public static final int MTU_512 = 2;
    public static final int MTU_1024 = 3;
    public static final int MTU_2048 = 4;
    public static final int MTU_4096 = 5;

    /** Headers rdma_cm subtracts from the netdev MTU over RoCE: GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4. */
    public static final int ROCE_OVERHEAD = 96;

    private PathMtu() {
    }

    /** Payload bytes per packet of an MTU code. */
    public static int bytes(int code) {
        if (code < MTU_256 || code > MTU_4096) {
            throw new IllegalArgumentException("invalid IB MTU code " + code);
        }
        return 128 << code;
    }

    /** The largest MTU code whose size does not exceed {@code bytes}. */
    public static int codeAtMost(int bytes) {
        if (bytes < 256) {
            throw new IllegalArgumentException("no IB MTU fits in " + bytes + " bytes");
        }
        int code = MTU_256;
        while (code < MTU_4096 && bytes(code + 1) <= bytes) {
            code++;
        }
        return code;
    }

    /** Whether a REQ's MTU field holds a defined code. */
    public static boolean isValid(int code) {
        return code >= MTU_256 && code <= MTU_4096;
    }

    /**
     * The largest IB MTU (bytes) a port on a network interface of MTU {@code netdevMtu} can carry: the
     * rdma_cm RoCE rule (REF §1.4, netdev MTU − 96 rounded down to an IB MTU: 1500 -> 1024, 9000 and
     * loopback's 65536 -> 4096), and as rxe never below 256 (an interface under 352 still gets 256).
     */
    public static int portMaxBytes(int netdevMtu) {
        return netdevMtu - ROCE_OVERHEAD < 256 ? 256 : bytes(forEthernetMtu(netdevMtu));
    }

    /** The path MTU rdma_cm picks for an Ethernet MTU: 1500 -> 1024, 9000 -> 4096 (REF §1.4). */
    public static int forEthernetMtu(int ethernetMtu) {
        return codeAtMost(ethernetMtu - ROCE_OVERHEAD);
    }
}

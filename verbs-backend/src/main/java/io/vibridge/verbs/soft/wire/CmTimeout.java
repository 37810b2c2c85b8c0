package io.vibridge.verbs.soft.wire;

/**
 * The 5-bit CM time encoding (REF §5.7): value v means 4.096 us x 2^v. Used by the REQ CM response
 * timeouts, the MRA service timeout, the local ACK timeout and the packet lifetime.
 */
public final class CmTimeout {

    private CmTimeout() {
    }

    /** Exact duration of an encoded value, in nanoseconds. */
    public static long nanos(int v) {
        check(v);
        return 4096L << v;
    }

    /** Linux CM's approximation, 2^(v-8) ms with a 1 ms floor (e.g. 20 -> 4096 ms). */
    public static long linuxMillis(int v) {
        check(v);
        return v <= 8 ? 1 : 1L << (v - 8);
    }

    /** The smallest encoded value whose duration is at least {@code nanos}, capped at 31. */
    public static int atLeastNanos(long nanos) {
        int v = 0;
        while (v < 31 && (4096L << v) < nanos) {
            v++;
        }
        return v;
    }

    /**
     * Linux {@code cm_ack_timeout}: the QP local ACK timeout from the CA ACK delay and the path
     * packet lifetime (REF §5.7; rxe ACK delay 15 with lifetime 18 gives 19).
     */
    public static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int t = packetLifeTime + 1;
        if (t >= caAckDelay) {
            t += caAckDelay >= t - 1 ? 1 : 0;
        } else {
            t = caAckDelay + (t >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(t, 31);
    }

    private static void check(int v) {
        if ((v & ~0x1F) != 0) {
            throw new IllegalArgumentException("CM timeout value out of range 0..31: " + v);
        }
    }
}

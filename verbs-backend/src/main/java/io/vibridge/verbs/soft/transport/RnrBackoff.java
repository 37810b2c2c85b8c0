package io.vibridge.verbs.soft.transport;

/**
 * How long a requester waits after an RNR NAK (IBA 9.7.5.2.8, C9-134: at least the time its RNR timer code
 * gives; longer is allowed). The wait is the coded time, raised to {@code minNanos}, doubled for every further
 * RNR NAK in a row without progress and capped at {@code maxNanos} (never below the coded time).
 *
 * <p>Why a floor and a backoff: a responder whose consumer stopped taking messages (a VI/TCP client that
 * stopped reading) NAKs every retry, and at the gateway's code 12 (0.64 ms) each stalled QP costs hundreds of
 * retries a second on both sides, moving nothing (verbs-backend README, "RNR waits"). Linux rxe floors the wait
 * at one jiffy ({@code rxe_comp.c: rnrnak_jiffies}, 1-4 ms); the backoff takes a stalled QP down to {@code 1 s / maxNanos}
 * retries a second, while the first retry after a short gap still comes after the coded time.
 *
 * @param minNanos floor of every wait (0 = the coded time alone, as IBA)
 * @param maxNanos cap of the backoff; a coded time above it is still honoured
 */
public record RnrBackoff(long minNanos, long maxNanos) {
    /** Linux rxe's floor at HZ = 1000 (one jiffy). */
    public static final long DEFAULT_MIN_NANOS = 1_000_000L;
    /** A stalled QP retries 10 times a second at most. */
    public static final long DEFAULT_MAX_NANOS = 100_000_000L;
    public static final RnrBackoff DEFAULT = new RnrBackoff(DEFAULT_MIN_NANOS, DEFAULT_MAX_NANOS);
    /** Doublings at most: 2^20 times the smallest wait is beyond any sensible cap. */
    private static final int MAX_SHIFT = 20;

    public RnrBackoff {
        if (minNanos < 0 || maxNanos < minNanos) {
            throw new IllegalArgumentException("RNR wait bounds must satisfy 0 <= min <= max, got " + minNanos + ", "
                    + maxNanos + " ns");
        }
    }

    /**
     * The wait before retry number {@code streak + 1} of a row: {@code streak} RNR NAKs came before this one
     * without progress.
     *
     * @param codedNanos the time of the NAK's RNR timer code
     */
    public long waitNanos(long codedNanos, int streak) {
        long base = Math.max(codedNanos, minNanos);
        long backedOff = base << Math.min(Math.max(streak, 0), MAX_SHIFT);
        return Math.max(base, Math.min(backedOff, maxNanos));
    }
}

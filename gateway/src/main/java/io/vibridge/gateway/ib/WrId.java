package io.vibridge.gateway.ib;

/**
 * The work-request id codec of a connection: a kind in the high 32 bits, a slot (buffer index) in the
 * low 32, so one completion handler finds both without a lookup. The kind is an owner's own enum,
 * stored as its ordinal + 1: id 0, what an unset request carries, then decodes to no kind. Allocates
 * nothing.
 */
public final class WrId {

    private WrId() {
    }

    /** The id of a work request of {@code kind} on {@code slot}. */
    public static long of(Enum<?> kind, int slot) {
        return ((long) (kind.ordinal() + 1) << 32) | (slot & 0xFFFF_FFFFL);
    }

    /**
     * The kind of {@code wrId}, one of {@code kinds} (the owner's {@code values()}, cached).
     *
     * @throws IllegalArgumentException if the id was not made by {@link #of} with one of them
     */
    public static <E extends Enum<E>> E kind(long wrId, E[] kinds) {
        long k = (wrId >>> 32) - 1;
        if (k < 0 || k >= kinds.length) {
            throw new IllegalArgumentException("work request id 0x" + Long.toHexString(wrId) + " has no kind");
        }
        return kinds[(int) k];
    }

    /** The slot of {@code wrId}. */
    public static int slot(long wrId) {
        return (int) wrId;
    }
}

package io.vibridge.cm.route;

/**
 * A route's discriminator, as {@link Route#discriminator()} and the gateway's per-route keys name it: a holder of
 * the one discriminator type, {@link io.vibridge.vitcp.wire.Discriminator}, to which it leaves every rule (length,
 * configuration text, equality, printing). Its methods have that type's signatures, so that code naming this
 * holder switches to that type by its import alone; the holder goes once nothing names it.
 */
public final class Discriminator {

    /** Longest discriminator a route may have. */
    public static final int MAX_LENGTH = io.vibridge.vitcp.wire.Discriminator.MAX_LENGTH;

    private final io.vibridge.vitcp.wire.Discriminator vi;

    private Discriminator(io.vibridge.vitcp.wire.Discriminator vi) {
        this.vi = vi;
    }

    /** See {@link io.vibridge.vitcp.wire.Discriminator#of(byte[])}. */
    public static Discriminator of(byte[] bytes) {
        return new Discriminator(io.vibridge.vitcp.wire.Discriminator.of(bytes));
    }

    /** See {@link io.vibridge.vitcp.wire.Discriminator#ofUtf8(String)}. */
    public static Discriminator ofUtf8(String text) {
        return new Discriminator(io.vibridge.vitcp.wire.Discriminator.ofUtf8(text));
    }

    /** See {@link io.vibridge.vitcp.wire.Discriminator#parse(String)}. */
    public static Discriminator parse(String text) {
        return new Discriminator(io.vibridge.vitcp.wire.Discriminator.parse(text));
    }

    /** The length in bytes. */
    public int length() {
        return vi.length();
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return vi.bytes();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Discriminator d && vi.equals(d.vi);
    }

    @Override
    public int hashCode() {
        return vi.hashCode();
    }

    /** See {@link io.vibridge.vitcp.wire.Discriminator#toString()}. */
    @Override
    public String toString() {
        return vi.toString();
    }
}

package io.vibridge.verbs.soft;

/**
 * Egress fault injection rates (0..1) of a soft device: each sent packet is independently dropped,
 * duplicated, held back behind the next packet (reordered) or has one byte flipped (the receiver's ICRC
 * check then drops it). {@code seed} makes runs repeatable.
 */
public record FaultConfig(double drop, double duplicate, double reorder, double corrupt, long seed) {
    public static final FaultConfig NONE = new FaultConfig(0, 0, 0, 0, 0);

    public FaultConfig {
        for (double r : new double[] {drop, duplicate, reorder, corrupt}) {
            if (!(r >= 0 && r <= 1)) {
                throw new IllegalArgumentException("fault rates must be within 0..1");
            }
        }
    }

    public boolean active() {
        return drop > 0 || duplicate > 0 || reorder > 0 || corrupt > 0;
    }
}

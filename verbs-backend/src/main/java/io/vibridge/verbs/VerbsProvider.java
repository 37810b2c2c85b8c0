package io.vibridge.verbs;

/** A verbs implementation, found with {@link java.util.ServiceLoader}. */
public interface VerbsProvider {
    /** Short name used for explicit selection ("soft", "disni"). */
    String name();

    /** Higher wins in automatic selection among usable providers (hardware over software). */
    int priority();

    /**
     * Whether automatic selection ({@link DeviceConfig#provider()} null, {@code infiniband.provider = auto}) may pick
     * this provider when it is usable; false: only when named.
     */
    default boolean selectedAutomatically() {
        return true;
    }

    /** Whether this provider can open {@code config} on this machine, and if not why. */
    Availability availability(DeviceConfig config);

    VerbsDevice open(DeviceConfig config);

    /** Result of {@link #availability}. */
    record Availability(boolean usable, String reason) {
        public static Availability ok() {
            return new Availability(true, "usable");
        }

        public static Availability no(String reason) {
            return new Availability(false, reason);
        }
    }
}

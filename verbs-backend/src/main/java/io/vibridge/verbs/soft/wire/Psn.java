package io.vibridge.verbs.soft.wire;

/** 24-bit packet sequence number arithmetic (REF §2.5). */
public final class Psn {

    /** PSNs, QPNs and MSNs are 24-bit quantities. */
    public static final int MASK = 0xFFFFFF;

    private Psn() {
    }

    /** {@code psn + 1} modulo 2^24. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /** {@code psn + n} modulo 2^24 ({@code n} may be negative). */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /**
     * Signed 24-bit distance {@code a - b} in [-2^23, 2^23), as rxe's {@code psn_compare}: negative
     * when {@code a} precedes {@code b}, zero when equal, positive when {@code a} follows {@code b}.
     * Meaningful while the true distance is below 2^23.
     */
    public static int compare(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** Whether {@code psn} fits in 24 bits. */
    public static boolean isValid(int psn) {
        return (psn & ~MASK) == 0;
    }
}

package io.vibridge.vitcp.rdmatcp;

/**
 * The costly step of {@link RdmaTcpCrc}'s reciprocal path: a chunk of the message reversed bit for bit
 * (its bytes in reverse order, each bit-reversed) into the scratch array {@code java.util.zip.CRC32}
 * then reads. Two implementations with the same results, chosen once per JVM by {@link #best()}.
 */
sealed interface BitReversal permits ScalarBitReversal, VectorBitReversal {

    /** Forces one implementation: {@code scalar} or {@code vector} (default: vector when it can run). */
    String PROPERTY = "vibridge.crc.reversal";

    /** {@code r[0, k)} = {@code src[hi - k, hi)} reversed bit for bit. */
    void reverse(byte[] src, int hi, byte[] r, int k);

    /** For logs and benchmark output: which implementation runs, and on what. */
    String description();

    /**
     * The vector implementation when the JVM runs with {@code --add-modules jdk.incubator.vector} (our
     * launcher, tests and benchmarks do) and has vector registers of 128 bits or more; the scalar one
     * otherwise, or as {@value #PROPERTY} says.
     */
    static BitReversal best() {
        String forced = System.getProperty(PROPERTY, "");
        boolean module = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        return switch (forced) {
            case "scalar" -> new ScalarBitReversal();
            case "vector" -> {
                if (!module) {
                    throw new IllegalStateException(PROPERTY + "=vector needs --add-modules jdk.incubator.vector");
                }
                yield new VectorBitReversal();
            }
            case "" -> module && VectorBitReversal.worthwhile() ? new VectorBitReversal() : new ScalarBitReversal();
            default -> throw new IllegalStateException(PROPERTY + " is scalar or vector, not '" + forced + "'");
        };
    }

    /** {@code r[from, k)} byte by byte: the tail of a chunk that is not a whole number of words or vectors. */
    static void reverseTail(byte[] src, int hi, byte[] r, int from, int k) {
        for (int j = from; j < k; j++) {
            r[j] = (byte) (Integer.reverse(src[hi - 1 - j]) >>> 24);
        }
    }
}

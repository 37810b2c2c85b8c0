package io.vibridge.vitcp.rdmatcp;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link BitReversal} with the Vector API (the incubator module {@code jdk.incubator.vector}, which JDK 25
 * still ships as one): per vector of the widest shape the CPU has, one load from the source's far end, a
 * lane reversal, a bit reversal of every byte, one store, where the scalar implementation makes two passes
 * of a word at a time; on AVX-512 the lane and bit reversals are single instructions (vpermb, vgf2p8affineqb).
 * Loaded only when {@link BitReversal#best()} found the module.
 */
final class VectorBitReversal implements BitReversal {

    private static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;
    /** Lane i takes lane (length - 1 - i). */
    private static final VectorShuffle<Byte> BACKWARDS = SPECIES.iotaShuffle(SPECIES.length() - 1, -1, true);

    /** Vectors narrower than 128 bits would not be faster than the scalar words. */
    static boolean worthwhile() {
        return SPECIES.vectorBitSize() >= 128;
    }

    @Override
    public void reverse(byte[] src, int hi, byte[] r, int k) {
        int n = SPECIES.length();
        int j = 0;
        for (; j <= k - n; j += n) {
            ByteVector.fromArray(SPECIES, src, hi - n - j)
                    .rearrange(BACKWARDS).lanewise(VectorOperators.REVERSE).intoArray(r, j);
        }
        BitReversal.reverseTail(src, hi, r, j, k);
    }

    @Override
    public String description() {
        return "vector (" + SPECIES.vectorBitSize() + "-bit, jdk.incubator.vector)";
    }
}

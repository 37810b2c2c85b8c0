package io.vibridge.vitcp.rdmatcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Both {@link BitReversal} implementations against the definition, byte by byte, for every chunk length
 * up to {@link RdmaTcpCrc#CHUNK} (whole vectors, whole words, tails).
 */
class BitReversalTest {

    private static final BitReversal[] BOTH = {new ScalarBitReversal(), new VectorBitReversal()};

    /** r[j] = the bits of src[hi - 1 - j] in reverse order. */
    private static byte[] expected(byte[] src, int hi, int k) {
        byte[] r = new byte[k];
        for (int j = 0; j < k; j++) {
            int b = src[hi - 1 - j] & 0xFF;
            int rev = 0;
            for (int bit = 0; bit < 8; bit++) {
                rev |= ((b >>> bit) & 1) << (7 - bit);
            }
            r[j] = (byte) rev;
        }
        return r;
    }

    @Property(tries = 300)
    void bothImplementationsReverseAnyChunk(@ForAll @IntRange(min = 0, max = RdmaTcpCrc.CHUNK) int k,
            @ForAll @IntRange(min = 0, max = 100) int before, @ForAll @IntRange(min = 0, max = 100) int after,
            @ForAll long seed) {
        byte[] src = new byte[before + k + after];
        new Random(seed).nextBytes(src);
        int hi = before + k;
        byte[] want = expected(src, hi, k);
        for (BitReversal reversal : BOTH) {
            byte[] r = new byte[RdmaTcpCrc.CHUNK];
            reversal.reverse(src, hi, r, k);
            assertThat(Arrays.copyOf(r, k)).as("%s, k %d", reversal.description(), k)
                    .isEqualTo(want);
        }
    }

    /** The build runs tests as the launcher runs the service: with the module, so with the vector code. */
    @Test
    void theVectorImplementationRunsWhenTheModuleIsThere() {
        assertThat(RdmaTcpCrc.implementation()).startsWith("vector (");
    }

    @Test
    void thePropertyChoosesOrRefuses() {
        String before = System.getProperty(BitReversal.PROPERTY);
        try {
            System.setProperty(BitReversal.PROPERTY, "scalar");
            assertThat(BitReversal.best()).isInstanceOf(ScalarBitReversal.class);
            System.setProperty(BitReversal.PROPERTY, "vector");
            assertThat(BitReversal.best()).isInstanceOf(VectorBitReversal.class);
            System.setProperty(BitReversal.PROPERTY, "simd");
            assertThatThrownBy(BitReversal::best).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("scalar or vector, not 'simd'");
        } finally {
            if (before == null) {
                System.clearProperty(BitReversal.PROPERTY);
            } else {
                System.setProperty(BitReversal.PROPERTY, before);
            }
        }
    }
}

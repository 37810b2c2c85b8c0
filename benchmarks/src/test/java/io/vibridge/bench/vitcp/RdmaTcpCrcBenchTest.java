package io.vibridge.bench.vitcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each benchmark computes the checksum it is named for over all {@code length} bytes, at every length measured. */
class RdmaTcpCrcBenchTest {

    @ParameterizedTest
    @ValueSource(ints = {1024, 9000, 65536})
    void eachBenchmarkChecksTheWholeSegment(int length) {
        RdmaTcpCrcBench bench = new RdmaTcpCrcBench();
        bench.length = length;
        bench.setup();
        byte[] bytes = new byte[length];
        bench.segment.get(0, bytes);

        int expected = RdmaTcpCrc.of(bytes, 0, length);
        assertThat(bench.rdmaTcpCrc()).isEqualTo(expected);
        assertThat(bench.sliceBy8()).isEqualTo(expected);
        CRC32 crc32 = new CRC32();
        crc32.update(bytes);
        CRC32C crc32c = new CRC32C();
        crc32c.update(bytes);
        for (int i = 0; i < 2; i++) {                  // the second call sees the whole segment again
            assertThat(bench.crc32()).isEqualTo(crc32.getValue());
            assertThat(bench.crc32c()).isEqualTo(crc32c.getValue());
        }
        assertThat(expected).isNotEqualTo((int) crc32.getValue());   // a different polynomial
        assertThat(bench.segment.position()).isZero();
        assertThat(bench.segment.limit()).isEqualTo(length);
    }
}

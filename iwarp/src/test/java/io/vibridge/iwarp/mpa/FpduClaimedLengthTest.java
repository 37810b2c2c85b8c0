package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * An FPDU split across reads is collected in a buffer that grows with the bytes that arrived,
 * never with the length its ULPDU Length field claims (a peer sending 2 bytes that claim 65,535 must not
 * cost 64 KiB), and the FPDU still arrives whole and checked.
 */
class FpduClaimedLengthTest {

    private static int bound(int received) {
        return Math.max(256, 2 * received) + 8;
    }

    @Test
    void fpduClaimingTheMaximum_holdsWhatArrived() {
        ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.MAX_LENGTH);
        byte[] ulpdu = new byte[Fpdu.MAX_ULPDU];
        new Random(29).nextBytes(ulpdu);
        fpdu.put(Fpdu.LENGTH_FIELD, ulpdu);
        Fpdu.seal(fpdu, 0, Fpdu.MAX_ULPDU, new CRC32C());
        List<byte[]> got = new ArrayList<>();
        FpduReader reader = new FpduReader((buf, off, len) -> {
            byte[] b = new byte[len];
            buf.get(off, b);
            got.add(b);
            return true;
        });
        reader.crc(true);

        reader.receive(fpdu.slice(0, 6));
        assertThat(reader.heldCapacity()).as("after the length field and 4 bytes").isLessThanOrEqualTo(bound(6));
        for (int at = 6; at < fpdu.capacity(); at += 1000) {
            int n = Math.min(1000, fpdu.capacity() - at);
            assertThat(reader.receive(fpdu.slice(at, n))).isTrue();
            if (at + n < fpdu.capacity()) {
                assertThat(reader.heldCapacity()).as("after %d bytes", at + n).isLessThanOrEqualTo(bound(at + n));
            }
        }
        assertThat(got).hasSize(1);
        assertThat(got.get(0)).isEqualTo(ulpdu);
        assertThat(reader.midFpdu()).isFalse();
    }
}

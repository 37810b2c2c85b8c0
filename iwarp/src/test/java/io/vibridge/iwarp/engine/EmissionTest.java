package io.vibridge.iwarp.engine;

import static io.vibridge.iwarp.engine.Wire.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.TerminateCode;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of message the engine lays out, at the FPDU sizes that matter (1448: siw at MTU 1500; 64: a
 * few bytes of payload per FPDU; 65535: the 16-bit length field's end), decodes back to exactly what was
 * asked for ({@link Emitter#check}). siw's own segmentation (README of the captures: 65,000 bytes at MSS 1448
 * are 45 FPDUs of 1448 and one of 760) is the reference for 1448.
 */
class EmissionTest {

    static Stream<Arguments> fpduSizes() {
        return Stream.of(Arguments.of(1448, false), Arguments.of(1448, true), Arguments.of(64, false),
                Arguments.of(64, true), Arguments.of(65535, false), Arguments.of(65535, true));
    }

    @ParameterizedTest(name = "maxFpdu {0}, CRC {1}")
    @MethodSource("fpduSizes")
    void everyMessageDecodesToItsPayload(int maxFpdu, boolean crc) {
        Emitter e = new Emitter(maxFpdu, crc);
        int per = e.maxUlpdu - RdmapOpcode.SEND.headerLength();
        int perTagged = e.maxUlpdu - RdmapOpcode.RDMA_WRITE.headerLength();
        int[] sizes = {0, 1, per - 1, per, per + 1, 2 * per, 2 * per + 1, perTagged, perTagged + 1, 65000};
        int seed = 0;
        for (int n : sizes) {
            e.send(RdmapOpcode.SEND, pattern(n, seed++), 0);
        }
        e.send(RdmapOpcode.SEND_SE, pattern(per + 5, seed++), 0);
        e.send(RdmapOpcode.SEND_INVALIDATE, pattern(3, seed++), 0x12345678);
        e.send(RdmapOpcode.SEND_SE_INVALIDATE, pattern(2 * per, seed++), 0xFFFFFF01);
        e.readRequest(65000, 0xAB00, 0x0000_7F00_0000_1000L);
        for (int n : sizes) {
            e.write(0xC0DE00 + n, 0x0000_5571_EC41_FF00L + n, pattern(n, seed++));
        }
        e.readRequest(0, 1, 0);
        for (int n : sizes) {
            e.readResponse(0x5E62EB00 + n, 0x0000_55CC_D72C_0F00L, pattern(n, seed++));
        }
        e.send(RdmapOpcode.SEND, pattern(10, seed++), 0);
        e.readRequest(7, -1, -1L);
        e.terminate(TerminateCode.DDP_UNTAGGED_MSN_RANGE);
        e.check();
    }

    @ParameterizedTest(name = "maxFpdu {0}")
    @MethodSource("fpduSizes")
    void segmentsAreAsLargeAsTheFpduAllows(int maxFpdu, boolean crc) {
        int u = new RdmapWriter(maxFpdu, crc).maxUlpdu();
        assertThat(Fpdu.length(u)).isLessThanOrEqualTo(maxFpdu);
        assertThat(Fpdu.length(u + 1)).as("one byte more would not fit").isGreaterThan(maxFpdu);
    }

    @Test
    void atMtu1500ThePayloadPerFpduIsSiws() {
        // siw-rping-65000-crc-on.pcap: ULPDU 1442 = 14 header + 1428 payload, 45 FPDUs of 1448 and one of 760
        Emitter e = new Emitter(1448, true);
        assertThat(e.maxUlpdu).isEqualTo(1442);
        e.write(0x42321E00, 0x000055F183708530L, pattern(65000, 1));
        e.check();
        assertThat(e.expected.getFirst().bytes()).isEqualTo(45 * 1448 + 760);
        assertThat(e.session.engine.length(RdmapOpcode.READ_RESPONSE, 65000)).isEqualTo(45 * 1448 + 760);
        // lo at 64 KiB: siw's 32768-byte FPDUs, two for 65,000 bytes (32762-byte ULPDU, then 32272 B)
        Emitter big = new Emitter(32768, true);
        assertThat(big.maxUlpdu).isEqualTo(32762);
        assertThat(big.session.engine.length(RdmapOpcode.RDMA_WRITE, 65000)).isEqualTo(32768 + 32272);
    }

    @Test
    void msnsCountPerQueueFromOne() {
        Emitter e = new Emitter(256, false);
        IntStream.range(0, 5).forEach(i -> {
            e.send(RdmapOpcode.SEND, pattern(300 * i, i), 0);
            e.readRequest(i, 0x100, i);
            e.write(0x200, 0, pattern(i, i));
        });
        e.terminate(TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        e.check();
    }

    @Test
    void tooSmallAnFpduIsRefusedAtOnce() {
        assertThat(new RdmapWriter(56, false).maxUlpdu()).isEqualTo(50);
        assertThatThrownBy(() -> new IwarpConnection(false, 55, new Recorder()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

package io.vibridge.bench.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.bench.Blackholes;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The writers produce whole packets and the readers accept the setup's WRITE FIRST. */
class RocePacketBenchTest {

    private final RocePacketBench bench = new RocePacketBench();

    @BeforeEach
    void setUp() {
        bench.setup();
    }

    @Test
    void writersReturnThePacketLength() {
        assertThat(bench.writeSendOnly()).isEqualTo(PacketWriter.packetLength(Opcode.SEND_ONLY, RocePacketBench.PAYLOAD));
        assertThat(bench.writeRdmaWriteFirst())
                .isEqualTo(PacketWriter.packetLength(Opcode.RDMA_WRITE_FIRST, RocePacketBench.PAYLOAD));
    }

    @Test
    void thePsnWrapsAt24Bits() {
        for (int i = 0; i <= 1 << 24; i++) {
            bench.writeSendOnly();
        }
    }

    @Test
    void readersAcceptThePacket() {
        bench.parseDataPath(Blackholes.create());
    }
}

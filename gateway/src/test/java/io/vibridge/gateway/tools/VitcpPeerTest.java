package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The baseline peer speaks the target's control protocol over VI/TCP, RDMA both ways included. */
class VitcpPeerTest {

    @Test
    void controlProtocol_peerInitiatedRdma_regionChecks_andErrors() throws Exception {
        try (VitcpPeer peer = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), "demo", TargetMode.ECHO, 8, 4096,
                1 << 20, null);
             ViClient c = ViClient.open(new ViClientOptions(peer.address(), "demo", ReliabilityLevel.RELIABLE_RECEPTION,
                     true, null, 4096, 4, 2, Duration.ofSeconds(20)))) {
            MemoryRegion mem = c.expose(1 << 20);
            c.connect();
            // the peer RDMA WRITEs the pattern into our memory
            int len = 100_000;
            ByteBuffer w = ByteBuffer.allocate(20).putLong(0, mem.address(4096)).putInt(8, mem.handle())
                    .putInt(12, len).putInt(16, 42);
            ByteBuffer wr = c.controlOk(Control.WRITE_TO_PEER, w);
            assertThat(wr.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(42, len));
            assertThat(Control.crc32c(mem.buffer(), 4096, len)).isEqualTo(Control.patternCrc(42, len));
            // the peer RDMA READs our memory
            Control.fillPattern(mem.buffer(), 500_000, 70_000, 7);
            ByteBuffer r = ByteBuffer.allocate(16).putLong(0, mem.address(500_000)).putInt(8, mem.handle())
                    .putInt(12, 70_000);
            assertThat(c.controlOk(Control.READ_FROM_PEER, r).getInt(Control.HEADER))
                    .isEqualTo(Control.patternCrc(7, 70_000));
            // region: fill, checksum, bounds
            ByteBuffer q = c.controlOk(Control.QUERY_REGION, null);
            assertThat(q.getInt(Control.HEADER + 12)).isEqualTo(1 << 20);
            ByteBuffer f = c.controlOk(Control.FILL_REGION, ByteBuffer.allocate(12).putInt(0, 100).putInt(4, 5000)
                    .putInt(8, 9));
            assertThat(f.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(9, 5000));
            assertThat(Control.status(c.control(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 1 << 20)
                    .putInt(4, 1)), 0)).isEqualTo(Control.OUT_OF_RANGE);
            assertThat(Control.status(c.control(0x33, null), 0)).isEqualTo(Control.UNKNOWN_COMMAND);
            assertThat(Control.status(c.control(Control.SET_MODE, null), 0)).isEqualTo(Control.BAD_REQUEST);
            assertThat(peer.acceptedConnections()).isEqualTo(1);
        }
    }

    private static ViClient client(VitcpPeer peer) throws Exception {
        return ViClient.open(new ViClientOptions(peer.address(), "demo", ReliabilityLevel.RELIABLE_RECEPTION, true, null,
                4096, 4, 2, Duration.ofSeconds(20)));
    }

    /** Like the target, the default echo answers Sends only; a WRITE WITH IMMEDIATE is not answered. */
    @Test
    void echo_doesNotAnswerAWriteWithImmediate() throws Exception {
        try (VitcpPeer peer = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), "demo", TargetMode.ECHO, 8, 4096,
                1 << 20, null);
             ViClient c = client(peer)) {
            c.connect();
            WriteWithImmediateChecks.writesAreNotAnswered(c);
        }
    }

    /** echo-ack-writes, as the initial mode or by SET_MODE: each WRITE WITH IMMEDIATE gets an empty Send. */
    @Test
    void echoAckWrites_answersEachWriteWithImmediate() throws Exception {
        try (VitcpPeer peer = VitcpPeer.start(new InetSocketAddress("127.0.0.1", 0), "demo",
                TargetMode.ECHO_ACK_WRITES, 8, 4096, 1 << 20, null)) {
            try (ViClient c = client(peer)) {
                c.connect();
                WriteWithImmediateChecks.writesAreAnswered(c);
            }
            try (ViClient c = client(peer)) {
                c.connect();
                c.setMode(TargetMode.ECHO);
                WriteWithImmediateChecks.writesAreNotAnswered(c);
                c.setMode(TargetMode.ECHO_ACK_WRITES);
                WriteWithImmediateChecks.writesAreAnswered(c);
            }
        }
    }
}

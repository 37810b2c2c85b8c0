package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.IdleStrategy;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gateway's opt-in polling mode ({@code infiniband.idle}): its soft device's receive thread polls while a
 * polling VI/TCP client (NicConfig idle) sends through it; every echo comes back intact, also after a quiet
 * spell long enough for backoff to block again.
 */
class PollingModeGatewayTest {

    @ParameterizedTest
    @ValueSource(strings = {"spin", "backoff"})
    void echoesThroughAPollingGateway(String idle) throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.83", 5000, 8, 65552);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.84",
                        TestSupport.route("echo", "127.0.0.83", 5000, 0, 8), "infiniband { idle = " + idle + " }"));
                ViNic nic = ViNic.open(NicConfig.loopback().withListen(null).withName("client")
                        .withIdle(IdleStrategy.parse(idle)));
                var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, 16)) {
            c.connect(g.port(), "echo");
            int[] sizes = {8, 65536, 1, 30000};
            for (int i = 0; i < 400; i++) {
                int size = sizes[i % sizes.length];
                int off = c.sendArea(i % 8);
                TestSupport.fill(c.mr, off, size, i);
                long sent = TestSupport.crc(c.mr.buffer(), off, size);
                c.vi.postSend(Descriptor.send().data(c.mr, off, size));
                assertThat(c.vi.sendWait(TestSupport.T).isError()).isFalse();
                Descriptor rx = c.vi.recvWait(TestSupport.T);
                assertThat(rx.length()).isEqualTo(size);
                int at = (i % c.recvs) * 65536;
                assertThat(TestSupport.crc(c.mr.buffer(), at, size)).as("message %d", i).isEqualTo(sent);
                c.vi.postRecv(Descriptor.receive().data(c.mr, at, 65536));
                if (i == 200) {
                    Thread.sleep(50);                           // backoff: every polling thread blocks again
                }
            }
        }
    }
}

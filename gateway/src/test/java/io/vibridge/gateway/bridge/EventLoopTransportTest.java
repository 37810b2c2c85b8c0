package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gateway on either event-loop transport ({@code vibridge.gateway.transport}): Netty's native epoll or
 * Java NIO. The client channel's Netty pieces (pooled buffers straight from the pipeline, the cumulator,
 * written messages) and the admin endpoint work the same on both; the rest of the suite runs on the default
 * (auto: epoll on Linux). Addresses 127.0.0.95-96.
 */
class EventLoopTransportTest {

    @ParameterizedTest
    @ValueSource(strings = {"nio", "epoll"})
    void messagesAndRdmaCrossTheGatewayIntact(String transport) throws Exception {
        EchoTarget target = new EchoTarget("127.0.0.95", 5000, 8, 65552);
        try (GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.96",
                TestSupport.route("echo", "127.0.0.95", 5000, 1, 8), "transport = " + transport));
             ViNic nic = TestSupport.clientNic();
             var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, 4)) {
            assertThat(g.nativeTransport()).isEqualTo(transport.equals("epoll"));
            c.connect(g.port(), "echo");
            int[] sizes = {1, 65536, 40000, 0};
            for (int i = 0; i < sizes.length; i++) {
                int off = c.sendArea(0);
                TestSupport.fill(c.mr, off, sizes[i], i);
                long crc = TestSupport.crc(c.mr.buffer(), off, sizes[i]);
                c.vi.postSend(Descriptor.send().data(c.mr, off, sizes[i]));
                assertThat(c.vi.sendWait(TestSupport.T).isError()).isFalse();
                Descriptor rx = c.vi.recvWait(TestSupport.T);
                assertThat(rx.isError()).isFalse();
                assertThat(TestSupport.crc(c.mr.buffer(), (i % 4) * 65536, sizes[i])).isEqualTo(crc);
                c.vi.postRecv(Descriptor.receive().data(c.mr, (i % 4) * 65536, 65536));
                // RDMA Write to the target, then Read it back (the target answers from its region)
                long va = target.rdma.address() + 65536;
                c.vi.postSend(Descriptor.rdmaWrite(va, target.rdma.rkey()).data(c.mr, off, sizes[i]));
                assertThat(c.vi.sendWait(TestSupport.T).isError()).isFalse();
                int back = c.sendArea(1);
                c.vi.postSend(Descriptor.rdmaRead(va, target.rdma.rkey()).data(c.mr, back, sizes[i]));
                assertThat(c.vi.sendWait(TestSupport.T).isError()).isFalse();
                assertThat(TestSupport.crc(c.mr.buffer(), back, sizes[i])).isEqualTo(crc);
            }
        } finally {
            target.close();
        }
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * 1,000 concurrent client connections through one gateway with the DEFAULT staging and limits settings
 * (only addresses and the route are configured), each bridged and echoing; the staging pool starts empty
 * and grows in chunks with use.
 */
class ManyConnectionsTest {
    static final int N = Integer.getInteger("vibridge.many.connections", 1000);

    @Test
    void thousandConcurrentConnections() throws Exception {
        String cfgExtra = "limits { max-connections-per-client = 1000 }"; // every connection from 127.0.0.1
        try (EchoTarget target = new EchoTarget("127.0.0.73", 5000, 1, 32784);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.74",
                        "{ match = \"many\", target = \"127.0.0.73\", port = 5000, flowc = 1, receive-size = 32784, "
                                + "receive-buffers = 1 }", cfgExtra));
                ViNic nic = TestSupport.clientNic()) {
            var staging = g.bridgeContext().pool();
            assertThat(g.bridgeContext().config().stagingConnectionCapacity()).as("the defaults admit max-connections")
                    .isGreaterThanOrEqualTo(g.bridgeContext().config().limits().maxConnections());
            assertThat(staging.allocated()).as("no staging memory before the first connection").isZero();
            ProtectionTag tag = nic.createPtag();
            MemoryRegion mr = nic.registerMemory(ByteBuffer.allocateDirect(N * 1024 + 4096),
                    new MemoryAttributes(tag, true, true));
            ViAttributes attrs = ViAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, tag).withMtu(32768)
                    .withFlowControl(true);
            List<Vi> vis = new ArrayList<>();
            try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
                List<Future<Vi>> fs = new ArrayList<>();
                for (int i = 0; i < N; i++) {
                    int k = i;
                    fs.add(pool.submit(() -> {
                        Vi vi = nic.createVi(attrs, null, null);
                        vi.postRecv(Descriptor.receive().data(mr, k * 1024, 1024));
                        vi.connectRequest(Discriminator.ofUtf8("c" + k), new ViNetAddress(
                                new InetSocketAddress("127.0.0.1", g.port()), Discriminator.ofUtf8("many")), T);
                        return vi;
                    }));
                }
                for (Future<Vi> f : fs) {
                    vis.add(f.get());
                }
            }
            assertThat(g.bridgeContext().bridgedConnections()).isEqualTo(N);
            // memory grows only with use: whole chunks, never more than one chunk beyond what is reserved
            int inUse = staging.inUse();
            assertThat(inUse).isEqualTo(N * g.bridgeContext().config().slotsPerConnection());
            assertThat(staging.allocated()).isBetween(inUse, inUse + staging.chunkSlots() - 1);
            assertThat(staging.allocated() % staging.chunkSlots()).isZero();
            assertThat(target.connections.get()).isEqualTo(N);
            // every connection carries a message both ways while all are open
            for (int i = 0; i < N; i++) {
                mr.buffer().putInt(N * 1024 + 4, i);
                vis.get(i).postSend(Descriptor.send().data(mr, N * 1024 + 4, 4));
                assertThat(vis.get(i).sendWait(T).isError()).isFalse();
            }
            for (int i = 0; i < N; i++) {
                Descriptor rx = vis.get(i).recvWait(T);
                assertThat(rx.isError()).isFalse();
                assertThat(mr.buffer().getInt(i * 1024)).isEqualTo(i);
            }
            for (Vi vi : vis) {
                vi.disconnect();
            }
            EndToEndTest.awaitTrue(() -> g.bridgeContext().connections().isEmpty());
            assertThat(g.bridgeContext().pool().inUse()).isZero();
            // a new connection takes slots from the chunks already made
            int chunks = staging.chunks();
            Vi again = nic.createVi(attrs, null, null);
            again.connectRequest(Discriminator.ofUtf8("again"), new ViNetAddress(
                    new InetSocketAddress("127.0.0.1", g.port()), Discriminator.ofUtf8("many")), T);
            assertThat(staging.chunks()).isEqualTo(chunks);
            again.disconnect();
        }
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.soft.FaultConfig;
import io.vibridge.verbs.soft.SoftDevice;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * 5% packet loss on the soft fabric (both directions) under a bulk transfer through the gateway:
 * every message arrives exactly once, in order, intact (each echo's CRC is checked against the
 * message the client sent with that sequence number). CI size 64 MiB each way; the full 1 GiB:
 * {@code -Dvibridge.lossy.bytes=1073741824}.
 */
class LossyTransferTest {
    static final long BYTES = Long.getLong("vibridge.lossy.bytes", 64L << 20);
    static final int MSG = 65536;
    static final double DROP = Double.parseDouble(System.getProperty("vibridge.lossy.drop", "0.05"));
    static final int WINDOW = 8;

    @Test
    void exactlyOnceUnderLoss() throws Exception {
        try (EchoTarget target = new EchoTarget("127.0.0.75", 5000, 16, 65552);
                GatewayServer g = GatewayServer.start(TestSupport.config("127.0.0.76",
                        TestSupport.route("lossy", "127.0.0.75", 5000, 0, 16),
                        "infiniband { faults = \"drop=" + DROP + ",seed=7\", local-ack-timeout = 13 }\n"
                                + "limits { buffer-per-connection = 2MiB }"));
                ViNic nic = TestSupport.clientNic()) {
            ((SoftDevice) target.device).setFaults(new FaultConfig(DROP, 0, 0, 0, 11));
            long messages = BYTES / MSG;
            try (var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_RECEPTION, true, 16)) {
                c.connect(g.port(), "lossy");
                long sent = 0;
                long received = 0;
                long sendDone = 0;
                long t0 = System.nanoTime();
                while (received < messages) {
                    while (sent < messages && sent - received < WINDOW) {
                        int area = c.sendArea((int) (sent % WINDOW));
                        stamp(c, area, sent);
                        c.vi.postSend(Descriptor.send().data(c.mr, area, MSG));
                        sent++;
                    }
                    while (sendDone < sent && c.vi.sendDone() != null) {
                        sendDone++;
                    }
                    Descriptor rx;
                    try {
                        rx = c.vi.recvWait(T);
                    } catch (RuntimeException e) {
                        System.out.println("STALL at message " + received + ": gateway "
                                + g.bridgeContext().connections().iterator().next().debugState() + " | target "
                                + target.debugState() + " | client sent " + sent + " sendDone " + sendDone);
                        g.bridgeContext().connections().iterator().next().kickOutput();
                        Thread.sleep(2000);
                        System.out.println("AFTER KICK: gateway " + g.bridgeContext().connections().iterator().next().debugState()
                                + " recvDone " + c.vi.recvDone());
                        throw e;
                    }
                    assertThat(rx.isError()).isFalse();
                    assertThat(rx.length()).isEqualTo(MSG);
                    int at = (int) ((received % c.recvs) * 65536);
                    long seq = c.mr.buffer().getLong(at);
                    assertThat(seq).as("message order/duplication").isEqualTo(received);
                    assertThat(TestSupport.crc(c.mr.buffer(), at, MSG)).isEqualTo(expectedCrc(received));
                    c.vi.postRecv(Descriptor.receive().data(c.mr, at, 65536));
                    received++;
                }
                while (sendDone < sent) {
                    assertThat(c.vi.sendWait(T).isError()).isFalse();
                    sendDone++;
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                System.out.printf("lossy transfer: %d MiB each way in %.1f s (%.1f MiB/s), retransmissions %d%n",
                        BYTES >> 20, secs, (BYTES >> 20) / secs, g.device().counters().retransmissions());
                assertThat(target.received.get()).isEqualTo(messages);
                // output buffers go back to Netty's pool (a leak would hold about the bytes sent)
                assertThat(PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory()).isLessThan(32L << 20);
                if (DROP > 0) {
                    assertThat(g.device().counters().faultDrops()).isGreaterThan(0);
                }
            }
        }
    }

    private static void stamp(TestSupport.Client c, int area, long seq) {
        TestSupport.fill(c.mr, area, MSG, seq);
        c.mr.buffer().putLong(area, seq);
    }

    private static long expectedCrc(long seq) {
        ByteBuffer b = ByteBuffer.allocate(MSG);
        Random r = new Random(seq);
        for (int i = 0; i < MSG; i++) {
            b.put(i, (byte) r.nextInt());
        }
        b.putLong(0, seq);
        return TestSupport.crc(b, 0, MSG);
    }
}

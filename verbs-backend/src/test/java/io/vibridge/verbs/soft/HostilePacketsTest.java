package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.wire.Icrc;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Random;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/**
 * Garbage with valid ICRCs (random opcodes, lengths, headers, MADs; to QP1, to an unconnected QP, to
 * unknown QPNs) and garbage with bad ICRCs: every packet is dropped or answered, nothing breaks, and
 * the connected pair keeps working.
 */
class HostilePacketsTest {
    @Test
    void randomPacketsAreDroppedAndTheConnectionSurvives() throws Exception {
        try (Connected c = new Connected(1 << 20, 32, null, null);
             DatagramChannel raw = DatagramChannel.open(StandardProtocolFamily.INET)) {
            raw.bind(new InetSocketAddress(c.devA.address(), 5000));
            raw.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            QueuePair idle = c.b.pd.createQueuePair(QpInitAttributes.of(c.b.cq, 4));
            InetSocketAddress to = new InetSocketAddress(c.devB.address(), 4791);
            int srcIp = ByteBuffer.wrap(c.devA.address().getAddress()).getInt();
            int dstIp = ByteBuffer.wrap(c.devB.address().getAddress()).getInt();
            Icrc icrc = new Icrc();
            Random r = new Random(42);
            ByteBuffer pkt = ByteBuffer.allocate(600);
            int sent = 0;
            for (int i = 0; i < 4000; i++) {
                int len = 4 + r.nextInt(560);
                for (int k = 0; k < len; k++) {
                    pkt.put(k, (byte) r.nextInt());
                }
                if (len >= 16) {
                    pkt.put(1, (byte) (pkt.get(1) & 0xF0));              // TVer 0 mostly
                    int target = switch (i % 4) {
                        case 0 -> 1;                                       // CM
                        case 1 -> idle.qpNum();                            // INIT QP
                        case 2 -> 5000 + r.nextInt(100000);                // unknown QPN
                        default -> r.nextInt(1 << 24);
                    };
                    pkt.putInt(4, target);
                    if (target == 1) {
                        pkt.put(0, (byte) 0x64);
                        if (len >= 280 && r.nextBoolean()) {
                            len = 280;
                            pkt.putInt(12, 0x80010000);
                            pkt.put(20, (byte) 1).put(21, (byte) 7).put(22, (byte) 2).put(23, (byte) 3);
                            pkt.putShort(36, (short) (0x10 + r.nextInt(8)));
                        }
                    }
                }
                if (i % 10 == 9 || len < 16) {
                    pkt.put(len - 1, (byte) (pkt.get(len - 1) ^ 1));     // break the ICRC
                } else {
                    Icrc.writeTrailer(pkt, 0, len,
                            icrc.computeIpv4(srcIp, dstIp, 5000, 4791, pkt, 0, len));
                }
                raw.send(pkt.duplicate().position(0).limit(len), to);
                sent++;
            }
            long end = System.nanoTime() + 60_000_000_000L;
            while (c.devB.counters().packetsIn() < sent && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertThat(c.devB.counters().icrcDrops()).isPositive();
            assertThat(c.devB.counters().malformedDrops()).isPositive();
            assertThat(idle.state()).isEqualTo(QpState.INIT);
            // the connection still works both ways
            c.b.postRecv(1, 0, 100);
            c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND, c.a.mr, 0, 100));
            c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_READ, c.a.mr, 0, 5000)
                    .remote(c.b.mr.address(), c.b.mr.rkey()));
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(c.b.next().status).isEqualTo(WcStatus.SUCCESS);
        }
    }
}

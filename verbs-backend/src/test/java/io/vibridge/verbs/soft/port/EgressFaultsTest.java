package io.vibridge.verbs.soft.port;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.soft.udp.UdpSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Fault injection without a socket: a recording sender and a hold timer the test runs by hand. */
class EgressFaultsTest {
    private static final InetSocketAddress TO = new InetSocketAddress("127.0.0.2", 4791);
    private final List<Integer> sent = new ArrayList<>();      // first byte of each datagram sent
    private final List<byte[]> sentBytes = new ArrayList<>();
    private final UdpSocket.Sender sender = (buf, off, len, segmentSize, to, toIp) -> {
        assertThat(segmentSize).isEqualTo(len);                  // one datagram per call
        byte[] b = new byte[len];
        buf.get(off, b);
        sent.add(b[0] & 0xFF);
        sentBytes.add(b);
    };
    private final List<Runnable> timers = new ArrayList<>();
    private final SoftCounters counters = new SoftCounters();
    private final EgressFaults faults = new EgressFaults(counters, () -> sender, timers::add, 64, "test");

    private void send(int tag) {
        ByteBuffer pkt = ByteBuffer.allocate(40);
        pkt.put(0, (byte) tag);
        faults.send(sender, pkt, 0, 40, TO, 0);
    }

    @Test
    void offSendsEverythingOnceInOrder() {
        assertThat(faults.active()).isFalse();
        for (int i = 0; i < 10; i++) {
            send(i);
        }
        assertThat(sent).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(counters.packetsOut.sum()).isEqualTo(10);
        assertThat(counters.bytesOut.sum()).isEqualTo(400);
    }

    @Test
    void dropAllSendsNothing() {
        faults.set(1, 0, 0, 0, 1);
        assertThat(faults.active()).isTrue();
        for (int i = 0; i < 5; i++) {
            send(i);
        }
        assertThat(sent).isEmpty();
        assertThat(counters.faultDrops.sum()).isEqualTo(5);
        assertThat(counters.packetsOut.sum()).isZero();
    }

    @Test
    void duplicateAllSendsEachTwice() {
        faults.set(0, 1, 0, 0, 1);
        send(1);
        send(2);
        assertThat(sent).containsExactly(1, 1, 2, 2);
        assertThat(counters.faultDuplicates.sum()).isEqualTo(2);
    }

    @Test
    void aHeldPacketLeavesAfterTheNextOne() {
        faults.set(0, 0, 1, 0, 1);
        send(1);                                                 // held
        assertThat(sent).isEmpty();
        assertThat(timers).hasSize(1);
        send(2);                                                 // one is held at most: 2 goes, then 1
        assertThat(sent).containsExactly(2, 1);
        assertThat(counters.faultReorders.sum()).isEqualTo(1);
        timers.getFirst().run();                                 // the timer finds nothing held any more
        assertThat(sent).containsExactly(2, 1);
    }

    @Test
    void theHoldTimerReleasesAPacketNothingFollowed() {
        faults.set(0, 0, 1, 0, 1);
        send(7);
        assertThat(sent).isEmpty();
        timers.getFirst().run();
        assertThat(sent).containsExactly(7);
        assertThat(counters.packetsOut.sum()).isEqualTo(1);
    }

    @Test
    void aDropReleasesTheHeldPacket() {
        faults.set(0, 0, 1, 0, 1);
        send(1);
        faults.set(1, 0, 0, 0, 1);
        send(2);
        assertThat(sent).containsExactly(1);
    }

    @Test
    void corruptionFlipsOneBitPastTheFirstTwelveBytes() {
        faults.set(0, 0, 0, 1, 5);
        for (int i = 0; i < 50; i++) {
            send(0);
        }
        assertThat(sentBytes).hasSize(50).allSatisfy(b -> {
            int flipped = 0;
            for (int i = 0; i < b.length; i++) {
                assertThat(i < 12 && b[i] != 0).isFalse();
                flipped += Integer.bitCount(b[i] & 0xFF);
            }
            assertThat(flipped).isEqualTo(1);
        });
        assertThat(counters.faultCorruptions.sum()).isEqualTo(50);
    }

    @Test
    void theSameSeedGivesTheSameRun() {
        faults.set(0.3, 0.2, 0.2, 0, 42);
        for (int i = 0; i < 200; i++) {
            send(i);
        }
        List<Integer> first = List.copyOf(sent);
        sent.clear();
        timers.clear();
        EgressFaults again = new EgressFaults(new SoftCounters(), () -> sender, timers::add, 64, "again");
        again.set(0.3, 0.2, 0.2, 0, 42);
        for (int i = 0; i < 200; i++) {
            ByteBuffer pkt = ByteBuffer.allocate(40);
            pkt.put(0, (byte) i);
            again.send(sender, pkt, 0, 40, TO, 0);
        }
        assertThat(sent).isEqualTo(first).isNotEqualTo(IntStream.range(0, 200).boxed().toList());
    }

    @Test
    void allRatesZeroTurnsInjectionOff() {
        faults.set(1, 0, 0, 0, 1);
        faults.set(0, 0, 0, 0, 1);
        assertThat(faults.active()).isFalse();
        send(3);
        assertThat(sent).containsExactly(3);
    }
}

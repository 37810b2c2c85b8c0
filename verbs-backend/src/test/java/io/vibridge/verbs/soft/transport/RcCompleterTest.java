package io.vibridge.verbs.soft.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpConnection;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.TestDevices;
import io.vibridge.verbs.soft.cm.LinuxPeer;
import io.vibridge.verbs.soft.transport.RcCompleter.Mode;
import io.vibridge.verbs.soft.wire.Aeth;
import io.vibridge.verbs.soft.wire.Bth;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The completer's mode machine ({@link RcCompleter.Mode}), driven over loopback by a plain-socket responder that
 * answers with the ACKs, NAKs and RNR NAKs each case needs and reads what the requester sends in return. Where a
 * timer must not end a mode before the test has looked at it, the test holds the device's one timer thread.
 */
class RcCompleterTest {
    private static final int PEER_QPN = 0x52;
    private static final int P = 0x7000;                    // the QP's first PSN
    /** 4.096 µs × 2^24, about 69 s: never fires here. */
    private static final int NO_TIMEOUT = 24;
    /** 4.096 µs × 2^16, about 268 ms: fires, with time to look at the probe before the next one. */
    private static final int SHORT_TIMEOUT = 16;

    private VerbsDevice dev;
    private LinuxPeer peer;

    @BeforeEach
    void open() throws Exception {
        dev = TestDevices.open();
        peer = new LinuxPeer(dev);
    }

    @AfterEach
    void close() throws Exception {
        try {
            peer.close();
        } finally {
            dev.close();
        }
    }

    @Test
    void anAckRetiresWhatItCoversAndStreamingGoesOn() throws Exception {
        Sender s = new Sender(7, 7, NO_TIMEOUT);
        s.send(2);
        assertThat(s.received(2)).containsExactly(P, P + 1);
        assertThat(s.mode()).isEqualTo(Mode.STREAMING);

        peer.sendAck(s.qpn(), P, 1);
        assertThat(s.completions(1)).containsExactly("1 SUCCESS");
        peer.sendAck(s.qpn(), P + 1, 2);
        assertThat(s.completions(1)).containsExactly("2 SUCCESS");
        assertThat(s.mode()).isEqualTo(Mode.STREAMING);
    }

    @Test
    void anRnrNakWaitsForItsTimerThenProbesTheNakedPsnAndResumes() throws Exception {
        Sender s = new Sender(7, 7, NO_TIMEOUT);
        s.send(2);
        s.received(2);
        try (HeldTimers held = new HeldTimers(s.qp)) {
            peer.sendAeth(s.qpn(), P + 1, Aeth.rnrNak(1), 1);   // P received, P + 1 found no receive WQE
            s.awaitMode(Mode.RNR_WAIT);
            assertThat(s.completions(1)).containsExactly("1 SUCCESS");   // the RNR NAK acknowledges P
            s.send(1);                                          // P + 2 waits for the RNR timer too
        }
        // the RNR timer's probe is the NAKed packet alone, asking for an ACK: nothing went out during the wait
        assertThat(s.next()).isEqualTo(new Packet(P + 1, true));
        assertThat(s.mode()).isEqualTo(Mode.PROBING);
        peer.sendAck(s.qpn(), P + 1, 2);                        // the probe's answer: streaming again
        assertThat(s.next()).isEqualTo(new Packet(P + 2, true));
        assertThat(s.completions(1)).containsExactly("2 SUCCESS");
        assertThat(s.mode()).isEqualTo(Mode.STREAMING);
    }

    @Test
    void anAckTimeoutProbesWithTheOldestPacketThenGoesBackToIt() throws Exception {
        Sender s = new Sender(7, 7, SHORT_TIMEOUT);
        s.send(3);
        assertThat(s.received(3)).containsExactly(P, P + 1, P + 2);
        assertThat(s.next()).isEqualTo(new Packet(P, true));    // the timeout's probe, nothing behind it
        try (HeldTimers held = new HeldTimers(s.qp)) {
            assertThat(s.mode()).isEqualTo(Mode.PROBING);
            peer.sendAck(s.qpn(), P - 1, 0);                    // the responder still expects P: all lost
            assertThat(s.nextOtherThan(P)).isEqualTo(new Packet(P + 1, false));   // go-back-N after the probe
            assertThat(s.next()).isEqualTo(new Packet(P + 2, true));
            assertThat(s.mode()).isEqualTo(Mode.STREAMING);
            peer.sendAck(s.qpn(), P + 2, 3);
            assertThat(s.completions(3)).containsExactly("1 SUCCESS", "2 SUCCESS", "3 SUCCESS");
        }
        assertThat(s.qp.info().timeouts()).isPositive();
    }

    @Test
    void aLateAckWhileProbingProbesAgainAtTheNewOldestPsn() throws Exception {
        Sender s = new Sender(7, 7, SHORT_TIMEOUT);
        s.send(3);
        s.received(3);
        assertThat(s.next()).isEqualTo(new Packet(P, true));
        try (HeldTimers held = new HeldTimers(s.qp)) {
            peer.sendAck(s.qpn(), P + 1, 2);                    // late: P and P + 1 had arrived
            assertThat(s.completions(2)).containsExactly("1 SUCCESS", "2 SUCCESS");
            assertThat(s.mode()).isEqualTo(Mode.PROBING);       // no resend of what may have arrived
        }
        assertThat(s.nextOtherThan(P)).isEqualTo(new Packet(P + 2, true));   // the next probe
        peer.sendAck(s.qpn(), P + 2, 3);
        assertThat(s.completions(1)).containsExactly("3 SUCCESS");
        assertThat(s.mode()).isEqualTo(Mode.STREAMING);
    }

    @Test
    void aSequenceNakGoesBackToTheNakedPsnAtOnce() throws Exception {
        Sender s = new Sender(7, 7, NO_TIMEOUT);
        s.send(3);
        s.received(3);
        peer.sendAeth(s.qpn(), P + 1, Aeth.nak(Aeth.PSN_SEQUENCE_ERROR), 1);
        assertThat(s.received(2)).containsExactly(P + 1, P + 2);
        assertThat(s.completions(1)).containsExactly("1 SUCCESS");
        assertThat(s.mode()).isEqualTo(Mode.STREAMING);
        assertThat(s.qp.info().retransmissions()).isEqualTo(2);
    }

    @Test
    void exhaustedRetriesFailTheOldestWithRetryExceededAndFlushTheRest() throws Exception {
        Sender s = new Sender(2, 7, 10);             // 4 ms timeouts, two retries
        s.send(2);
        assertThat(s.received(4)).containsExactly(P, P + 1, P, P);   // two probes, then no retry is left
        assertThat(s.completions(2)).containsExactly("1 RETRY_EXCEEDED", "2 WR_FLUSH_ERROR");
        assertThat(s.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(s.qp.info().timeouts()).isEqualTo(3);
        assertThat(s.qp.info().retransmissions()).isEqualTo(2);
    }

    @Test
    void anRnrNakBeyondTheRnrRetryCountFailsWithRnrRetryExceeded() throws Exception {
        Sender s = new Sender(7, 0, NO_TIMEOUT);
        s.send(2);
        s.received(2);
        peer.sendAeth(s.qpn(), P, Aeth.rnrNak(1), 0);
        assertThat(s.completions(2)).containsExactly("1 RNR_RETRY_EXCEEDED", "2 WR_FLUSH_ERROR");
        assertThat(s.qp.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void anErrorNakFailsTheNakedMessageAndCompletesTheOnesBefore() throws Exception {
        Sender s = new Sender(7, 7, NO_TIMEOUT);
        s.send(3);
        s.received(3);
        peer.sendAeth(s.qpn(), P + 1, Aeth.nak(Aeth.REMOTE_ACCESS_ERROR), 1);
        assertThat(s.completions(3))
                .containsExactly("1 SUCCESS", "2 REMOTE_ACCESS_ERROR", "3 WR_FLUSH_ERROR");
        assertThat(s.qp.state()).isEqualTo(QpState.ERROR);
    }

    /** A packet the peer received: its PSN and whether it asks for an ACK. */
    private record Packet(int psn, boolean ackReq) {
    }

    /**
     * Holds the device's one timer thread until closed, so that no timer of the QP (retry, RNR, reprobe) runs
     * meanwhile; a timer that came due runs once it is let go.
     */
    private static final class HeldTimers implements AutoCloseable {
        private final CountDownLatch holding = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        HeldTimers(RcQueuePair qp) throws InterruptedException {
            qp.port.timers().execute(() -> {
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(holding.await(10, TimeUnit.SECONDS)).as("the timer thread is held").isTrue();
        }

        @Override
        public void close() {
            release.countDown();
        }
    }

    /** Our device's QP connected to the peer, sending one-byte SENDs numbered 1, 2, ... */
    private final class Sender {
        final RcQueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion mr;
        long wrId;

        Sender(int retries, int rnrRetries, int timeout) throws Exception {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            cq = dev.createCompletionQueue(64);
            qp = (RcQueuePair) pd.createQueuePair(QpInitAttributes.of(cq, 16));
            mr = pd.registerMemory(ByteBuffer.allocateDirect(64), EnumSet.of(Access.LOCAL_WRITE));
            qp.connect(QpConnection.of(peer.address(), PEER_QPN, P, 0x100, 1024)
                    .withRetries(retries, rnrRetries, timeout));
        }

        int qpn() {
            return qp.qpNum();
        }

        void send(int n) {
            for (int i = 0; i < n; i++) {
                qp.postSend(new SendWorkRequest().set(++wrId, WrOpcode.SEND, mr, 0, 1));
            }
        }

        Mode mode() {
            synchronized (qp) {
                return qp.completer.mode();
            }
        }

        void awaitMode(Mode m) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (mode() != m) {
                assertThat(System.nanoTime()).as("mode %s within 10 s", m).isLessThan(end);
                Thread.sleep(1);
            }
        }

        Packet next() throws Exception {
            ByteBuffer p = peer.receiveRc();
            return new Packet(Bth.psn(p, 0), Bth.ackRequest(p, 0));
        }

        /** The next packet of another PSN than {@code psn}: a timer may have repeated a probe of it meanwhile. */
        Packet nextOtherThan(int psn) throws Exception {
            Packet p = next();
            while (p.psn() == psn) {
                p = next();
            }
            return p;
        }

        List<Integer> received(int n) throws Exception {
            List<Integer> psns = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                psns.add(next().psn());
            }
            return psns;
        }

        /** The next {@code n} completions as "wrId STATUS", within 10 s. */
        List<String> completions(int n) throws InterruptedException {
            List<String> out = new ArrayList<>();
            WorkCompletion[] wc = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (out.size() < n) {
                if (cq.poll(wc) == 0) {
                    assertThat(System.nanoTime()).as("completion %d of %d", out.size() + 1, n).isLessThan(end);
                    Thread.sleep(1);
                    continue;
                }
                out.add(wc[0].wrId + " " + wc[0].status);
            }
            return out;
        }
    }
}

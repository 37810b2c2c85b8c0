package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.QpState;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SEND with Invalidate between two soft devices connected through the CM, on this class's own loopback addresses
 * (127.0.0.163-170): the receive completes as RECV with the IETH's R_Key, whatever the message's length, with its
 * solicited event bit; a lost packet is resent with its IETH; a duplicate is acknowledged, not delivered again; no
 * receive means RNR, as for a SEND; and nothing is invalidated at the responder (RcResponder).
 */
class SendWithInvalidateTest {
    /** A key our devices never issued: the gateway receives its client's keys, passed through. */
    private static final int CLIENT_KEY = 0xC11E_0A00;
    private static final int RECV_AT = 1 << 19;

    private Connected c;
    private int mtu;

    @BeforeEach
    void connect() throws Exception {
        c = new Connected(open(), open(), 1 << 20, 16, null, null);
        mtu = c.a.qp.pathMtu();
    }

    private static SoftDevice open() {
        return (SoftDevice) TestDevices.openIn(163, 170, cfg -> cfg.withProvider("soft"));
    }

    @AfterEach
    void close() {
        c.close();
    }

    @Test
    void everyLengthArrivesAsOneReceiveWithTheKeyAndTheSolicitedBit() throws Exception {
        int[] lengths = {0, 1, mtu, 3 * mtu + 5};
        for (int i = 0; i < lengths.length; i++) {
            boolean solicited = i % 2 == 0;
            WorkCompletion r = sendWithInvalidate(i + 1, lengths[i], CLIENT_KEY + i, solicited);
            assertThat(r.solicited).as("solicited, %d bytes", lengths[i]).isEqualTo(solicited);
        }
    }

    @Test
    void ourOwnKeyStaysValidAndTheQueuePairsStayUp() throws Exception {
        sendWithInvalidate(1, 64, c.b.mr.rkey(), false);
        c.a.post(new SendWorkRequest().set(2, WrOpcode.RDMA_WRITE, c.a.mr, 0, 64)
                .remote(c.b.mr.address(), c.b.mr.rkey()));
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.a.qp.state()).isEqualTo(QpState.RTS);
        assertThat(c.b.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aLostPacketIsResentWithItsIeth() throws Exception {
        SoftDevice a = (SoftDevice) c.devA;
        long id = 0;
        for (int length : new int[] {1, 3 * mtu + 5}) {
            int packets = Math.max(1, (length + mtu - 1) / mtu);
            long dropped = c.devA.counters().faultDrops();
            long resent = c.devA.counters().retransmissions();
            c.b.postRecv(++id, RECV_AT, 1 << 16);
            fill(c.a.mr.buffer(), length, id);
            a.setFaults(new FaultConfig(1, 0, 0, 0, 1));           // every packet of the first transmission lost
            c.a.post(new SendWorkRequest().set(id, WrOpcode.SEND_WITH_INV, c.a.mr, 0, length)
                    .invalidate(CLIENT_KEY + (int) id));
            await(() -> c.devA.counters().faultDrops() - dropped, packets);
            a.setFaults(FaultConfig.NONE);
            assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
            // the receiver saw only resent packets: its completion's key came from a resent Last/Only
            expectReceive(c.b.next(), id, length, CLIENT_KEY + (int) id);
            assertThat(c.devA.counters().retransmissions() - resent).as("packets resent")
                    .isGreaterThanOrEqualTo(packets);
        }
    }

    @Test
    void aDuplicateIsAcknowledgedNotDeliveredAgain() throws Exception {
        c.b.postRecv(1, RECV_AT, 1 << 16);
        c.b.postRecv(2, RECV_AT + (1 << 16), 1 << 16);
        c.b.postRecv(3, RECV_AT + (2 << 16), 1 << 16);
        ((SoftDevice) c.devA).setFaults(new FaultConfig(0, 1, 0, 0, 1));   // every packet sent twice
        fill(c.a.mr.buffer(), mtu + 1, 1);
        c.a.post(new SendWorkRequest().set(1, WrOpcode.SEND_WITH_INV, c.a.mr, 0, mtu + 1).invalidate(CLIENT_KEY));
        c.a.post(new SendWorkRequest().set(2, WrOpcode.SEND, c.a.mr, 0, 8));
        expectReceive(c.b.next(), 1, mtu + 1, CLIENT_KEY);
        WorkCompletion plain = c.b.next();
        // the second receive holds the plain SEND, not a second copy of the first message
        assertThat(plain.wrId).isEqualTo(2);
        assertThat(plain.hasInvalidate).isFalse();
        assertThat(plain.byteLength).isEqualTo(8);
        assertThat(c.devB.counters().duplicatesReceived()).isPositive();
    }

    @Test
    void withoutAReceiveItWaitsOnRnrAsASendDoes() throws Exception {
        fill(c.a.mr.buffer(), 100, 7);
        c.a.post(new SendWorkRequest().set(7, WrOpcode.SEND_WITH_INV, c.a.mr, 0, 100).invalidate(CLIENT_KEY));
        await(() -> c.devB.counters().rnrNaksSent(), 1);
        c.b.postRecv(7, RECV_AT, 1 << 16);
        assertThat(c.a.next().status).isEqualTo(WcStatus.SUCCESS);
        expectReceive(c.b.next(), 7, 100, CLIENT_KEY);
    }

    /** A posts a SEND with Invalidate of {@code length} bytes into a receive B posted; both completions checked. */
    private WorkCompletion sendWithInvalidate(long id, int length, int key, boolean solicited) throws Exception {
        c.b.postRecv(id, RECV_AT, 1 << 16);
        fill(c.a.mr.buffer(), length, id);
        SendWorkRequest s = new SendWorkRequest().set(id, WrOpcode.SEND_WITH_INV, c.a.mr, 0, length).invalidate(key);
        s.solicited = solicited;
        c.a.post(s);
        WorkCompletion sent = c.a.next();
        assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(sent.opcode).isEqualTo(WcOpcode.SEND);
        assertThat(sent.wrId).isEqualTo(id);
        WorkCompletion r = c.b.next();
        expectReceive(r, id, length, key);
        return r;
    }

    private void expectReceive(WorkCompletion r, long id, int length, int key) {
        String what = length + " bytes";
        assertThat(r.status).as(what).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.opcode).as(what).isEqualTo(WcOpcode.RECV);
        assertThat(r.wrId).as(what).isEqualTo(id);
        assertThat(r.byteLength).as(what).isEqualTo(length);
        assertThat(r.hasInvalidate).as(what).isTrue();
        assertThat(r.invalidatedRkey).as(what).isEqualTo(key);
        assertThat(r.hasImmediate).as(what).isFalse();
        assertThat(c.b.mr.buffer().slice(RECV_AT, length)).as(what).isEqualTo(c.a.mr.buffer().slice(0, length));
    }

    private static void fill(ByteBuffer b, int length, long seed) {
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) (seed * 31 + i));
        }
    }

    /** Waits until {@code value} reaches {@code atLeast}; fails after 30 s (a bound, not a timing assertion). */
    private static void await(LongSupplier value, long atLeast) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (value.getAsLong() < atLeast) {
            assertThat(System.nanoTime()).as("a counter to reach %d", atLeast).isLessThan(end);
            Thread.sleep(1);
        }
    }
}

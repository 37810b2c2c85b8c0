package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.Descriptor;
import java.nio.ByteBuffer;

/**
 * RDMA Writes with immediate data into the peer's region (the demo target through the gateway, or
 * {@link VitcpPeer} directly), each followed by a Send, more of them than either side has receives,
 * so credits must keep cycling.
 */
final class WriteWithImmediateChecks {
    static final int ROUNDS = 20;
    static final int WRITE = 1000;

    private WriteWithImmediateChecks() {
    }

    /**
     * Default echo: a WRITE WITH IMMEDIATE consumes one of the peer's receives and is not answered; the
     * Send after it is echoed into the very receive that was next in line (not one spent on an answer
     * to the write).
     */
    static void writesAreNotAnswered(ViClient c) throws InterruptedException {
        run(c, false);
    }

    /** echo-ack-writes: each WRITE WITH IMMEDIATE is answered by an empty Send with the same immediate. */
    static void writesAreAnswered(ViClient c) throws InterruptedException {
        run(c, true);
    }

    private static void run(ViClient c, boolean answered) throws InterruptedException {
        ByteBuffer q = c.controlOk(Control.QUERY_REGION, null);
        long va = q.getLong(Control.HEADER);
        int handle = q.getInt(Control.HEADER + 8);
        long before = c.controlOk(Control.STATS, null).getLong(Control.HEADER);
        Control.fillPattern(c.sendMr.buffer(), 0, WRITE, 3);
        ByteBuffer rb = c.recvMr.buffer();
        for (int i = 0; i < ROUNDS; i++) {
            c.vi.postSend(Descriptor.rdmaWrite(va + 8192, handle).data(c.sendMr, 0, WRITE).immediate(0x7000 + i));
            assertThat(c.awaitSend().status()).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
            if (answered) {
                Descriptor ack = c.awaitReceive();
                assertThat(ack.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
                assertThat(ack.length()).isZero();
                assertThat(ack.immediateData()).isEqualTo(0x7000 + i);
                c.repost(ack);
            }
            // then a Send (pattern seed i: its first byte is 0, never control): its echo is the next receive
            int size = 100 + i;
            int at = c.slot;
            Control.fillPattern(c.sendMr.buffer(), at, size, i);
            int slot = c.nextRecvSlot();
            c.vi.postSend(Descriptor.send().data(c.sendMr, at, size).immediate(0x9000 + i));
            c.awaitSend();
            Descriptor echo = c.awaitReceive();
            assertThat(echo).as("the receive that was next in line").isSameAs(c.recvs[slot]);
            assertThat(echo.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
            assertThat(echo.length()).as("echo of Send %d", i).isEqualTo(size);
            assertThat(echo.immediateData()).isEqualTo(0x9000 + i);
            assertThat(Control.crc32c(rb, slot * c.slot, size)).isEqualTo(Control.patternCrc(i, size));
            c.repost(echo);
        }
        ByteBuffer ck = c.controlOk(Control.CHECKSUM_REGION, ByteBuffer.allocate(8).putInt(0, 8192).putInt(4, WRITE));
        assertThat(ck.getInt(Control.HEADER)).isEqualTo(Control.patternCrc(3, WRITE));
        // every write and every Send arrived and was counted (the mseq / credit sequences stayed in step)
        assertThat(c.controlOk(Control.STATS, null).getLong(Control.HEADER) - before).isEqualTo(2L * ROUNDS);
        assertThat(c.vi.recvDone()).as("nothing else arrived").isNull();
    }
}

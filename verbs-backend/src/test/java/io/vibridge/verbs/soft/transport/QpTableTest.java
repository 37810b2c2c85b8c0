package io.vibridge.verbs.soft.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.QpState;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.port.PacketPort;
import io.vibridge.verbs.soft.port.SoftCounters;
import io.vibridge.verbs.soft.port.Transmittable;
import io.vibridge.verbs.soft.port.TxBatch;
import io.vibridge.verbs.soft.resource.KeyTable;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/** QP numbers handed out, found and given back, without a socket (a port that is never asked to send). */
class QpTableTest {
    private static final PacketPort PORT = new PacketPort() {
        private final SoftCounters counters = new SoftCounters();

        @Override
        public InetAddress address() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public int udpPort() {
            return 4791;
        }

        @Override
        public int maxPathMtu() {
            return 4096;
        }

        @Override
        public SoftCounters counters() {
            return counters;
        }

        @Override
        public ScheduledThreadPoolExecutor timers() {
            throw new AssertionError("no timer expected");
        }

        @Override
        public Executor events() {
            return Runnable::run;
        }

        @Override
        public TxBatch openBatch(InetSocketAddress to, int toIp) {
            throw new AssertionError("nothing is sent");
        }

        @Override
        public void closeBatch(TxBatch b) {
            throw new AssertionError("nothing is sent");
        }

        @Override
        public void transmit(ByteBuffer pkt, int total, InetSocketAddress to, int toIp) {
            throw new AssertionError("nothing is sent");
        }

        @Override
        public void scheduleTransmit(Transmittable source) {
            throw new AssertionError("nothing is sent");
        }

        @Override
        public boolean acksMayWait() {
            return false;
        }

        @Override
        public void ackWaits(AckSender qp) {
            throw new UnsupportedOperationException();
        }
    };
    private final SoftCompletionQueue cq = new SoftCompletionQueue(Runnable::run, 16);

    private RcQueuePair create(QpTable t) {
        return t.create(null, cq, cq, 4, 4);
    }

    @Test
    void numbersStartAtTheFirstQpnAndAreFoundUntilClosed() {
        QpTable t = new QpTable(PORT, new KeyTable(), 16, 8, 128, 64);
        Set<Integer> numbers = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            RcQueuePair qp = create(t);
            assertThat(qp.qpNum()).isBetween(16, 23);
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            assertThat(t.get(qp.qpNum())).isSameAs(qp);
            numbers.add(qp.qpNum());
        }
        assertThat(numbers).hasSize(8);
        assertThatThrownBy(() -> create(t)).isInstanceOf(VerbsException.class).hasMessage("out of QPs");

        RcQueuePair qp = t.get(20);
        qp.close();
        assertThat(t.get(20)).isNull();
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(create(t).qpNum()).isEqualTo(20);                    // the one free number
    }

    @Test
    void numbersOutsideTheTableFindNothing() {
        QpTable t = new QpTable(PORT, new KeyTable(), 16, 4, 128, 64);
        create(t);
        assertThat(t.get(0)).isNull();
        assertThat(t.get(1)).isNull();
        assertThat(t.get(15)).isNull();
        assertThat(t.get(20)).isNull();
        assertThat(t.get(-1)).isNull();
    }

    @Test
    void errorAllMovesEveryQpToError() {
        QpTable t = new QpTable(PORT, new KeyTable(), 16, 4, 128, 64);
        RcQueuePair a = create(t);
        RcQueuePair b = create(t);
        t.errorAll();
        assertThat(a.state()).isEqualTo(QpState.ERROR);
        assertThat(b.state()).isEqualTo(QpState.ERROR);
    }
}

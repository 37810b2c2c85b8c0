package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.ReadResponder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * IBA 9.5 through the gateway: what the target issued reaches the front end in the order it was
 * issued, whether it came as a SEND (a receive completion) or as RDMA through the cut-through handler.
 */
class TargetOrderTest {
    private final List<String> posted = new ArrayList<>();
    private boolean up = true;
    private final CutThrough cut = new CutThrough(() -> { });
    private final TargetOrder order = new TargetOrder(cut, new TargetOrder.Client() {
        @Override
        public boolean up() {
            return up;
        }

        @Override
        public void forward(TargetOp op) {
            switch (op) {
                case TargetOp.Rdma r -> posted.add("write@" + Long.toHexString(r.remoteAddress()));
                case TargetOp.Send s -> posted.add("send@" + s.slot());
            }
        }
    });

    {
        order.accept();
    }

    private void targetWrite(long va) {
        assertThat(cut.onWrite(va, 7, ByteBuffer.wrap(new byte[8]), true, true, false, 0)).isTrue();
    }

    /** What the provider's receive thread does when it queues a target SEND's completion. */
    private void targetSendQueued() {
        cut.onReceiveQueued();
    }

    /** What the connection does when it polls that completion: order first, then the SEND goes to the engine. */
    private void sendPolled(String name) {
        order.beforeTargetMessage();
        posted.add(name);
    }

    @Test
    void rdmaIssuedBeforeAnySendGoesAtOnce() {
        targetWrite(0xA);
        order.forward();
        assertThat(posted).containsExactly("write@a");
        assertThat(order.queued()).isZero();
    }

    @Test
    void rdmaIssuedAfterASendWaitsUntilThatSendWasPosted() {
        targetWrite(0xA);
        targetSendQueued();
        targetWrite(0xB);
        targetWrite(0xC);
        order.forward(); // woken by the handler before the CQ was polled
        assertThat(posted).containsExactly("write@a");
        assertThat(order.queued()).isEqualTo(2);

        sendPolled("send1");
        order.forward(); // after the completions were polled
        assertThat(posted).containsExactly("write@a", "send1", "write@b", "write@c");
    }

    @Test
    void interleavedSendsAndWritesKeepTheirOrderWhenTheCompletionsArePolledLate() {
        targetSendQueued();
        targetWrite(1);
        targetSendQueued();
        targetWrite(2);
        targetSendQueued();
        order.forward();
        assertThat(posted).isEmpty();
        sendPolled("s1");
        sendPolled("s2");
        sendPolled("s3");
        order.forward();
        assertThat(posted).containsExactly("s1", "write@1", "s2", "write@2", "s3");
    }

    @Test
    void onceTheClientIsGoneQueuedOperationsFailAndTheirCopiesAreReleased() {
        targetSendQueued();
        targetWrite(1);
        List<String> reads = new ArrayList<>();
        cut.onRead(0x10, 7, 64, new ReadResponder() {
            @Override
            public void complete(ByteBuffer data) {
                reads.add("complete");
            }

            @Override
            public void fail() {
                reads.add("fail");
            }
        });
        assertThat(order.held()).isEqualTo(8);
        up = false;
        order.forward();
        assertThat(posted).isEmpty();
        assertThat(order.queued()).isZero();
        assertThat(order.held()).isZero();
        assertThat(reads).containsExactly("fail");
    }

    @Test
    void closingFailsWhatIsQueuedAndDropsWhatArrivesLater() {
        targetSendQueued();
        targetWrite(1);
        order.close();
        assertThat(order.queued()).isZero();
        assertThat(order.held()).isZero();
        targetWrite(2); // accepted and dropped, so the target is not held in retransmission
        assertThat(order.queued()).isZero();
    }

    @Test
    void withoutInterceptionThereIsNothingToOrder() {
        TargetOrder none = new TargetOrder(null, null);
        none.beforeTargetMessage();
        none.forward();
        none.maxRead(1);
        none.close();
        assertThat(none.queued()).isZero();
        assertThat(none.held()).isZero();
    }

    @Test
    void whatTheTargetIssuedBeforeTheClientWasAcceptedWaitsThenGoesInOrder() {
        TargetOrder early = new TargetOrder(cut, new TargetOrder.Client() {
            @Override
            public boolean up() {
                return true;
            }

            @Override
            public void forward(TargetOp op) {
                posted.add(op instanceof TargetOp.Send s ? "send@" + s.slot() : "rdma");
            }
        });
        targetWrite(0xA);
        targetSendQueued();
        early.forward();
        early.beforeTargetMessage();
        early.targetMessage(new TargetOp.Send(3, 0, 8));
        assertThat(posted).isEmpty();
        early.accept();
        assertThat(posted).containsExactly("rdma", "send@3");
        early.targetMessage(new TargetOp.Send(4, 0, 8));
        assertThat(posted).containsExactly("rdma", "send@3", "send@4");
    }
}

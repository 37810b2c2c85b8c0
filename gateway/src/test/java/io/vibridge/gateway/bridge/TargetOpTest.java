package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.ReadResponder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Target RDMA as the front ends see it: a READ split into parts is answered once, a WRITE's copy is released once. */
class TargetOpTest {
    private final List<String> answers = new ArrayList<>();
    private ByteBuffer answered;
    private final ReadResponder responder = new ReadResponder() {
        @Override
        public void complete(ByteBuffer data) {
            answers.add("complete");
            answered = data;
        }

        @Override
        public void fail() {
            answers.add("fail");
        }
    };

    @Test
    void aSplitReadIsAnsweredOnceWithEveryPartInPlace() {
        TargetOp.Read[] parts = TargetOp.Read.split(0x1000, 9, 10, 4, responder, 0);
        assertThat(parts).extracting(TargetOp.Rdma::remoteAddress).containsExactly(0x1000L, 0x1004L, 0x1008L);
        assertThat(parts).extracting(TargetOp.Rdma::length).containsExactly(4, 4, 2);
        // parts answered out of order, each placed at its own offset
        parts[2].place(0, ByteBuffer.wrap(new byte[] {8, 9}), 0, 2);
        parts[2].finish(true);
        parts[0].place(0, ByteBuffer.wrap(new byte[] {0, 1, 2, 3}), 0, 4);
        parts[0].finish(true);
        assertThat(answers).isEmpty();
        parts[1].place(2, ByteBuffer.wrap(new byte[] {-1, 6, 7}), 1, 2); // second half first
        parts[1].place(0, ByteBuffer.wrap(new byte[] {4, 5}), 0, 2);
        parts[1].finish(true);
        parts[1].finish(true); // a second end does nothing
        assertThat(answers).containsExactly("complete");
        byte[] got = new byte[answered.remaining()];
        answered.get(got);
        assertThat(got).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    }

    @Test
    void oneFailedPartFailsTheReadOnce() {
        TargetOp.Read[] parts = TargetOp.Read.split(0, 9, 8, 4, responder, 0);
        parts[0].finish(false);
        parts[1].finish(true);
        assertThat(answers).containsExactly("fail");
    }

    @Test
    void aWholeReadAnswersWhatWasPlaced() {
        TargetOp.Read read = new TargetOp.Read(0, 9, 3, responder, 0);
        read.place(0, ByteBuffer.wrap(new byte[] {1, 2, 3}), 0, 3);
        read.finish(true);
        assertThat(answers).containsExactly("complete");
        assertThat(answered.remaining()).isEqualTo(3);
    }

    @Test
    void aWriteReleasesItsCopyFromTheBudgetOnce() {
        CutThrough cut = new CutThrough(() -> { });
        assertThat(cut.onWrite(0x20, 5, ByteBuffer.wrap(new byte[] {1, 2, 3}), true, true, true, 77)).isTrue();
        TargetOp.Write w = (TargetOp.Write) cut.queue.poll();
        assertThat(cut.held()).isEqualTo(3);
        assertThat(w.hasImmediate()).isTrue();
        assertThat(w.immediate()).isEqualTo(77);
        assertThat(w.data()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        w.finish(true);
        w.finish(false);
        assertThat(cut.held()).isZero();
    }
}

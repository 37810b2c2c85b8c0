package io.vibridge.bench.cm;

import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The FlowC 0 per-message work (CM-MAPPING §4): the 16-byte header written ahead of every Send, checked
 * and read on every receive, and a whole send-plus-receive with both ends' credit ledgers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FlowControlBench {

    static final int MESSAGE = 1040;
    static final int BUFS = 64;

    private final ByteBuffer out = ByteBuffer.allocateDirect(MESSAGE);
    private final ByteBuffer received = ByteBuffer.allocateDirect(MESSAGE);
    private final ByteBuffer msg = ByteBuffer.allocateDirect(MESSAGE);
    private FlowCredits a;
    private FlowCredits b;
    private int mseq;

    @Setup
    public void setup() {
        FlowControlHeader.write(received, 0, 0, BUFS, MESSAGE, 5, 4);
        a = new FlowCredits(BUFS, BUFS);
        b = new FlowCredits(BUFS, BUFS);
    }

    @Benchmark
    public void headerWrite() {
        FlowControlHeader.write(out, 0, 0, BUFS, MESSAGE, mseq++, 4);
    }

    /** What a receiver does before it delivers: validate, then bufs, mseq and mseqAck for the ledger. */
    @Benchmark
    public void headerRead(Blackhole bh) {
        FlowControlHeader.validate(received, 0, MESSAGE);
        bh.consume(FlowControlHeader.readBufs(received, 0));
        bh.consume(FlowControlHeader.readMseq(received, 0));
        bh.consume(FlowControlHeader.readMseqAck(received, 0));
    }

    /** One data message a to b and b's header-only reply: headers and both ledgers (CodecBench's figure). */
    @Benchmark
    public int sendAndReceive() {
        int m = a.onSend(BUFS);
        FlowControlHeader.write(msg, 0, 0, BUFS, MESSAGE, m, a.mseqAck());
        FlowControlHeader.validate(msg, 0, MESSAGE);
        b.onReceive(FlowControlHeader.readBufs(msg, 0), FlowControlHeader.readMseq(msg, 0),
                FlowControlHeader.readMseqAck(msg, 0));
        int ack = b.onSend(BUFS);
        FlowControlHeader.write(msg, 0, 0, BUFS, FlowControlHeader.LENGTH, ack, b.mseqAck());
        a.onReceive(BUFS, ack, b.mseqAck());
        return a.credits();
    }
}

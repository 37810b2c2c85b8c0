package io.vibridge.bench.vitcp;

import io.vibridge.vitcp.wire.RdmaHeader;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
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
 * The VI/TCP per-segment codecs: the 24-byte Segment Header written for every outgoing segment, its
 * fields read back, and {@link SegmentView}'s validation of every received segment (VITCP-PROFILE §2-5),
 * for a Send and an RDMA Write data segment of 1 KiB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SegmentCodecBench {

    static final int PAYLOAD = 1024;
    static final int SEND_LENGTH = SegmentHeader.LENGTH + PAYLOAD;
    static final int WRITE_LENGTH = SegmentHeader.LENGTH + RdmaHeader.LENGTH + PAYLOAD;

    private final ByteBuffer out = ByteBuffer.allocateDirect(SEND_LENGTH);
    private final ByteBuffer send = ByteBuffer.allocateDirect(SEND_LENGTH);
    private final ByteBuffer write = ByteBuffer.allocateDirect(WRITE_LENGTH);
    private final SegmentView view = new SegmentView();
    private int messageNumber;

    @Setup
    public void setup() {
        SegmentHeader.write(send, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, SEND_LENGTH, 0, 0, 7, 6,
                64, 0, 0);
        SegmentHeader.write(write, 0, SegmentType.RDMA_WRITE,
                SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE, WRITE_LENGTH, 0, 0x1234, 8, 6, 64,
                0, 0);
        RdmaHeader.write(write, SegmentHeader.LENGTH, 0x10_0000L, 0x42, PAYLOAD);
    }

    /** What the engine writes ahead of each outgoing data segment. */
    @Benchmark
    public void headerWrite() {
        SegmentHeader.write(out, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, SEND_LENGTH, 0, 0,
                messageNumber++, 6, 64, 0, 0);
    }

    /** The fields a receiver acts on: type, flags, length, message number, ACK, posted receives. */
    @Benchmark
    public void headerRead(Blackhole bh) {
        bh.consume(SegmentHeader.typeCode(send, 0));
        bh.consume(SegmentHeader.flags(send, 0));
        bh.consume(SegmentHeader.segmentLength(send, 0));
        bh.consume(SegmentHeader.messageNumber(send, 0));
        bh.consume(SegmentHeader.messageAck(send, 0));
        bh.consume(SegmentHeader.rxDescriptorsPosted(send, 0));
    }

    /** The stream reader's first look at a segment: Version, Type and Segment Length from 4 bytes. */
    @Benchmark
    public int frameLength() {
        return SegmentView.frameLength(send, 0, SEND_LENGTH);
    }

    @Benchmark
    public int validateSend() {
        return view.wrap(send, 0, SEND_LENGTH).payloadLength();
    }

    @Benchmark
    public int validateRdmaWrite() {
        return view.wrap(write, 0, WRITE_LENGTH).payloadLength();
    }
}

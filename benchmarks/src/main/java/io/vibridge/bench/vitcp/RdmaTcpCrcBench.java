package io.vibridge.bench.vitcp;

import io.vibridge.vitcp.rdmatcp.RdmaTcpCrc;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The seed-004 CRC-32 of one RDMA/TCP segment (VITCP-PROFILE §8), paid once on send and once on
 * receive over every byte: {@link RdmaTcpCrc} as the engine calls it, its table-driven slice-by-8 path
 * alone, and the JDK's intrinsified {@code CRC32} (Ethernet, the polynomial ours is the reciprocal of)
 * and {@code CRC32C} for reference, over a direct buffer of {@code -p length=N} bytes. Bytes per
 * nanosecond = GB/s: {@code length / score}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--add-modules=jdk.incubator.vector")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RdmaTcpCrcBench {

    /** Segment bytes covered: a 1 KiB segment, a jumbo-frame-sized one, the largest (64 KiB). */
    @Param({"1024", "9000", "65536"})
    public int length;

    /** The segment, random bytes. */
    ByteBuffer segment;
    /** The same bytes for the JDK's checksums, which consume a buffer's remaining bytes. */
    private ByteBuffer view;
    private final CRC32 crc32 = new CRC32();
    private final CRC32C crc32c = new CRC32C();

    @Setup
    public void setup() {
        byte[] bytes = new byte[length];
        new Random(4).nextBytes(bytes);
        segment = ByteBuffer.allocateDirect(length).put(0, bytes);
        view = segment.duplicate();
    }

    /** What the engine pays per segment: the reciprocal path from 256 bytes, the tables below. */
    @Benchmark
    public int rdmaTcpCrc() {
        return RdmaTcpCrc.of(segment, 0, length);
    }

    /** The table-driven slice-by-8 alone (the class's first version ran the same algorithm, untuned). */
    @Benchmark
    public int sliceBy8() {
        return RdmaTcpCrc.finish(RdmaTcpCrc.updateSliceBy8(RdmaTcpCrc.start(), segment, 0, length));
    }

    /** java.util.zip.CRC32 (carry-less multiplication): what the Ethernet polynomial costs. */
    @Benchmark
    public long crc32() {
        crc32.reset();
        crc32.update(view.clear());
        return crc32.getValue();
    }

    /** java.util.zip.CRC32C, for reference. */
    @Benchmark
    public long crc32c() {
        crc32c.reset();
        crc32c.update(view.clear());
        return crc32c.getValue();
    }
}

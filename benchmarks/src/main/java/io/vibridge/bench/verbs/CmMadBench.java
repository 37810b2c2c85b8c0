package io.vibridge.bench.verbs;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.verbs.soft.wire.CmCodec;
import io.vibridge.verbs.soft.wire.CmMessage;
import io.vibridge.verbs.soft.wire.CmPath;
import io.vibridge.verbs.soft.wire.CmReq;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Mad;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** A CM REQ MAD (IB-WIRE-REFERENCE §5.3) encoded and decoded, once per connection setup (WireBench's figure). */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CmMadBench {

    private final ByteBuffer mad = ByteBuffer.allocate(Mad.LENGTH);
    private final CmReq req = request();

    /** The worked REQ of the wire tests (verbs-backend CmCodecTest), with a CMA header as private data. */
    static CmReq request() {
        InetAddress src = InetAddress.ofLiteral("192.168.1.10");
        InetAddress dst = InetAddress.ofLiteral("192.168.1.20");
        CmPath path = CmPath.roce(Gid.ofIpv4(0xC0A8_010A), Gid.ofIpv4(0xC0A8_0114), 0, 64, 19);
        return CmReq.rc(0x0123_4567, 0x0000_0000_0106_4E20L, 0x5054_00FF_FE00_00AAL, 0x11, 0xABCDEF, 4, 4, 20, 20, 7,
                7, 3, 15, path, new CmaHeader(40000, src, dst).toPrivateData(new byte[0]));
    }

    @Benchmark
    public CmMessage encodeDecodeReq() {
        CmCodec.encodeMad(req, 1, 0, mad, 0);
        return CmCodec.decodeMad(mad, 0).message();
    }
}

package io.vibridge.bench.cm;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.hello.HelloReply;
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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** The per-connection CM-MAPPING codecs: Hello, Hello Reply and the CMA private-data header. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HelloCodecBench {

    private Hello hello;
    private ByteBuffer helloOut;
    private ByteBuffer helloBytes;
    private ByteBuffer replyBytes;
    private ByteBuffer cmaBytes;

    @Setup
    public void setup() {
        InetAddress src = InetAddress.ofLiteral("192.168.1.10");
        InetAddress dst = InetAddress.ofLiteral("192.168.1.20");
        hello = Hello.of(64, FlowControl.TRANSPORT, 65536, 65536, 40000, src, dst);
        helloOut = ByteBuffer.allocateDirect(Hello.LENGTH);
        helloBytes = ByteBuffer.wrap(hello.toBytes());
        replyBytes = ByteBuffer.wrap(HelloReply.of(64, 65536).toBytes());
        cmaBytes = ByteBuffer.wrap(new CmaHeader(40000, src, dst).toPrivateData(new byte[0]));
    }

    @Benchmark
    public int helloEncode() {
        hello.encode(helloOut.clear());
        return helloOut.position();
    }

    @Benchmark
    public Hello helloDecode() {
        return Hello.decode(helloBytes.clear());
    }

    @Benchmark
    public HelloReply helloReplyDecode() {
        return HelloReply.decode(replyBytes.clear());
    }

    @Benchmark
    public CmaHeader cmaHeaderDecode() {
        return CmaHeader.decode(cmaBytes.clear());
    }
}

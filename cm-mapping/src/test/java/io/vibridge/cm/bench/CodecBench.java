package io.vibridge.cm.bench;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.route.RouteParameters;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.cm.route.Routes;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Rough single-threaded costs of the codecs (not a test; no assertions). Run after
 * {@code ./mvnw -B -ntp -o -q -pl cm-mapping verify} with
 * {@code java -cp cm-mapping/target/classes:cm-mapping/target/test-classes io.vibridge.cm.bench.CodecBench}.
 * Plain nanoTime loops after warm-up: figures are indicative (shared machine), use them to compare.
 */
public final class CodecBench {

    private static long sink;

    private CodecBench() {
    }

    interface Op {
        void run(int i);
    }

    private static void measure(String name, int iterations, Op op) {
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < iterations; i++) {
                op.run(i);
            }
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                op.run(i);
            }
            best = Math.min(best, System.nanoTime() - t0);
        }
        System.out.printf("%-44s %8.1f ns/op%n", name, (double) best / iterations);
    }

    public static void main(String[] args) {
        InetAddress src = InetAddress.ofLiteral("192.168.1.10");
        InetAddress dst = InetAddress.ofLiteral("192.168.1.20");
        Hello hello = Hello.of(64, FlowControl.TRANSPORT, 65536, 65536, 40000, src, dst);
        ByteBuffer helloBuf = ByteBuffer.allocateDirect(Hello.LENGTH);
        ByteBuffer helloBytes = ByteBuffer.wrap(hello.toBytes());
        ByteBuffer replyBytes = ByteBuffer.wrap(HelloReply.of(64, 65536).toBytes());
        ByteBuffer cmaBytes = ByteBuffer.wrap(new CmaHeader(40000, src, dst).toPrivateData(new byte[0]));
        ByteBuffer msg = ByteBuffer.allocateDirect(1040);

        measure("Hello.encode (direct buffer)", 1_000_000, i -> {
            helloBuf.clear();
            hello.encode(helloBuf);
        });
        measure("Hello.decode", 1_000_000, i -> sink += Hello.decode(helloBytes.clear()).bufs());
        measure("HelloReply.decode", 1_000_000, i -> sink += HelloReply.decode(replyBytes.clear()).bufs());
        measure("CmaHeader.decode", 1_000_000, i -> sink += CmaHeader.decode(cmaBytes.clear()).sourcePort());

        FlowCredits a = new FlowCredits(64, 64);
        FlowCredits b = new FlowCredits(64, 64);
        measure("FlowC 0 send+receive (header + credits)", 5_000_000, i -> {
            int mseq = a.onSend(64);
            FlowControlHeader.write(msg, 0, 0, 64, 1040, mseq, a.mseqAck());
            FlowControlHeader.validate(msg, 0, 1040);
            b.onReceive(FlowControlHeader.readBufs(msg, 0), FlowControlHeader.readMseq(msg, 0),
                    FlowControlHeader.readMseqAck(msg, 0));
            int ack = b.onSend(64);
            FlowControlHeader.write(msg, 0, 0, 64, 16, ack, b.mseqAck());
            a.onReceive(64, ack, b.mseqAck());
        });

        Routes.Builder builder = Routes.builder();
        for (int r = 0; r < 1000; r++) {
            RouteTarget t = new RouteTarget(dst, 1 + r, RouteParameters.DEFAULTS);
            builder.exact("service-" + r, t).prefix("tenant-" + r + "/", t);
        }
        Routes routes = builder.directRoutes(RouteParameters.DEFAULTS).build();
        byte[][] called = {
            "service-500".getBytes(StandardCharsets.UTF_8),
            "tenant-999/volume-7".getBytes(StandardCharsets.UTF_8),
            "10.0.0.1:4420".getBytes(StandardCharsets.UTF_8),
        };
        measure("Routes.lookup exact (1000+1000 routes)", 1_000_000, i -> sink += routes.lookup(called[0]).isPresent() ? 1 : 0);
        measure("Routes.lookup prefix (1000 prefixes)", 20_000, i -> sink += routes.lookup(called[1]).isPresent() ? 1 : 0);
        measure("Routes.lookup direct host:port", 20_000, i -> sink += routes.lookup(called[2]).isPresent() ? 1 : 0);
        System.out.println("(sink " + sink + ")");
    }
}

package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The proof that out of memory is not reachable from the network: {@code vibridge gateway} in a JVM of its own with
 * a 96 MiB heap ({@code -XX:+ExitOnOutOfMemoryError}, as the image runs it) and the demo route's settings, under
 * 3,000 connections that each send a 24-byte Connect Request header claiming 65,535 bytes and nothing more. Buffers
 * sized by the length claimed would need some 200 MB, twice the heap; a healthy client keeps pinging through the
 * gateway meanwhile and after. Once with the default pending bounds (most are closed at accept) and once with the
 * bounds lifted so that all 3,000 are held (the readers alone must keep each at what it sent).
 */
class SmallHeapFloodTest {
    static final int FLOOD = 3000;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "default pending bounds, ''",
        "pending bounds lifted, 'limits { max-pending = 100000, max-pending-per-client = 100000 }'"})
    void aSmallHeapGatewaySurvivesAFloodOfHeadersClaimingTheMaximum(String name, String limits, @TempDir Path dir)
            throws Exception {
        Path conf = dir.resolve("gateway.conf");
        Files.writeString(conf, """
                vibridge.gateway {
                  listen { host = "127.0.0.1", port = 0, rdmatcp-port = off }
                  admin { host = "127.0.0.1", port = 0 }
                  infiniband { provider = soft, address = "127.0.0.232" }
                  routes = [ { match = "demo", target = "127.0.0.231", port = 5000, flowc = 0, receive-size = 65552 } ]
                  %s
                }
                """.formatted(limits));
        Process gateway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+ExitOnOutOfMemoryError", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.vibridge.gateway.cli.Main", "gateway", "--config", conf.toString())
                .redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                    StandardCharsets.UTF_8))) {
                r.lines().forEach(lines::add);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        List<SocketChannel> flood = new ArrayList<>();
        try (EchoTarget target = new EchoTarget("127.0.0.231", 5000, 8, 65552); ViNic nic = TestSupport.clientNic()) {
            int port = awaitPort(lines);
            TestSupport.Client good = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 8);
            good.connect(port, "demo");
            AtomicInteger pings = new AtomicInteger();
            AtomicReference<Throwable> pingFailure = new AtomicReference<>();
            Thread pinger = Thread.ofPlatform().start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        ping(good);
                        pings.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Throwable e) {
                    pingFailure.set(e);
                }
            });

            ByteBuffer header = ByteBuffer.allocate(SegmentHeader.LENGTH);
            SegmentHeader.write(header, 0, SegmentType.CONNECT_REQUEST, 0, SegmentHeader.MAX_SEGMENT_LENGTH, 0, 0, 1, 0,
                    0, 0, 0);
            for (int i = 0; i < FLOOD; i++) {
                SocketChannel ch = SocketChannel.open();
                flood.add(ch);
                ch.bind(new InetSocketAddress("127.0.30." + (1 + i % 64), 0));
                ch.connect(new InetSocketAddress("127.0.0.1", port));
                try {
                    ch.write(header.clear());
                } catch (IOException e) {
                    // closed at accept (a pending bound): refused, not a failure
                }
                assertThat(gateway.isAlive()).as("the gateway JVM after %d connections", i + 1).isTrue();
            }
            int before = pings.get();
            EndToEndTest.awaitTrue(() -> pings.get() >= before + 20 || pingFailure.get() != null);
            pinger.interrupt();
            pinger.join();
            assertThat(pingFailure.get()).as("the healthy client's pings").isNull();
            assertThat(gateway.isAlive()).as("the gateway JVM").isTrue();
            assertThat(lines).noneMatch(l -> l.contains("OutOfMemoryError"));
            // a new client gets through, the flood still open: at once with the bounds lifted; with the default
            // bounds once the setup timeout (vi.incoming-timeout, 10 s) has closed the pending ones (64 addresses
            // fill the gateway's bound: new connections are closed at accept until then)
            TestSupport.Client late = connectWithin(nic, port, T);
            ping(late);
            late.close();
            good.close();
        } finally {
            for (SocketChannel ch : flood) {
                ch.close();
            }
            gateway.destroy();
            if (!gateway.waitFor(30, TimeUnit.SECONDS)) {
                gateway.destroyForcibly();
            }
        }
    }

    private static TestSupport.Client connectWithin(ViNic nic, int port, Duration within)
            throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (true) {
            TestSupport.Client c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 1);
            try {
                c.connect(port, "demo");
                return c;
            } catch (ViException e) {
                c.close();
                if (System.nanoTime() > end) {
                    throw e;
                }
                Thread.sleep(200); // closed at accept: the pending bound is full
            }
        }
    }

    private static void ping(TestSupport.Client c) throws InterruptedException {
        c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), 64));
        assertThat(c.vi.sendWait(T).isError()).isFalse();
        assertThat(c.vi.recvWait(T).isError()).isFalse();
        c.vi.postRecv(Descriptor.receive().data(c.mr, 0, 65536));
    }

    private static int awaitPort(BlockingQueue<String> lines) throws InterruptedException {
        Pattern p = Pattern.compile("vibridge gateway: VI/TCP on 127\\.0\\.0\\.1:(\\d+)");
        while (true) {
            String line = lines.poll(60, TimeUnit.SECONDS);
            assertThat(line).as("the gateway's start line").isNotNull();
            Matcher m = p.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
    }
}

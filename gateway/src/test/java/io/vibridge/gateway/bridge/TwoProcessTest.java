package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway ({@code vibridge gateway}) and the demo target ({@code vibridge target}) in separate
 * JVMs, the client in this one: echo both ways, RDMA Write and Read through the gateway, then
 * SIGTERM: the gateway drains the open connection and exits 0.
 */
class TwoProcessTest {

    private static Process java(List<String> args, BlockingQueue<String> lines) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Xmx256m");
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (Exception ignored) {
                // process ended
            }
        });
        return p;
    }

    private static Matcher await(BlockingQueue<String> lines, Pattern p) throws InterruptedException {
        long end = System.nanoTime() + T.toNanos() * 2;
        while (System.nanoTime() < end) {
            String l = lines.poll(1, TimeUnit.SECONDS);
            if (l == null) {
                continue;
            }
            System.out.println("| " + l);
            Matcher m = p.matcher(l);
            if (m.find()) {
                return m;
            }
        }
        throw new AssertionError("no line matching " + p);
    }

    @Test
    void gatewayAndTargetInSeparateProcesses(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("gateway.conf");
        Files.writeString(conf, """
                vibridge.gateway {
                  listen { host = "127.0.0.1", port = 0, rdmatcp-port = 0 }
                  admin { host = "127.0.0.1", port = 0 }
                  infiniband { provider = soft, address = "127.0.0.78" }
                  staging { max-slots = 128 }
                  shutdown-grace = 5s
                  routes = [ { match = "demo", target = "127.0.0.77", port = 5000, flowc = 0,
                               receive-size = 65552, receive-buffers = 8 } ]
                }
                """);
        BlockingQueue<String> tl = new LinkedBlockingQueue<>();
        BlockingQueue<String> gl = new LinkedBlockingQueue<>();
        Process target = java(List.of("io.vibridge.gateway.cli.Main", "target", "--address", "127.0.0.77",
                "--provider", "soft", "--port", "5000", "--mode", "echo"), tl);
        Process gateway = null;
        try {
            Matcher t = await(tl, Pattern.compile("region address 0x([0-9a-f]+) rkey 0x([0-9a-f]+)"));
            long region = Long.parseUnsignedLong(t.group(1), 16);
            int rkey = Integer.parseUnsignedInt(t.group(2), 16);
            gateway = java(List.of("io.vibridge.gateway.cli.Main", "gateway", "--config", conf.toString()), gl);
            int port = Integer.parseInt(await(gl, Pattern.compile("VI/TCP on [0-9.]+:(\\d+)")).group(1));
            try (ViNic nic = TestSupport.clientNic();
                    var c = new TestSupport.Client(nic, ReliabilityLevel.RELIABLE_DELIVERY, true, 8)) {
                c.connect(port, "demo");
                for (int i = 0; i < 20; i++) {
                    int size = 1 + i * 3000;
                    TestSupport.fill(c.mr, c.sendArea(0), size, i);
                    long crc = TestSupport.crc(c.mr.buffer(), c.sendArea(0), size);
                    c.vi.postSend(Descriptor.send().data(c.mr, c.sendArea(0), size));
                    assertThat(c.vi.sendWait(T).isError()).isFalse();
                    Descriptor rx = c.vi.recvWait(T);
                    assertThat(rx.isError()).isFalse();
                    int at = (i % c.recvs) * 65536;
                    assertThat(TestSupport.crc(c.mr.buffer(), at, size)).isEqualTo(crc);
                    c.vi.postRecv(Descriptor.receive().data(c.mr, at, 65536));
                }
                long addr = region + (1 << 20);
                TestSupport.fill(c.mr, c.sendArea(1), 50000, 99);
                c.vi.postSend(Descriptor.rdmaWrite(addr, rkey).data(c.mr, c.sendArea(1), 50000));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                c.vi.postSend(Descriptor.rdmaRead(addr, rkey).data(c.mr, c.sendArea(2), 50000));
                assertThat(c.vi.sendWait(T).isError()).isFalse();
                assertThat(TestSupport.crc(c.mr.buffer(), c.sendArea(2), 50000))
                        .isEqualTo(TestSupport.crc(c.mr.buffer(), c.sendArea(1), 50000));
                // SIGTERM with the connection open: drained, exit 0
                gateway.destroy();
                assertThat(gateway.waitFor(T.toSeconds() * 2, TimeUnit.SECONDS)).isTrue();
                assertThat(gateway.exitValue()).isZero();
                EndToEndTest.awaitTrue(() -> c.vi.state() != ViState.CONNECTED);
            }
        } finally {
            if (gateway != null) {
                gateway.destroyForcibly();
            }
            target.destroy();
            target.waitFor(10, TimeUnit.SECONDS);
            target.destroyForcibly();
        }
    }
}

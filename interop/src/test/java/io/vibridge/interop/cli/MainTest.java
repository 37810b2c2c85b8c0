package io.vibridge.interop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.interop.Main;
import io.vibridge.interop.support.Captured;
import io.vibridge.interop.support.LoopbackDevices;
import java.net.ServerSocket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The command line: options reach the programs, the RESULT line and the exit code say what happened. */
class MainTest {
    static final ExecutorService POOL = Executors.newCachedThreadPool();

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    record Run(int code, String out) {
        String result() {
            return out.lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b).orElse("(no RESULT line)");
        }
    }

    static Run main(String... args) {
        Captured c = new Captured();
        int code = Main.execute(c.out, c.out, args);
        return new Run(code, c.toString());
    }

    @Test
    void rping_serverAndClient_fromTheCommandLine() throws Exception {
        String server = LoopbackDevices.freeAddress();
        String client = LoopbackDevices.freeAddress();
        Future<Run> s = POOL.submit(() -> main("rping", "-s", "-a", server, "-p", "7175", "-C", "4", "-S", "100",
                "-V", "--timeout", "30"));
        Thread.sleep(300);                                // the server's device and listener first (REJ 8 otherwise)
        Run c = main("rping", "-c", "-a", server, "-I", client, "-p", "7175", "-C", "4", "-S", "100", "-V",
                "--cma-port", "40001", "--ack-timeout", "14", "--timeout", "30");
        Run sr = s.get(30, TimeUnit.SECONDS);
        assertThat(c.result()).as(c.out()).isEqualTo("RESULT rping-client PASS pings=4 size=100 validated=4 server="
                + server + " port=7175");
        assertThat(c.code()).isZero();
        assertThat(c.out()).contains("CMA header src " + client + " port 40001 dst " + server);
        assertThat(sr.result()).as(sr.out()).isEqualTo("RESULT rping-server PASS iterations=4 size=100 validated=4");
        assertThat(sr.code()).isZero();
    }

    @Test
    void pingpong_serverAndClient_fromTheCommandLine() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        String p = Integer.toString(port);
        String server = LoopbackDevices.freeAddress();
        String client = LoopbackDevices.freeAddress();
        Future<Run> s = POOL.submit(() -> main("pingpong", "--device", server, "--bind", "127.0.0.1", "-p", p, "-n",
                "30", "-s", "2000", "-m", "512", "--timeout", "30"));
        Run c = main("pingpong", "127.0.0.1", "--device", client, "-p", p, "-n", "30", "-s", "2000", "-m", "512",
                "-g", "1", "--timeout", "30");
        Run sr = s.get(30, TimeUnit.SECONDS);
        assertThat(c.result()).as(c.out()).startsWith("RESULT pingpong-client PASS iters=30 size=2000 mtu=512 ");
        assertThat(sr.result()).as(sr.out()).startsWith("RESULT pingpong-server PASS iters=30 size=2000 mtu=512 ");
        assertThat(c.code()).isZero();
        assertThat(sr.code()).isZero();
        assertThat(sr.out()).contains("GID ::ffff:" + client);
    }

    @Test
    void timeout_endsARunWhosePeerNeverAnswers() {
        long t0 = System.nanoTime();
        Run c = main("rping", "-c", "-a", LoopbackDevices.ABSENT, "--device", LoopbackDevices.freeAddress(),
                "--timeout", "2");
        assertThat(c.code()).isEqualTo(1);
        assertThat(c.result()).startsWith("RESULT rping-client FAIL timeout: ");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(10);
    }

    @Test
    void badOptions_areAFailWithTheReason() {
        assertThat(main().result()).startsWith("RESULT interop FAIL usage: a command is required");
        Run both = main("rping", "-s", "-c", "-a", "127.0.0.1");
        assertThat(both.code()).isEqualTo(1);
        assertThat(both.result()).isEqualTo("RESULT rping FAIL give exactly one of -s (server) and -c (client)");
        assertThat(main("rping", "-c", "--device", "127.0.0.1").result())
                .isEqualTo("RESULT rping-client FAIL the client needs -a ADDR, the server's address");
        assertThat(main("rping", "-s", "-a", "127.0.0.1", "-S", "10").result())
                .isEqualTo("RESULT rping-server FAIL Invalid size 10 (valid range is 26 to 65535)");
        assertThat(main("pingpong", "--device", "127.0.0.1", "-m", "1000").result())
                .startsWith("RESULT pingpong-server FAIL mtu (-m) must be 256, 512, 1024, 2048 or 4096");
        Run usage = main("vi-rping", "-C", "3");
        assertThat(usage.code()).isEqualTo(1);
        assertThat(usage.result()).startsWith("RESULT vi-rping FAIL usage: Missing required option: "
                + "'--discriminator=NAME'");
        assertThat(main("vi-rping", "--discriminator", "x", "--reliability", "ud").result())
                .isEqualTo("RESULT vi-rping FAIL --reliability must be delivery or reception, got 'ud'");
    }
}

package io.vibridge.interop.pingpong;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.interop.support.Captured;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.LoopbackDevices;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Our pingpong client against our pingpong server on loopback (agreement), with rc_pingpong's output lines.
 * {@link PingpongPsnOnTheWireTest} pins what goes on the wire against a hand-driven peer.
 */
class PingpongLoopbackTest {
    static final ExecutorService POOL = Executors.newCachedThreadPool();
    static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress("127.0.0.1", 0);

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    record Pair(Outcome server, Outcome client, String serverOut, String clientOut) {
    }

    static Pair run(PingpongSettings server, PingpongSettings client) throws Exception {
        Captured so = new Captured();
        Captured co = new Captured();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        try (VerbsDevice sd = LoopbackDevices.open(); VerbsDevice cd = LoopbackDevices.open();
             PingpongServer srv = PingpongServer.open(sd, server, ANY_LOOPBACK_PORT, so.out)) {
            Future<Outcome> served = POOL.submit(() -> srv.run(deadline));
            Outcome c = PingpongClient.run(cd, client, new InetSocketAddress("127.0.0.1", srv.port()), deadline,
                    co.out);
            return new Pair(served.get(60, TimeUnit.SECONDS), c, so.toString(), co.toString());
        }
    }

    @Test
    void clientAndServer_pingPong_andPrintLikeRcPingpong() throws Exception {
        PingpongSettings s = new PingpongSettings(4096, 200, 1024, 500, false, 14);
        Pair p = run(s, s);
        assertThat(p.server().pass()).as(p.serverOut()).isTrue();
        assertThat(p.client().pass()).as(p.clientOut()).isTrue();
        assertThat(p.client().details()).startsWith("iters=200 size=4096 mtu=1024 received=200 sent=200 ");
        assertThat(p.server().details()).startsWith("iters=200 size=4096 mtu=1024 received=200 sent=200 ");
        String addr = "LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (::ffff:127\\.0\\.0\\.\\d+)";
        Matcher cl = Pattern.compile("^  local address:  " + addr + "$", Pattern.MULTILINE).matcher(p.clientOut());
        Matcher sr = Pattern.compile("^  remote address: " + addr + "$", Pattern.MULTILINE).matcher(p.serverOut());
        assertThat(cl.find()).as(p.clientOut()).isTrue();
        assertThat(sr.find()).as(p.serverOut()).isTrue();
        assertThat(sr.group()).endsWith(cl.group().substring("  local address:  ".length()));
        assertThat(p.clientOut())
                .containsPattern("(?m)^1638400 bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec$")
                .containsPattern("(?m)^200 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter$");
    }

    @Test
    void pageChecks_andMultiPageMessages_atMtu4096() throws Exception {
        PingpongSettings s = new PingpongSettings(10_000, 50, 4096, 16, true, 14);
        Pair p = run(s, s);
        assertThat(p.server().pass()).as(p.serverOut()).isTrue();
        assertThat(p.client().pass()).as(p.clientOut()).isTrue();
    }

    @Test
    void smallestReceiveDepth_keepsReceivesPosted() throws Exception {
        PingpongSettings s = new PingpongSettings(1000, 100, 256, 1, false, 14);
        Pair p = run(s, s);
        assertThat(p.server().pass()).as(p.serverOut()).isTrue();
        assertThat(p.client().pass()).as(p.clientOut()).isTrue();
    }

    @Test
    void differentSizes_failBothSides() throws Exception {
        Pair p = run(new PingpongSettings(2048, 10, 1024, 16, false, 14),
                new PingpongSettings(4096, 10, 1024, 16, false, 14));
        assertThat(p.server().pass()).isFalse();
        assertThat(p.server().details()).as(p.serverOut()).contains("Failed status LOCAL_LENGTH_ERROR");
        assertThat(p.client().pass()).isFalse();
    }

    @Test
    void client_failsWithinItsBudget_whenNoServerListens() throws Exception {
        Captured co = new Captured();
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();                   // closed again: nothing listens there
        }
        try (VerbsDevice cd = LoopbackDevices.open()) {
            Outcome c = PingpongClient.run(cd, PingpongSettings.defaults(), new InetSocketAddress("127.0.0.1", port),
                    Deadline.after(Duration.ofSeconds(1)), co.out);
            assertThat(c.pass()).isFalse();
            assertThat(c.details()).contains("Couldn't connect to 127.0.0.1:" + port);
            assertThat(co.toString()).contains("waiting for the server at 127.0.0.1:" + port);
        }
    }
}

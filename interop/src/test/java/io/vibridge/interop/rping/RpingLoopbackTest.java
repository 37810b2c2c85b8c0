package io.vibridge.interop.rping;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.interop.support.Captured;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.LoopbackDevices;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsDevice;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our rping client against our rping server on two loopback soft devices. Between two ends of ours this proves
 * agreement only; rping's own bytes are pinned by {@link RpingWireTest} and proven by the VM suite.
 */
class RpingLoopbackTest {
    static final ExecutorService POOL = Executors.newCachedThreadPool();
    static final CmParameters CM = CmParameters.defaults().withTimeouts(14, 16, 4);

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    record Pair(Outcome server, Outcome client, String serverOut, String clientOut) {
    }

    static Pair run(int serverCount, int clientCount, int size, boolean verbose) throws Exception {
        Captured so = new Captured();
        Captured co = new Captured();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        try (VerbsDevice sd = LoopbackDevices.open(); VerbsDevice cd = LoopbackDevices.open();
             RpingServer srv = RpingServer.listen(sd, new RpingServer.Settings(sd.address(), 7174, serverCount, size,
                     true, verbose, false, 12), deadline, so.out)) {
            Future<Outcome> served = POOL.submit(srv::serve);
            Outcome c = RpingClient.run(cd, new RpingClient.Settings(sd.address(), 7174, clientCount, size, true,
                    verbose, false, 0, CM), deadline, co.out);
            Outcome s = served.get(60, TimeUnit.SECONDS);
            return new Pair(s, c, so.toString(), co.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 65_000})
    void clientAndServer_pingAndValidate(int size) throws Exception {
        int count = size == 64 ? 50 : 8;
        Pair p = run(count, count, size, false);
        assertThat(p.client().pass()).as(p.clientOut()).isTrue();
        assertThat(p.server().pass()).as(p.serverOut()).isTrue();
        assertThat(p.client().details()).startsWith("pings=" + count + " size=" + size + " validated=" + count + " ");
        assertThat(p.server().line()).isEqualTo("RESULT rping-server PASS iterations=" + count + " size=" + size
                + " validated=" + count);
        assertThat(p.serverOut()).contains("server DISCONNECT EVENT...");
        assertThat(p.clientOut()).contains("disconnected");
    }

    @Test
    void verbose_printsThePingDataAsRpingDoes() throws Exception {
        Pair p = run(0, 2, 64, true);
        assertThat(p.clientOut()).contains(
                "ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr\n",
                "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs\n");
        assertThat(p.serverOut()).contains("server ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ");
        assertThat(p.server().line()).isEqualTo("RESULT rping-server PASS iterations=2 size=64 validated=2");
    }

    @Test
    void server_countsIterations() throws Exception {
        Pair p = run(5, 3, 64, false);
        assertThat(p.client().pass()).as(p.clientOut()).isTrue();
        assertThat(p.server().pass()).isFalse();
        assertThat(p.server().details()).contains("completed 3 iterations, expected 5");
    }

    @Test
    void server_refusesALargerSourceThanItsBuffer() throws Exception {
        Captured so = new Captured();
        Captured co = new Captured();
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        try (VerbsDevice sd = LoopbackDevices.open(); VerbsDevice cd = LoopbackDevices.open();
             RpingServer srv = RpingServer.listen(sd, new RpingServer.Settings(null, 7174, 0, 64, true, false, false,
                     12), deadline, so.out)) {
            Future<Outcome> served = POOL.submit(srv::serve);
            Outcome c = RpingClient.run(cd, new RpingClient.Settings(sd.address(), 7174, 1, 1000, true, false, false,
                    0, CM), deadline, co.out);
            Outcome s = served.get(30, TimeUnit.SECONDS);
            assertThat(s.details()).as(so.toString()).contains("advertises a 1000-byte source");
            assertThat(c.pass()).isFalse();
            assertThat(c.details()).contains("disconnected during ping 0");
        }
    }

    /**
     * Linux's passive rdma_cm route-validates the CMA header's source and answers REJ 28 when it is not where the
     * REQ came from; our server does the same, which is how it catches a gateway naming the VI client there.
     */
    @Test
    void server_rejectsACmaHeaderWhoseSourceIsNotTheSender() throws Exception {
        Captured so = new Captured();
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        try (VerbsDevice sd = LoopbackDevices.open(); VerbsDevice cd = LoopbackDevices.open();
             RpingServer srv = RpingServer.listen(sd, new RpingServer.Settings(sd.address(), 7174, 0, 64, true, false,
                     false, 12), deadline, so.out);
             ProtectionDomain pd = cd.allocateProtectionDomain();
             CompletionQueue cq = cd.createCompletionQueue(8);
             QueuePair qp = pd.createQueuePair(QpInitAttributes.of(cq, 4))) {
            Future<Outcome> served = POOL.submit(srv::serve);
            InetAddress elsewhere = InetAddress.getByName(LoopbackDevices.ABSENT);
            byte[] pd92 = new CmaHeader(40000, elsewhere, sd.address()).toPrivateData(new byte[0]);
            LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
            cd.connectionManager().connect(ConnectParams.defaults(sd.address(), RpingServer.serviceId(7174), pd92)
                    .withTimeouts(14, 16, 4), qp, events::add, null);
            CmEvent e = events.poll(20, TimeUnit.SECONDS);
            assertThat(e).isInstanceOfSatisfying(CmEvent.Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(CmEvent.REJ_CONSUMER));
            Outcome s = served.get(20, TimeUnit.SECONDS);
            assertThat(s.pass()).isFalse();
            assertThat(s.details()).contains("source " + LoopbackDevices.ABSENT + " is not the REQ's sender "
                    + cd.address().getHostAddress());
        }
    }

    @Test
    void client_failsWithinItsBudget_whenNoServerAnswers() throws Exception {
        Captured co = new Captured();
        try (VerbsDevice cd = LoopbackDevices.open()) {
            long t0 = System.nanoTime();
            Outcome c = RpingClient.run(cd, new RpingClient.Settings(InetAddress.getByName(LoopbackDevices.ABSENT),
                    7174, 1, 64, true, false, false, 0, CmParameters.defaults()), Deadline.after(Duration.ofSeconds(2)),
                    co.out);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(c.pass()).isFalse();
            assertThat(c.details()).startsWith("timeout: the server's answer (REP) to our CM REQ");
            assertThat(ms).isBetween(1_500L, 10_000L);
        }
    }
}

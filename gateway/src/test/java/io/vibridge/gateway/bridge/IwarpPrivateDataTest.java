package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.verbs.ConnectionManager;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The application's private data across the iWARP front end (IWARP-MAPPING §2.1), as NVMe-oF, iSER and
 * NFS/RDMA use it: the MPA Request's private data after the IRD/ORD word reaches the target behind the CMA
 * header of an {@code rdma-cm} route, at every length up to the 56 bytes there is room for; one byte more is
 * an MPA Reject that says so; the REP's private data comes back in the MPA Reply, a consumer REJ's in the MPA
 * Reject; a Hello route has no room. Real sockets, a soft-fabric target written against the verbs SPI.
 */
class IwarpPrivateDataTest {
    /** The first ULP byte that makes the target reject (with {@link #REJECT_DATA}). */
    static final byte REJECT = (byte) 0xEE;
    static final byte[] REJECT_DATA = "nvme status 0x0182".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_DATA = {0, 0, 0x7F, 0, 0, 0, 0, 0}; // NVMe-oF's REP: recfmt 0, crqsize 127

    static RdmaCmTarget target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() {
        target = new RdmaCmTarget("127.0.0.181", 4420, REJECT & 0xFF, REJECT_DATA, REPLY_DATA, null);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.182",
                "{ match = \"nvme\", target = \"127.0.0.181\", port = 4420, cm-format = rdma-cm, flowc = 1,"
                        + " receive-size = 8192, receive-buffers = 8 },"
                        + TestSupport.route("hello", "127.0.0.181", 4420, 1, 8),
                "iwarp { host = \"127.0.0.1\", listeners = [ { port = 0, route = \"nvme\" },"
                        + " { port = 0, route = \"hello\" } ] }\n" + TestSupport.PATIENT));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static IwarpClient client(int listener, byte[] privateData) throws Exception {
        return new IwarpClient(new InetSocketAddress("127.0.0.1", gateway.iwarpPorts().get(listener)), false, 1448,
                privateData);
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 1);
        }
        return b;
    }

    @Test
    void everyLengthUpTo56ReachesTheTargetBehindTheCmaHeaderAndTheRepsComesBack() throws Exception {
        double carried = carried();
        for (int n = 0; n <= CmaHeader.MAX_USER_DATA; n++) {
            byte[] ulp = pattern(n);
            try (IwarpClient c = client(0, ulp).awaitEstablished(T)) {
                assertThat(c.engine.rejectReply()).as("%d bytes", n).isNull();
                byte[] req = target.requests.poll(30, TimeUnit.SECONDS);
                assertThat(req).as("the REQ for %d bytes", n).isNotNull().hasSize(CmaHeader.REQ_PRIVATE_DATA_LENGTH);
                // what rdma_cm hands the target's consumer: the 56 bytes after the header, the client's then zeros
                assertThat(Arrays.copyOfRange(req, CmaHeader.LENGTH, CmaHeader.LENGTH + n)).isEqualTo(ulp);
                assertThat(Arrays.copyOfRange(req, CmaHeader.LENGTH + n, req.length)).isEqualTo(new byte[CmaHeader.MAX_USER_DATA - n]);
                // the REP's private data, all 196 bytes as rdma_cm gives them, after the Reply's IRD/ORD word
                byte[] reply = c.engine.settings().ulpPrivateData();
                assertThat(reply).hasSize(ConnectionManager.REP_PRIVATE_DATA);
                assertThat(Arrays.copyOf(reply, REPLY_DATA.length)).isEqualTo(REPLY_DATA);
            }
        }
        assertThat(carried()).isEqualTo(carried + 57 * 56 / 2.0);
    }

    @Test
    void oneByteMoreThanTheRouteCarriesIsAnMpaRejectThatSaysSo() throws Exception {
        double before = rejected("private_data");
        try (IwarpClient c = client(0, pattern(CmaHeader.MAX_USER_DATA + 1))) {
            assertThat(c.closedByGateway(T)).isTrue();
            assertThat(c.engine.rejectReply()).isNotNull();
            assertThat(new String(c.engine.rejectReply().ulpPrivateData(), StandardCharsets.US_ASCII))
                    .isEqualTo("private data of 57 bytes; the CM REQ of route \"nvme\" (cm-format rdma-cm) carries at most 56");
        }
        assertThat(rejected("private_data")).isEqualTo(before + 1);
        assertThat(target.requests.poll(200, TimeUnit.MILLISECONDS)).as("no REQ went out").isNull();
    }

    @Test
    void aConsumerRejectsPrivateDataComesBackInTheMpaReject() throws Exception {
        byte[] ulp = pattern(32);
        ulp[0] = REJECT;
        try (IwarpClient c = client(0, ulp)) {
            assertThat(c.closedByGateway(T)).isTrue();
            assertThat(c.engine.rejectReply()).isNotNull();
            byte[] got = c.engine.rejectReply().ulpPrivateData();
            // the REJ's private data field, 148 bytes, the consumer's words first
            assertThat(got).hasSize(148);
            assertThat(Arrays.copyOf(got, REJECT_DATA.length)).isEqualTo(REJECT_DATA);
            assertThat(c.engine.rejectReply().v2Params()).isEqualTo(MpaV2Params.of(0, 0));
        }
        assertThat(target.requests.poll(30, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aHelloRouteHasNoRoomButTakesARequestWithout() throws Exception {
        try (IwarpClient c = client(1, pattern(1))) {
            assertThat(c.closedByGateway(T)).isTrue();
            assertThat(new String(c.engine.rejectReply().ulpPrivateData(), StandardCharsets.US_ASCII))
                    .isEqualTo("private data of 1 bytes; the CM REQ of route \"hello\" (cm-format hello) carries at most 0");
        }
    }

    private static double carried() {
        return gateway.registry().get("vibridge.private.data").tag("encapsulation", "iwarp")
                .tag("direction", "client_to_target").counter().count();
    }

    private static double rejected(String reason) {
        return gateway.registry().get("vibridge.connections.rejected").tag("reason", reason).counter().count();
    }
}

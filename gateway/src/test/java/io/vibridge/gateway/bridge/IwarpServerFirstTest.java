package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaKey;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Server-first applications across the iWARP front end (IWARP-MAPPING §2, step 6): a target that SENDs first
 * reaches a client that has sent nothing since its MPA Request, as it does from Linux siw as responder (siw as
 * initiator, in its default client/server mode, sends no message of its own); in peer-to-peer mode a client
 * whose RTR never comes is terminated within {@code iwarp.request-timeout} and counted.
 */
class IwarpServerFirstTest {
    static final byte[] GREETING = "the target speaks first".getBytes(StandardCharsets.US_ASCII);
    static RdmaCmTarget target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() {
        target = new RdmaCmTarget("127.0.0.183", 7174, -1, new byte[0], new byte[0], GREETING);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.184",
                "{ match = \"greeter\", target = \"127.0.0.183\", port = 7174, cm-format = rdma-cm, flowc = 1,"
                        + " receive-size = 4096, receive-buffers = 4 }",
                "iwarp { host = \"127.0.0.1\", request-timeout = 1s, listeners = [ { port = 0, route = \"greeter\" } ] }"
                        + "\nshutdown-grace = 60s"));
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

    private static InetSocketAddress listener() {
        return new InetSocketAddress("127.0.0.1", gateway.iwarpPorts().get(0));
    }

    @Test
    void theTargetsFirstSendReachesAClientThatSentNothing() throws Exception {
        try (IwarpClient c = new IwarpClient(listener(), false, 1448).awaitEstablished(T)) {
            assertThat(c.awaitSend(T)).isEqualTo(GREETING);
        }
    }

    @Test
    void aPeerToPeerClientWhoseRtrNeverComesIsTerminatedAndCounted() throws Exception {
        double before = gateway.registry().get("vibridge.iwarp.rtr.timeouts").counter().count();
        try (Socket s = new Socket()) {
            s.connect(listener());
            s.setSoTimeout((int) T.toMillis());
            // RFC 6581: peer-to-peer mode, a zero-length RDMA Write offered as RTR; then nothing
            s.getOutputStream().write(MpaFrame.enhanced(MpaKey.REQUEST, false, false,
                    new MpaV2Params(4, 4, true, false, true, false), new byte[0]).toBytes());
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] b = new byte[4096];
            for (int n; (n = in.read(b)) > 0; ) {
                all.write(b, 0, n);
            }
            ByteBuffer got = ByteBuffer.wrap(all.toByteArray());
            MpaFrame reply = MpaFrame.decode(got, 0, got.limit(), MpaKey.REPLY);
            assertThat(reply.v2Params().writeRtr()).isTrue();
            // what follows the Reply is one FPDU, a Terminate, and the gateway closed TCP
            int fpdu = reply.length();
            int ulpdu = got.getShort(fpdu) & 0xFFFF;
            DdpSegment t = new DdpSegment().wrap(got, fpdu + 2, ulpdu);
            assertThat(t.opcode()).isEqualTo(RdmapOpcode.TERMINATE);
        }
        assertThat(gateway.registry().get("vibridge.iwarp.rtr.timeouts").counter().count()).isEqualTo(before + 1);
    }
}

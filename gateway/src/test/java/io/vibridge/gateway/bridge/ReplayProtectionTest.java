package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.vitcp.security.ConnectSigner;
import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Signed Connect Requests (VITCP-PROFILE §5) against a restart, a flood of valid signatures
 * from one client, and a full replay memory, over real sockets. The client is hand-driven so that it can send
 * the very same signed bytes twice.
 */
class ReplayProtectionTest {
    static final String KEY = "replay-secret-0123456789";
    static final String IB = "127.0.0.138";
    static final String FLOODER = "127.0.0.139";
    static final String OTHER = "127.0.0.140";
    static EchoTarget target;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.137", 5000, 4, 65552);
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static GatewayServer gateway(String security) {
        return GatewayServer.start(TestSupport.config(IB, TestSupport.route("echo", "127.0.0.137", 5000, 1, 4),
                "security { key = \"" + KEY + "\"" + security + " }"));
    }

    /** A Connect Request signed now with the key, as its bytes on the wire. */
    private static byte[] signedRequest(String calling) {
        ConnectionHeader h = ConnectionHeader.toBeSigned(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY,
                true, true, false, false, false), Discriminator.ofUtf8(calling), 1 << 16, 1, Discriminator.ofUtf8("echo"));
        ConnectRequest cr = new ConnectRequest(1000, 1, h);
        ByteBuffer b = ByteBuffer.allocate(cr.encodedLength());
        cr.encode(b, 0);
        new ConnectSigner(KEY.getBytes(StandardCharsets.UTF_8), InstantSource.system()).sign(b, 0, b.capacity());
        return b.array();
    }

    /** Connects from {@code from}, sends {@code request} and returns the gateway's answer; the socket stays open. */
    private static ControlSegment send(GatewayServer g, String from, byte[] request, List<Socket> open)
            throws IOException {
        Socket s = new Socket();
        open.add(s);
        s.setSoTimeout(30_000);
        s.bind(new InetSocketAddress(InetAddress.ofLiteral(from), 0));
        s.connect(new InetSocketAddress("127.0.0.1", g.port()));
        s.getOutputStream().write(request);
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] head = new byte[4];
        in.readFully(head);
        int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
        byte[] all = new byte[len];
        System.arraycopy(head, 0, all, 0, 4);
        in.readFully(all, 4, len - 4);
        return ControlSegment.decode(ByteBuffer.wrap(all), 0, len);
    }

    private static int isCode(ControlSegment answer) {
        return answer instanceof ConnectReject r ? r.isErrorCode() : IsCode.NONE;
    }

    private static void closeAll(List<Socket> open) throws IOException {
        for (Socket s : open) {
            s.close();
        }
        open.clear();
    }

    @Test
    void aRequestCapturedBeforeARestartIsRefusedAfterIt() throws Exception {
        List<Socket> open = new ArrayList<>();
        byte[] captured;
        try (GatewayServer g = gateway("")) {
            captured = signedRequest("client");           // signed while the first instance runs
            assertThat(send(g, OTHER, captured, open)).isInstanceOf(ConnectAccept.class);
            assertThat(isCode(send(g, OTHER, captured, open))).as("a replay").isEqualTo(IsCode.SECURITY_REJECTED);
            closeAll(open);
        }
        Thread.sleep(2);                                   // the new instance starts strictly after the signature
        try (GatewayServer g = gateway("")) {              // a restart: same key, empty replay memory
            assertThat(isCode(send(g, OTHER, captured, open))).as("the replay after a restart")
                    .isEqualTo(IsCode.SECURITY_REJECTED);
            assertThat(send(g, OTHER, signedRequest("client"), open)).as("a fresh signature")
                    .isInstanceOf(ConnectAccept.class);
            closeAll(open);
        } finally {
            closeAll(open);
        }
    }

    @Test
    void aFloodFromOneClientFillsItsShareOnly() throws Exception {
        List<Socket> open = new ArrayList<>();
        try (GatewayServer g = gateway(", replay-capacity = 16, replay-per-client = 3")) {
            for (int i = 0; i < 3; i++) {
                assertThat(send(g, FLOODER, signedRequest("flood-" + i), open)).isInstanceOf(ConnectAccept.class);
            }
            // its share is full: IS 14 as documented (resources exhausted), not IS 11
            assertThat(isCode(send(g, FLOODER, signedRequest("flood-3"), open))).isEqualTo(IsCode.RESOURCES_EXHAUSTED);
            assertThat(isCode(send(g, FLOODER, signedRequest("flood-4"), open))).isEqualTo(IsCode.RESOURCES_EXHAUSTED);
            // another client of the same route is not locked out
            assertThat(send(g, OTHER, signedRequest("other"), open)).isInstanceOf(ConnectAccept.class);
        } finally {
            closeAll(open);
        }
    }

    @Test
    void aFullReplayMemoryRefusesWithIs14() throws Exception {
        List<Socket> open = new ArrayList<>();
        try (GatewayServer g = gateway(", replay-capacity = 2, replay-per-client = 2")) {
            assertThat(send(g, FLOODER, signedRequest("a"), open)).isInstanceOf(ConnectAccept.class);
            assertThat(send(g, OTHER, signedRequest("b"), open)).isInstanceOf(ConnectAccept.class);
            assertThat(isCode(send(g, OTHER, signedRequest("c"), open))).isEqualTo(IsCode.RESOURCES_EXHAUSTED);
            assertThat(g.registry().scrape()).containsPattern(
                    "vibridge_connections_rejected_total\\{reason=\"security\"\\} 1");
        } finally {
            closeAll(open);
        }
    }
}

package io.vibridge.testcontainers.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.client.Completion;
import io.vibridge.iwarp.client.IwarpEndpoint;
import io.vibridge.iwarp.client.IwarpOptions;
import io.vibridge.iwarp.client.WorkKind;
import io.vibridge.testcontainers.VibridgeContainer;
import io.vibridge.testcontainers.VibridgeTargetContainer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module against the real image: a target and a gateway wired by {@code withTarget}, a second route
 * with the gateway's defaults, an iWARP listener and a security key; every endpoint getter is used by a
 * real client (VI/TCP in both framings, iWARP, admin HTTP).
 */
class VibridgeContainersIT {
    static final Duration T = Duration.ofSeconds(30);
    static final String KEY = "integration tests' shared key";
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static VibridgeTargetContainer target;
    static VibridgeContainer gateway;

    @BeforeAll
    static void start() {
        DockerRequired.check();
        target = new VibridgeTargetContainer(DockerRequired.IMAGE);
        gateway = new VibridgeContainer(DockerRequired.IMAGE)
                .withTarget(target)
                .withRoute("plain", target) // the gateway's route defaults: FlowC 1, receives of 64 KiB
                .withIwarpListener(7472, "demo")
                .withSecurityKey(KEY);
        gateway.start();
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.stop(); // and the target, and the network it made
        }
    }

    static String get(URI uri) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(uri).timeout(T).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s", uri).isEqualTo(200);
        return r.body();
    }

    /** Connects with {@code config} to {@code remote}, sends {@code sizes} random messages and checks each echo. */
    static void viEcho(NicConfig config, ViNetAddress remote, int... sizes) throws Exception {
        try (ViNic nic = ViNic.open(config)) {
            ProtectionTag tag = nic.createPtag();
            MemoryRegion send = nic.registerMemory(ByteBuffer.allocateDirect(65536), new MemoryAttributes(tag, false, false));
            MemoryRegion recv = nic.registerMemory(ByteBuffer.allocateDirect(65536), new MemoryAttributes(tag, false, false));
            Vi vi = nic.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, tag), null, null);
            vi.postRecv(Descriptor.receive().data(recv, 0, 65536));
            vi.connectRequest(Discriminator.EMPTY, remote, T);
            Random random = new Random(7);
            for (int size : sizes) {
                byte[] message = new byte[size];
                random.nextBytes(message);
                message[0] = 1; // not the 'V' of the demo target's VBRG control requests
                send.buffer().put(0, message);
                vi.postSend(Descriptor.send().data(send, 0, size));
                assertThat(vi.sendWait(T).isError()).isFalse();
                Descriptor echo = vi.recvWait(T);
                assertThat(echo.isError()).isFalse();
                byte[] back = new byte[(int) echo.length()];
                recv.buffer().get(0, back);
                assertThat(back).as("echo of %d bytes through %s", size, remote).isEqualTo(message);
                vi.postRecv(Descriptor.receive().data(recv, 0, 65536));
            }
            vi.disconnect();
        }
    }

    @Test
    void viClientsEchoThroughEveryRouteAndFraming() throws Exception {
        NicConfig nic = gateway.getNicConfig();
        viEcho(nic, gateway.getViNetAddress("demo"), 1, 4096, 65_000);
        viEcho(nic, gateway.getRdmaTcpNetAddress("demo"), 100, 40_000);
        viEcho(nic, gateway.getViNetAddress("plain"), 3000, 65_536);
    }

    @Test
    void anUnsignedConnectRequestIsRejected() {
        NicConfig withoutKey = gateway.getNicConfig().withKey(null);
        assertThatThrownBy(() -> viEcho(withoutKey, gateway.getViNetAddress("demo"), 1))
                .isInstanceOfSatisfying(ViException.class, e -> assertThat(e.isCode()).isEqualTo(IsCode.SECURITY_REJECTED));
    }

    @Test
    void anIwarpClientEchoesThroughTheListener() throws Exception {
        try (IwarpEndpoint ep = IwarpEndpoint.connect(gateway.getIwarpEndpoint("demo"), IwarpOptions.defaults())) {
            ByteBuffer recv = ByteBuffer.allocateDirect(65536);
            byte[] message = new byte[20_000];
            new Random(9).nextBytes(message);
            message[0] = 1;
            ep.postRecv(recv, 1);
            ep.postSend(ByteBuffer.wrap(message), 2);
            assertThat(ep.poll(T)).isEqualTo(new Completion(2, WorkKind.SEND, message.length));
            Completion echo = ep.poll(T);
            assertThat(echo).isEqualTo(new Completion(1, WorkKind.RECV, message.length));
            byte[] back = new byte[message.length];
            recv.get(0, back);
            assertThat(back).isEqualTo(message);
        }
    }

    @Test
    void theAdminEndpointsAndTheConfigurationAreThereToRead() throws Exception {
        viEcho(gateway.getNicConfig(), gateway.getViNetAddress("demo"), 10);
        assertThat(gateway.getMetricsUrl().getPort()).isEqualTo(gateway.getMappedPort(VibridgeContainer.ADMIN_PORT));
        assertThat(get(gateway.getMetricsUrl())).containsPattern("(?m)^vibridge_connections_opened_total(\\{[^}]*\\})? [1-9]");
        assertThat(get(gateway.getAdminUrl().resolve("/health"))).contains("UP");
        assertThat(get(gateway.getAdminUrl().resolve("/device"))).contains("soft");
        assertThat(gateway.getViTcpEndpoint().getPort()).isEqualTo(gateway.getMappedPort(VibridgeContainer.VITCP_PORT));
        assertThat(gateway.getRdmaTcpEndpoint().getPort()).isEqualTo(gateway.getMappedPort(VibridgeContainer.RDMATCP_PORT));
        assertThat(gateway.getIwarpEndpoint("demo").getPort()).isEqualTo(gateway.getMappedPort(7472));
        assertThat(gateway.getConfiguration()).contains("target = \"" + target.getIbAddress(gateway.getNetwork()) + "\"");
        assertThat(gateway.getTargets()).containsExactly(target);
        assertThat(target.isRunning()).isTrue();
    }
}

package com.example.vibridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.client.Completion;
import io.vibridge.iwarp.client.IwarpEndpoint;
import io.vibridge.iwarp.client.IwarpOptions;
import io.vibridge.testcontainers.VibridgeContainer;
import io.vibridge.testcontainers.VibridgeTargetContainer;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/** An application's integration test: its VI/TCP and iWARP clients, through a vibridge gateway, to an echo target. */
@Testcontainers
class GatewayEchoTest {
    static final DockerImageName IMAGE = DockerImageName.parse("vibridge/gateway:local");
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    // The demo InfiniBand-side service, echoing every Send.
    static final VibridgeTargetContainer target = new VibridgeTargetContainer(IMAGE);

    // The gateway: the route "demo" to the target (both on one Docker network, the target started first),
    // and iWARP clients of port 7472 to the same route.
    @Container
    static final VibridgeContainer gateway = new VibridgeContainer(IMAGE)
            .withTarget(target)
            .withIwarpListener(7472, "demo");

    @Test
    void aViClientGetsItsEchoThroughTheGateway() throws Exception {
        byte[] message = "hello over VI/TCP".getBytes(StandardCharsets.UTF_8);
        try (ViNic nic = ViNic.open(gateway.getNicConfig())) {
            ProtectionTag tag = nic.createPtag();
            MemoryRegion memory = nic.registerMemory(ByteBuffer.allocateDirect(2 * 65536),
                    new MemoryAttributes(tag, false, false));
            Vi vi = nic.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY, tag), null, null);
            vi.postRecv(Descriptor.receive().data(memory, 65536, 65536));                  // post a receive
            vi.connectRequest(Discriminator.EMPTY, gateway.getViNetAddress("demo"), TIMEOUT); // connect

            memory.buffer().put(0, message);
            vi.postSend(Descriptor.send().data(memory, 0, message.length));                  // post a send
            assertThat(vi.sendWait(TIMEOUT).isError()).isFalse();                           // poll
            Descriptor echo = vi.recvWait(TIMEOUT);
            byte[] echoed = new byte[(int) echo.length()];
            memory.buffer().get(65536, echoed);
            assertThat(echoed).isEqualTo(message);
            vi.disconnect();                                                                 // close
        }
        assertThat(metric("vibridge_connections_opened_total{encapsulation=\"vitcp\"}")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void anIwarpClientGetsItsEchoThroughTheGateway() throws Exception {
        byte[] message = "hello over iWARP".getBytes(StandardCharsets.UTF_8);
        try (IwarpEndpoint ep = IwarpEndpoint.connect(gateway.getIwarpEndpoint("demo"), IwarpOptions.defaults())) {
            ByteBuffer receive = ByteBuffer.allocateDirect(65536);
            ep.postRecv(receive, 1);                                                          // post a receive
            ep.postSend(ByteBuffer.wrap(message), 2);                                         // post a send
            Completion sent = ep.poll(TIMEOUT);                                               // poll
            Completion echo = ep.poll(TIMEOUT);
            assertThat(sent.wrId()).isEqualTo(2);
            assertThat(echo.wrId()).isEqualTo(1);
            byte[] echoed = new byte[echo.byteLength()];
            receive.get(0, echoed);
            assertThat(echoed).isEqualTo(message);
        }                                                                                      // close
        assertThat(metric("vibridge_connections_opened_total{encapsulation=\"iwarp\"}")).isGreaterThanOrEqualTo(1);
    }

    /** One series of the gateway's Prometheus scrape, e.g. {@code name{label="value"}}. */
    static double metric(String series) throws Exception {
        String text = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(gateway.getMetricsUrl()).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        return text.lines().filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(series + " is not in " + gateway.getMetricsUrl()));
    }
}

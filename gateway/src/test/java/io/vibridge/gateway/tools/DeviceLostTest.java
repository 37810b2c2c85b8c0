package io.vibridge.gateway.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.verbs.Verbs;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device that fails or is removed under the gateway (AsyncEvent.DeviceFatal; on rdma-core also rdma_cm's
 * DEVICE_REMOVAL): the bridged client gets an error at once, the gateway stops being ready, refuses new
 * connections, keeps running, and closes the device, which a removal on rxe or siw waits for. The device here
 * is the soft one with a switch to raise the event, as a provider raises it; the VM case
 * ({@code interop/run}, "rdma link delete rxe0") does it on rxe.
 */
@Timeout(60)
class DeviceLostTest {
    private TargetService target;
    private GatewayServer gateway;
    private ForwardingDevice device;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** Control round trips until one fails (at most 10 s); the failure, or null when none did. */
    private static Throwable firstFailure(ViClient c) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end) {
            try {
                c.controlOk(Control.QUERY_REGION, null);
            } catch (RuntimeException e) {
                return e;
            }
            Thread.sleep(20);
        }
        return null;
    }

    @Test
    void theClientErrsTheGatewayRefusesNewConnectionsAndClosesTheDevice() throws Exception {
        target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.152")).withProvider("soft")
                .withReceives(16, 65552).withSchemes(Set.of(ServiceIdScheme.IWARP)));
        gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString("""
                vibridge.gateway { listen { host = "127.0.0.1", port = 0, rdmatcp-port = off }
                admin { host = "127.0.0.1", port = 0 }
                infiniband { provider = soft, address = "127.0.0.151" }
                staging { max-slots = 64 }
                shutdown-grace = 2s
                routes = [ { match = "demo", target = "127.0.0.152", port = 5000, flowc = 1,
                             receive-size = 65552, receive-buffers = 8 } ] }""")),
                dc -> device = new ForwardingDevice(Verbs.open(dc), false));
        ViClientOptions o = new ViClientOptions(new InetSocketAddress("127.0.0.1", gateway.port()), "demo",
                ReliabilityLevel.RELIABLE_RECEPTION, true, null, 4096, 4, 4, Duration.ofSeconds(20));
        try (ViClient c = ViClient.open(o)) {
            c.connect();
            c.controlOk(Control.QUERY_REGION, null);                     // a Send each way: the bridge works

            device.fail("device removal (RDMA_CM_EVENT_DEVICE_REMOVAL)");

            // the event reaches the bridge on its own context: the client's requests fail within moments
            assertThat(firstFailure(c)).isInstanceOf(ViException.class);
        }
        assertThat(device.closed.await(20, TimeUnit.SECONDS)).as("the gateway closed the lost device").isTrue();
        assertThat(gateway.isReady()).isFalse();
        assertThat(gateway.lostDevice()).contains("DEVICE_REMOVAL");
        assertThat(gateway.registry().get("vibridge.ib.async.events").tag("event", "device_fatal").counter().count())
                .isEqualTo(1.0);
        try (ViClient again = ViClient.open(o)) {
            assertThatThrownBy(again::connect).as("a new connection after the loss").isInstanceOf(ViException.class);
        }
    }
}

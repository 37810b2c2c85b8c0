package io.vibridge.cm.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.serviceid.RdmaPortSpace;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class RouteParametersTest {

    private static void assertKey(Runnable r, String key) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(RouteConfigException.class,
                e -> assertThat(e.key()).isEqualTo(key));
    }

    @Test
    void rdmaCmDefaultsToTheTcpPortSpace() {
        RouteParameters p = new RouteParameters(ServiceIdScheme.RDMA_CM, null, CmFormat.RDMA_CM,
                FlowControl.APPLICATION, 1, 1);
        assertThat(p.portSpace()).isEqualTo(RdmaPortSpace.TCP);
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("127.0.0.1"), 20000, p);
        assertThat(t.serviceId().value()).isEqualTo(0x0000_0000_0106_4E20L);
    }

    @Test
    void rules() {
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, RdmaPortSpace.TCP, CmFormat.HELLO,
                FlowControl.APPLICATION, 1, 1), "port-space");
        assertKey(() -> new RouteParameters(ServiceIdScheme.RDMA_CM, RdmaPortSpace.UDP, CmFormat.HELLO,
                FlowControl.APPLICATION, 1, 1), "port-space");
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.RDMA_CM,
                FlowControl.APPLICATION, 1, 1), "service-id");
        assertKey(() -> new RouteParameters(ServiceIdScheme.RDMA_CM, null, CmFormat.RDMA_CM,
                FlowControl.TRANSPORT, 1, 8), "flowc");
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.HELLO,
                FlowControl.APPLICATION, 0, 1), "receive-size");
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.HELLO,
                FlowControl.APPLICATION, 1, 0), "receive-buffers");
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.HELLO,
                FlowControl.APPLICATION, 1, 65536), "receive-buffers");
        assertKey(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.HELLO,
                FlowControl.TRANSPORT, 1, 2), "receive-buffers");
        assertKey(() -> new RouteParameters(null, null, CmFormat.HELLO, FlowControl.TRANSPORT, 1, 3), "service-id");
        // Hello over an rdma-cm Service ID in the IB port space is allowed.
        assertThat(new RouteParameters(ServiceIdScheme.RDMA_CM, RdmaPortSpace.IB, CmFormat.HELLO,
                FlowControl.TRANSPORT, 1, 3).portSpace()).isEqualTo(RdmaPortSpace.IB);
    }

    @Test
    void targetPortRange() {
        InetAddress a = InetAddress.ofLiteral("127.0.0.1");
        assertKey(() -> new RouteTarget(a, 0, RouteParameters.DEFAULTS), "port");
        assertKey(() -> new RouteTarget(a, 65536, RouteParameters.DEFAULTS), "port");
        assertKey(() -> new RouteTarget(null, 1, RouteParameters.DEFAULTS), "target");
        assertThat(new RouteTarget(a, 65535, RouteParameters.DEFAULTS).serviceId().value())
                .isEqualTo(0x0000_0000_0002_FFFFL);
    }
}

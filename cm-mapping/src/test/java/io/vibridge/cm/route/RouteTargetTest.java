package io.vibridge.cm.route;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static io.vibridge.cm.testutil.Bytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.cm.testutil.Addresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class RouteTargetTest {
    private static final byte[] NONE = new byte[0];

    private static final RouteParameters HELLO_FC0 = new RouteParameters(ServiceIdScheme.IWARP, null,
            CmFormat.HELLO, FlowControl.TRANSPORT, 4096, 32);
    private static final RouteParameters RDMA_CM = new RouteParameters(ServiceIdScheme.RDMA_CM, null,
            CmFormat.RDMA_CM, FlowControl.APPLICATION, 4096, 32);

    @Test
    void helloCarriesRouteParametersAndClient() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, HELLO_FC0);
        Hello h = t.hello(InetAddress.ofLiteral("10.0.0.1"), 40000);
        assertThat(h).isEqualTo(Hello.of(32, FlowControl.TRANSPORT, 4096, 4096, 40000,
                InetAddress.ofLiteral("10.0.0.1"), InetAddress.ofLiteral("10.0.0.2")));
        assertThat(t.requestPrivateData(InetAddress.ofLiteral("10.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, false, NONE)).isEqualTo(h.toBytes());
    }

    @Test
    void ipv4ClientOfIpv6TargetIsMapped() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("fd00::2"), 5000, HELLO_FC0);
        Hello h = t.hello(InetAddress.ofLiteral("192.168.1.10"), 1);
        assertThat(h.ipVersion()).isEqualTo(6);
        assertThat(h.sourceAddress()).isInstanceOf(Inet6Address.class);
        assertThat(h.sourceAddress().getAddress())
                .isEqualTo(cat(zeros(10), b(0xFF, 0xFF, 0xC0, 0xA8, 0x01, 0x0A)));
    }

    @Test
    void ipv6ClientOfIpv4TargetOnlyWhenMapped() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, HELLO_FC0);
        assertThatThrownBy(() -> t.hello(InetAddress.ofLiteral("fd00::1"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be named in the IP version of target 10.0.0.2");
        byte[] mapped = cat(zeros(10), b(0xFF, 0xFF, 10, 0, 0, 1));
        InetAddress mappedClient = Addresses.of(6, mapped);
        assertThat(t.hello(mappedClient, 1).sourceAddress()).isEqualTo(InetAddress.ofLiteral("10.0.0.1"));
    }

    @Test
    void rdmaCmRouteSendsACmaHeaderNamingTheGatewayNotTheClient() {
        // CM-MAPPING §5: Linux route-validates the CMA source through its RoCE interface (REJ 28 otherwise)
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 7471, RDMA_CM);
        byte[] pd = t.requestPrivateData(InetAddress.ofLiteral("127.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, false, NONE);
        assertThat(pd).hasSize(92);
        assertThat(CmaHeader.fromBytes(pd)).isEqualTo(new CmaHeader(33000,
                InetAddress.ofLiteral("10.0.0.9"), InetAddress.ofLiteral("10.0.0.2")));
        assertThat(t.serviceId().value()).isEqualTo(0x0000_0000_0106_1D2FL);
    }

    @Test
    void onACmThatWritesTheCmaHeaderAnRdmaCmRouteGivesNothingAndAHelloRouteTheShortHello() {
        RouteTarget rdmaCm = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 7471, RDMA_CM);
        assertThat(rdmaCm.requestPrivateData(InetAddress.ofLiteral("127.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, true, NONE)).isEmpty();
        RouteTarget hello = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, HELLO_FC0);
        Hello h = hello.hello(InetAddress.ofLiteral("10.0.0.1"), 40000);
        // auto resolves to the CMA-header carriage there; the CM writes the header itself
        assertThat(hello.requestPrivateData(InetAddress.ofLiteral("10.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, true, NONE)).isEqualTo(h.toShortBytes()).hasSize(56);
    }

    @Test
    void theCmaHeaderCarriageOnARawCmIsTheHeaderNamingTheGatewayThenTheShortHello() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, new RouteParameters(
                ServiceIdScheme.RDMA_CM, null, CmFormat.HELLO, HelloCarriage.CMA_HEADER, FlowControl.TRANSPORT, 4096, 32));
        byte[] pd = t.requestPrivateData(InetAddress.ofLiteral("10.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, false, NONE);
        assertThat(pd).isEqualTo(cat(new CmaHeader(33000, InetAddress.ofLiteral("10.0.0.9"),
                InetAddress.ofLiteral("10.0.0.2")).toBytes(), t.hello(InetAddress.ofLiteral("10.0.0.1"), 40000)
                .toShortBytes()));
        // what a raw-CM target decodes: the client from the Hello, the target from the header
        assertThat(HelloCarriage.decodeRequest(pd, null)).isEqualTo(t.hello(InetAddress.ofLiteral("10.0.0.1"), 40000));
        // rdma_cm's TCP port space, where an rdma_cm RC listener on port 5000 answers
        assertThat(t.serviceId().value()).isEqualTo(0x0000_0000_0106_0000L + 5000);
    }

    @Test
    void aWholeHelloDoesNotFitBehindTheCmaHeader() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, new RouteParameters(
                ServiceIdScheme.IWARP, null, CmFormat.HELLO, HelloCarriage.WHOLE, FlowControl.TRANSPORT, 4096, 32));
        assertThatThrownBy(() -> t.requestPrivateData(InetAddress.ofLiteral("10.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, true, NONE)).isInstanceOf(IllegalStateException.class);
    }
    @Test
    void anRdmaCmRouteCarriesTheClientsPrivateDataBehindTheCmaHeaderUpTo56Bytes() {
        // IWARP-MAPPING §2.1: what an NVMe-oF host puts in its MPA Request (queue id, sizes) reaches the target
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 4420, RDMA_CM);
        assertThat(t.ulpPrivateDataRoom()).isEqualTo(CmaHeader.MAX_USER_DATA).isEqualTo(56);
        CmaHeader header = new CmaHeader(33000, InetAddress.ofLiteral("10.0.0.9"), InetAddress.ofLiteral("10.0.0.2"));
        for (int n = 0; n <= 56; n++) {
            byte[] ulp = new byte[n];
            for (int i = 0; i < n; i++) {
                ulp[i] = (byte) (i + 1);
            }
            byte[] raw = t.requestPrivateData(InetAddress.ofLiteral("127.0.0.1"), 40000,
                    InetAddress.ofLiteral("10.0.0.9"), 33000, false, ulp);
            assertThat(raw).isEqualTo(cat(header.toBytes(), ulp, zeros(56 - n)));
            assertThat(t.requestPrivateData(InetAddress.ofLiteral("127.0.0.1"), 40000,
                    InetAddress.ofLiteral("10.0.0.9"), 33000, true, ulp)).isEqualTo(ulp);
        }
        for (boolean cmWritesHeader : new boolean[] {false, true}) {
            assertThatThrownBy(() -> t.requestPrivateData(InetAddress.ofLiteral("127.0.0.1"), 40000,
                    InetAddress.ofLiteral("10.0.0.9"), 33000, cmWritesHeader, new byte[57]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the CM REQ of cm-format rdma-cm carries at most 56 bytes of client private data, not 57");
        }
    }

    @Test
    void aHelloRouteHasNoRoomForTheClientsPrivateData() {
        RouteTarget t = new RouteTarget(InetAddress.ofLiteral("10.0.0.2"), 5000, HELLO_FC0);
        assertThat(t.ulpPrivateDataRoom()).isZero();
        assertThatThrownBy(() -> t.requestPrivateData(InetAddress.ofLiteral("10.0.0.1"), 40000,
                InetAddress.ofLiteral("10.0.0.9"), 33000, false, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the CM REQ of cm-format hello carries at most 0 bytes of client private data, not 1");
    }
}

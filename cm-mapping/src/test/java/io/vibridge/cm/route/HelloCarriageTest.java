package io.vibridge.cm.route;

import static io.vibridge.cm.testutil.Bytes.b;
import static io.vibridge.cm.testutil.Bytes.cat;
import static io.vibridge.cm.testutil.Bytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import java.net.InetAddress;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** CM-MAPPING §2.1: the short Hello behind rdma_cm's CMA header, and telling the carriages apart. */
class HelloCarriageTest {
    private static final InetAddress CLIENT = InetAddress.ofLiteral("192.168.1.10");
    private static final InetAddress TARGET = InetAddress.ofLiteral("192.168.1.20");
    private static final InetAddress GATEWAY = InetAddress.ofLiteral("192.168.1.30");
    private static final Hello HELLO = Hello.of(64, FlowControl.TRANSPORT, 65536, 32768, 40000, CLIENT, TARGET);

    // Hand-computed per CM-MAPPING §2.1: the Hello's first 48 bytes with len = 56, then 8 zero bytes.
    static final byte[] SHORT_GOLDEN = cat(
            b(0x00),                   // 0  MID = 0 (Hello)
            b(0x00),                   // 1  reserved
            b(0x00, 0x40),             // 2  bufs = 64
            b(0x00, 0x00, 0x00, 0x38), // 4  len = 56
            zeros(8),                  // 8  reserved
            b(0x22),                   // 16 MajVer 2, MinVer 2
            b(0x40),                   // 17 IPVer 4, FlowC 0
            b(0x00, 0x00),             // 18 reserved
            b(0x00, 0x01, 0x00, 0x00), // 20 DesRemRcvSz = 65536
            b(0x00, 0x00, 0x80, 0x00), // 24 LocalRcvSz = 32768
            b(0x9C, 0x40),             // 28 Local Port = 40000
            b(0x00, 0x00),             // 30 reserved
            zeros(12), b(0xC0, 0xA8, 0x01, 0x0A), // 32 Src IP 192.168.1.10
            zeros(8));                 // 48 reserved (no Dst IP: it is the CMA header's destination)

    @Test
    void theShortHelloIsTheGolden() {
        assertThat(SHORT_GOLDEN).hasSize(Hello.SHORT_LENGTH);
        assertThat(HELLO.toShortBytes()).isEqualTo(SHORT_GOLDEN);
        // the first 48 bytes are the whole Hello's but for len
        byte[] whole = HELLO.toBytes();
        assertThat(Arrays.copyOfRange(SHORT_GOLDEN, 8, 48)).isEqualTo(Arrays.copyOfRange(whole, 8, 48));
    }

    @Test
    void aRawCmDeliversTheHeaderAndTheShortHelloAndTheTargetComesFromTheHeader() {
        byte[] pd = new CmaHeader(33000, GATEWAY, TARGET).toPrivateData(SHORT_GOLDEN);
        assertThat(pd).hasSize(92);
        assertThat(pd[1] & 0xFF).isEqualTo(0x40);
        assertThat(HelloCarriage.decodeRequest(pd, null)).isEqualTo(HELLO);
        assertThat(HelloCarriage.carriesHello(pd, false)).isTrue();
    }

    @Test
    void aWholeHelloStillDecodes() {
        assertThat(HelloCarriage.decodeRequest(HELLO.toBytes(), null)).isEqualTo(HELLO);
    }

    @Test
    void rdmaCmTakesTheHeaderOffAndTheListenersAddressNamesTheTarget() {
        assertThat(HelloCarriage.decodeRequest(SHORT_GOLDEN, TARGET)).isEqualTo(HELLO);
        assertThat(HelloCarriage.carriesHello(SHORT_GOLDEN, true)).isTrue();
    }

    @Test
    void aPlainRdmaCmRequestCarriesNoHello() {
        byte[] plain = new CmaHeader(33000, GATEWAY, TARGET).toPrivateData(new byte[0]);
        assertThat(HelloCarriage.carriesHello(plain, false)).isFalse();
        assertThat(HelloCarriage.carriesHello(new byte[56], true)).isFalse();
        assertThat(HelloCarriage.carriesHello(new byte[0], true)).isFalse();
    }

    @Test
    void aShortHelloIsRefusedByTheSameRulesWithLen48() {
        byte[] bad = SHORT_GOLDEN.clone();
        bad[7] = 47;
        assertThatThrownBy(() -> HelloCarriage.decodeRequest(bad, TARGET)).isInstanceOf(CmFormatException.class)
                .hasMessageContaining("len").hasMessageContaining("at least 48");
        // an IPv4 Hello for a listener on an IPv6 address that has no IPv4 form
        assertThatThrownBy(() -> HelloCarriage.decodeRequest(SHORT_GOLDEN, InetAddress.ofLiteral("fd00::2")))
                .isInstanceOf(CmFormatException.class).hasMessageContaining("IPVer");
        assertThatThrownBy(() -> HelloCarriage.decodeRequest(Arrays.copyOf(SHORT_GOLDEN, 47), TARGET))
                .isInstanceOf(CmFormatException.class);
    }

    @Test
    void configurationNamesAndRules() {
        assertThat(HelloCarriage.fromConfigName("CMA-Header")).isEqualTo(HelloCarriage.CMA_HEADER);
        assertThatThrownBy(() -> HelloCarriage.fromConfigName("half")).hasMessageContaining("auto, whole or cma-header");
        assertThat(HelloCarriage.AUTO.resolve(true)).isEqualTo(HelloCarriage.CMA_HEADER);
        assertThat(HelloCarriage.AUTO.resolve(false)).isEqualTo(HelloCarriage.WHOLE);
        assertThat(HelloCarriage.WHOLE.resolve(true)).isEqualTo(HelloCarriage.WHOLE);
        assertThatThrownBy(() -> new RouteParameters(ServiceIdScheme.SDP, null, CmFormat.HELLO,
                HelloCarriage.CMA_HEADER, FlowControl.APPLICATION, 4096, 8))
                .isInstanceOf(RouteConfigException.class).hasMessageContaining("needs service-id = rdma-cm");
        // the seed's iwarp IDs are numerically rdma_cm's IPoIB port space, which is UD only
        assertThatThrownBy(() -> new RouteParameters(ServiceIdScheme.IWARP, null, CmFormat.HELLO,
                HelloCarriage.CMA_HEADER, FlowControl.APPLICATION, 4096, 8))
                .isInstanceOf(RouteConfigException.class).hasMessageContaining("got iwarp");
        assertThatThrownBy(() -> new RouteParameters(ServiceIdScheme.RDMA_CM, null, CmFormat.RDMA_CM,
                HelloCarriage.WHOLE, FlowControl.APPLICATION, 4096, 8))
                .isInstanceOf(RouteConfigException.class).hasMessageContaining("only applies to cm-format = hello");
    }
}

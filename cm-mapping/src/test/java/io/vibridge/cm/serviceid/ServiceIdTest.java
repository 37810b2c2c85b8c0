package io.vibridge.cm.serviceid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ServiceIdTest {

    @ParameterizedTest(name = "{0} port {1} -> {2}")
    @CsvSource({
        // scheme,  port,  expected Service ID (hand-computed, CM-MAPPING §1)
        "iwarp,     0,     0x0000000000020000",
        "iwarp,     1,     0x0000000000020001",
        "iwarp,     65535, 0x000000000002FFFF",
        "sdp,       0,     0x0000000000010000",
        "sdp,       1,     0x0000000000010001",
        "sdp,       65535, 0x000000000001FFFF",
        "rdma-cm,   0,     0x0000000001060000",
        "rdma-cm,   1,     0x0000000001060001",
        "rdma-cm,   65535, 0x000000000106FFFF",
    })
    void forwardAndReverse(String schemeName, int port, String expectedHex) {
        long expected = Long.parseUnsignedLong(expectedHex.substring(2), 16);
        ServiceIdScheme scheme = ServiceIdScheme.fromConfigName(schemeName);
        ServiceId id = ServiceId.of(scheme, port);
        assertThat(id.value()).isEqualTo(expected);
        assertThat(ServiceId.valueOf(scheme, port)).isEqualTo(expected);
        assertThat(ServiceId.fromValue(expected)).contains(id);
        assertThat(ServiceId.fromValue(expected, scheme)).contains(id);
    }

    @ParameterizedTest(name = "{0} port {1} -> {2}")
    @CsvSource({
        "ipoib, 0,     0x0000000000020000",
        "ipoib, 1,     0x0000000000020001",
        "ipoib, 65535, 0x000000000002FFFF",
        "tcp,   1,     0x0000000001060001",
        "tcp,   20000, 0x0000000001064E20", // IB-WIRE-REFERENCE §6.1 example
        "udp,   0,     0x0000000001110000",
        "udp,   1,     0x0000000001110001",
        "udp,   65535, 0x000000000111FFFF",
        "ib,    0,     0x00000000013F0000",
        "ib,    1,     0x00000000013F0001",
        "ib,    65535, 0x00000000013FFFFF",
    })
    void rdmaCmPortSpaces(String psName, int port, String expectedHex) {
        long expected = Long.parseUnsignedLong(expectedHex.substring(2), 16);
        RdmaPortSpace ps = RdmaPortSpace.fromConfigName(psName);
        ServiceId id = ServiceId.rdmaCm(ps, port);
        assertThat(id.value()).isEqualTo(expected);
        assertThat(ServiceId.fromValue(expected, ServiceIdScheme.RDMA_CM)).contains(id);
    }

    @Test
    void ipoibRangeIsAmbiguousAndResolvesToIwarpUnlessTheSchemeIsGiven() {
        long sid = 0x0000_0000_0002_1388L; // port 5000
        assertThat(ServiceId.fromValue(sid)).contains(ServiceId.of(ServiceIdScheme.IWARP, 5000));
        assertThat(ServiceId.fromValue(sid, ServiceIdScheme.RDMA_CM))
                .contains(ServiceId.rdmaCm(RdmaPortSpace.IPOIB, 5000));
        assertThat(ServiceId.rdmaCm(RdmaPortSpace.IPOIB, 5000).value())
                .isEqualTo(ServiceId.of(ServiceIdScheme.IWARP, 5000).value());
    }

    @Test
    void reverseRefusesForeignServiceIds() {
        assertThat(ServiceId.fromValue(0x0000_0000_0003_0001L)).isEmpty();
        assertThat(ServiceId.fromValue(0x0000_0001_0106_0001L)).isEmpty();
        assertThat(ServiceId.fromValue(0x0200_0000_0000_0001L)).isEmpty();
        assertThat(ServiceId.fromValue(-1L)).isEmpty();
        assertThat(ServiceId.fromValue(0x0000_0000_0001_0005L, ServiceIdScheme.IWARP)).isEmpty();
        assertThat(ServiceId.fromValue(0x0000_0000_0002_0005L, ServiceIdScheme.SDP)).isEmpty();
        assertThat(ServiceId.fromValue(0x0000_0000_0001_0005L, ServiceIdScheme.RDMA_CM)).isEqualTo(Optional.empty());
    }

    @Test
    void refusesOutOfRangePortsAndInconsistentPortSpace() {
        assertThatThrownBy(() -> ServiceId.of(ServiceIdScheme.IWARP, 65536)).hasMessageContaining("port");
        assertThatThrownBy(() -> ServiceId.of(ServiceIdScheme.SDP, -1)).hasMessageContaining("port");
        assertThatThrownBy(() -> new ServiceId(ServiceIdScheme.IWARP, RdmaPortSpace.TCP, 1))
                .hasMessageContaining("only the rdma-cm");
        assertThatThrownBy(() -> new ServiceId(ServiceIdScheme.RDMA_CM, null, 1))
                .hasMessageContaining("needs a port space");
    }

    @Test
    void configNames() {
        assertThat(ServiceIdScheme.fromConfigName("iwarp")).isEqualTo(ServiceIdScheme.IWARP);
        assertThat(ServiceIdScheme.fromConfigName(" SDP ")).isEqualTo(ServiceIdScheme.SDP);
        assertThat(ServiceIdScheme.fromConfigName("rdma-cm")).isEqualTo(ServiceIdScheme.RDMA_CM);
        assertThatThrownBy(() -> ServiceIdScheme.fromConfigName("rdma_cm"))
                .hasMessageContaining("iwarp, sdp or rdma-cm");
        assertThatThrownBy(() -> RdmaPortSpace.fromConfigName("sctp")).hasMessageContaining("ipoib, tcp, udp or ib");
        assertThat(RdmaPortSpace.ofValue(0x013F)).isEqualTo(RdmaPortSpace.IB);
        assertThat(RdmaPortSpace.ofValue(0x0001)).isNull();
    }

    @Test
    void readableToString() {
        assertThat(ServiceId.of(ServiceIdScheme.IWARP, 5000)).hasToString("iwarp:5000 (0x0000000000021388)");
        assertThat(ServiceId.of(ServiceIdScheme.RDMA_CM, 1)).hasToString("rdma-cm/tcp:1 (0x0000000001060001)");
    }
}

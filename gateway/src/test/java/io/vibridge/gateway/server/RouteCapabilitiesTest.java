package io.vibridge.gateway.server;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.vibridge.cm.route.Routes;
import io.vibridge.gateway.config.ConfigError;
import io.vibridge.verbs.Capability;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/** A route the opened provider cannot serve is refused at start, by name (DiSNI declares none of these). */
class RouteCapabilitiesTest {
    private static final Set<Capability> ALL = EnumSet.allOf(Capability.class);
    private static final Set<Capability> NONE = EnumSet.noneOf(Capability.class);

    private static final String HELLO = "{ match = \"a\", target = \"127.0.0.3\", port = 5000, cm-format = hello }";
    private static final String RDMA_CM = "{ match = \"b\", target = \"127.0.0.3\", port = 7471, cm-format = rdma-cm }";
    private static final String HELLO_SDP_ID =
            "{ match = \"c\", target = \"127.0.0.3\", port = 7471, cm-format = hello, service-id = sdp }";

    private static Routes routes(String... routes) {
        return Routes.fromConfig(ConfigFactory.parseString("routes = [" + String.join(",", routes) + "]"));
    }

    @Test
    void theSoftProviderServesEveryRoute() {
        assertThatCode(() -> RouteCapabilities.check(routes(HELLO, RDMA_CM, HELLO_SDP_ID), ALL, "soft"))
                .doesNotThrowAnyException();
    }

    @Test
    void helloRoutesNeedCmPrivateData() {
        assertThatThrownBy(() -> RouteCapabilities.check(routes(RDMA_CM, HELLO), NONE, "disni"))
                .isInstanceOf(ConfigError.class)
                .hasMessageContaining("routes[1]: route \"a\"").hasMessageContaining("private data")
                .hasMessageContaining("disni");
    }

    @Test
    void serviceIdsOutsideRdmaCmsPortSpaceNeedAnyServiceId() {
        assertThatCode(() -> RouteCapabilities.check(routes(RDMA_CM), NONE, "disni")).doesNotThrowAnyException();
        assertThatThrownBy(() -> RouteCapabilities.check(routes(HELLO_SDP_ID),
                EnumSet.of(Capability.CM_PRIVATE_DATA), "disni"))
                .isInstanceOf(ConfigError.class)
                .hasMessageContaining("routes[0]: route \"c\"").hasMessageContaining("not one the disni verbs provider's CM can use");
    }

    @Test
    void directRoutesAreCheckedToo() {
        Routes r = Routes.fromConfig(ConfigFactory.parseString("routes = [], direct-routes { enabled = true }"));
        assertThatThrownBy(() -> RouteCapabilities.check(r, NONE, "disni"))
                .isInstanceOf(ConfigError.class).hasMessageContaining("direct-routes");
    }

    @Test
    void onRdmaCmTheWholeHelloIsRefusedAndTheOtherCarriagesPass() {
        // CM-MAPPING §2.1: rdma_cm with IP addressing leaves 56 bytes behind its CMA header
        String whole = "{ match = \"w\", target = \"127.0.0.3\", port = 5000, hello-carriage = whole }";
        String cma = "{ match = \"m\", target = \"127.0.0.3\", port = 5000, service-id = rdma-cm, hello-carriage = cma-header }";
        assertThatThrownBy(() -> RouteCapabilities.check(routes(HELLO, whole), ALL, "rdma-core", true, sid -> true))
                .isInstanceOf(ConfigError.class)
                .hasMessageContaining("routes[1]: route \"w\"").hasMessageContaining("56 behind its CMA header");
        assertThatCode(() -> RouteCapabilities.check(routes(HELLO, cma, RDMA_CM), ALL, "rdma-core", true, sid -> true))
                .doesNotThrowAnyException();
        assertThatCode(() -> RouteCapabilities.check(routes(whole, cma), ALL, "soft", false, sid -> true))
                .doesNotThrowAnyException();
    }

    @Test
    void theCmSaysWhichServiceIdsItTakes() {
        // rdma_cm's RC port spaces (TCP, IB): a hello route there passes; the seed's iwarp IDs (its UD IPoIB space) do not
        LongPredicate rdmaCm = sid -> sid >>> 16 == 0x0106 || sid >>> 16 == 0x013F;
        String helloTcp = "{ match = \"t\", target = \"127.0.0.3\", port = 5000, service-id = rdma-cm }";
        assertThatCode(() -> RouteCapabilities.check(routes(helloTcp, RDMA_CM), ALL, "rdma-core", true, rdmaCm))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> RouteCapabilities.check(routes(HELLO), ALL, "rdma-core", true, rdmaCm))
                .isInstanceOf(ConfigError.class).hasMessageContaining("routes[0]: route \"a\"")
                .hasMessageContaining("use service-id = rdma-cm");
        assertThatThrownBy(() -> RouteCapabilities.check(routes(HELLO_SDP_ID), ALL, "rdma-core", true, rdmaCm))
                .isInstanceOf(ConfigError.class).hasMessageContaining("routes[0]: route \"c\"")
                .hasMessageContaining("0x11d2f");
    }
}

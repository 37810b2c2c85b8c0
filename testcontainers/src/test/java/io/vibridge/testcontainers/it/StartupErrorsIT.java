package io.vibridge.testcontainers.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.testcontainers.Route;
import io.vibridge.testcontainers.VibridgeContainer;
import io.vibridge.testcontainers.VibridgeStartupException;
import io.vibridge.testcontainers.VibridgeTargetContainer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A container that cannot start says why, at once: no pull attempts for an image no registry has, and
 * the gateway's own one-line error when it exits on its configuration, not a wait strategy's timeout.
 */
class StartupErrorsIT {

    @BeforeAll
    static void docker() {
        DockerRequired.check();
    }

    @Test
    void aMissingImageIsNamedWithHowToBuildIt() {
        VibridgeTargetContainer target = new VibridgeTargetContainer("vibridge/gateway:no-such-tag");
        try (VibridgeContainer gateway = new VibridgeContainer("vibridge/gateway:no-such-tag").withTarget(target)) {
            assertThatThrownBy(gateway::start).isInstanceOf(VibridgeStartupException.class)
                    .hasMessageContaining("image vibridge/gateway:no-such-tag is not on this Docker engine")
                    .hasMessageContaining("./mvnw -B -ntp install");
        }
    }

    @Test
    void aRouteTheGatewayRefusesEndsTheStartWithItsMessage() {
        // 64 receive buffers leave no staging slot for the client's messages (docs/configuration.md "routes")
        try (VibridgeContainer gateway = new VibridgeContainer(DockerRequired.IMAGE)
                .withRoute(Route.of("storage", "127.0.0.171", 5000).withReceiveBuffers(64))) {
            assertThatThrownBy(gateway::start).isInstanceOf(VibridgeStartupException.class)
                    .hasMessageContaining("the vibridge gateway exited at start with code 2")
                    .hasMessageContaining("routes[0].receive-buffers");
        }
    }
}

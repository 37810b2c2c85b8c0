package io.vibridge.gateway.it;

import static org.junit.jupiter.api.Assertions.fail;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/** What the container tests need from the engine, and the skip-or-fail rule when there is none. */
final class Docker {
    private Docker() {
    }

    /**
     * No Docker engine: the container tests are skipped with a clear message on a developer machine,
     * but FAIL when CI=true, so a broken CI set-up cannot pass by skipping them.
     */
    static void requireEngine() {
        boolean available;
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | Error e) {
            available = false;
        }
        if (!available) {
            unavailable("no Docker engine answers (start one with deploy/scripts/docker-engine.sh)");
        }
    }

    /** An image that must be present locally (built by `mvn verify` or the deploy scripts). */
    static void requireImage(String image) {
        if (!hasImage(image)) {
            unavailable("image " + image + " is missing (deploy/scripts/build-image.sh, make-prometheus-image.sh)");
        }
    }

    static boolean hasImage(String image) {
        try {
            client().inspectImageCmd(image).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    private static void unavailable(String why) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true and " + why + ": the container integration tests must run in CI");
        }
        String message = "container integration tests SKIPPED: " + why;
        System.err.println(message); // Failsafe's summary would only show "Tests run: 0"
        Assumptions.abort(message);
    }

    static DockerClient client() {
        return DockerClientFactory.instance().client();
    }

    /** The container's IP address on its (single) network. */
    static String ip(GenericContainer<?> c) {
        return client().inspectContainerCmd(c.getContainerId()).exec().getNetworkSettings().getNetworks().values()
                .iterator().next().getIpAddress();
    }

    /**
     * Where a published TCP port is reachable now: asked of the engine each time, because a restarted
     * container gets new host ports and Testcontainers keeps the ones of the first start.
     */
    static InetSocketAddress published(GenericContainer<?> c, int port) {
        Ports.Binding[] b = client().inspectContainerCmd(c.getContainerId()).exec().getNetworkSettings().getPorts()
                .getBindings().get(ExposedPort.tcp(port));
        if (b == null || b.length == 0) {
            throw new AssertionError("port " + port + " of " + c.getContainerName() + " is not published");
        }
        return new InetSocketAddress(c.getHost(), Integer.parseInt(b[0].getHostPortSpec()));
    }
}

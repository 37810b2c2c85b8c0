package io.vibridge.testcontainers.it;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/** The container tests' rule without a Docker engine: skipped with a message, but failed when CI=true. */
final class DockerRequired {
    /** The image the tests run: -Dvibridge.it.image, default what `mvn verify` of module gateway builds. */
    static final String IMAGE = System.getProperty("vibridge.it.image", "vibridge/gateway:local");

    private DockerRequired() {
    }

    static void check() {
        boolean available;
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | Error e) {
            available = false;
        }
        if (available) {
            return;
        }
        String why = "no Docker engine answers (start one with deploy/scripts/docker-engine.sh)";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true and " + why + ": the container tests must run in CI");
        }
        System.err.println("vibridge-testcontainers container tests SKIPPED: " + why);
        Assumptions.abort(why);
    }
}

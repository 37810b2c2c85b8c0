package io.vibridge.testcontainers;

import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * The vibridge image is built, not pulled: no public registry has {@code vibridge/gateway}. A missing one is
 * a clear error before Testcontainers would try (and, offline, retry) to pull it.
 */
final class Images {
    private Images() {
    }

    /** Fails when {@code image} is the project's own repository name and the engine lacks it. */
    static void requireBuilt(DockerImageName image) {
        if (!image.getUnversionedPart().equals(VibridgeContainer.DEFAULT_IMAGE_NAME.getUnversionedPart())) {
            return; // a substitute (a private registry's copy, say): Testcontainers' pull policy applies
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(image.asCanonicalNameString()).exec();
        } catch (NotFoundException e) {
            throw new VibridgeStartupException("image " + image.asCanonicalNameString() + " is not on this Docker "
                    + "engine, and no registry has it: build it from a vibridge checkout with ./mvnw -B -ntp install "
                    + "(module gateway builds " + VibridgeContainer.LOCAL_IMAGE.asCanonicalNameString()
                    + ") or deploy/scripts/build-image.sh; an image of your own is named with "
                    + "DockerImageName.parse(\"...\").asCompatibleSubstituteFor(\"vibridge/gateway\")");
        }
    }
}

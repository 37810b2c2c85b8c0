package io.vibridge.gateway.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/** The checkout the tests run in: the directory above the working directory that holds the reactor. */
public final class RepositoryRoot {

    private RepositoryRoot() {
    }

    /** Walks up from the working directory (the module, under Surefire) to the reactor root. */
    public static Path find() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("gateway/pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }
}

package io.vibridge.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * What the image ships: the gateway's runtime class path (target/runtime-classpath.txt, written by the build
 * before the tests: the jars `package` copies to target/vibridge/lib beside the gateway jar, which the image
 * takes whole). DiSNI 2.1 declares log4j 1.2 (end of life, published CVEs), its slf4j binding and commons-cli;
 * the parent pom excludes them, and DiSNI's own classes must still find everything they refer to.
 */
class ShippedLibrariesTest {
    static final Path CLASSPATH = Path.of(System.getProperty("user.dir"), "target", "runtime-classpath.txt");

    static List<String> runtimeJars() throws IOException {
        assertThat(CLASSPATH).as("written by the Maven build (generate-test-resources)").exists();
        return Arrays.stream(Files.readString(CLASSPATH).trim().split(File.pathSeparator)).toList();
    }

    @Test
    void noLog4jOneNorItsBindingNorCommonsCliIsShipped() throws IOException {
        List<String> jars = runtimeJars();
        assertThat(jars).anySatisfy(j -> assertThat(j).contains("/com/ibm/disni/disni/"));
        assertThat(jars).noneMatch(j -> j.contains("/log4j/log4j/") || j.contains("/org/slf4j/slf4j-log4j12/")
                || j.contains("/org/slf4j/slf4j-reload4j/") || j.contains("/commons-cli/commons-cli/"));
        assertThatThrownBy(() -> Class.forName("org.apache.log4j.Logger"))
                .as("log4j 1.x on the test class path either").isInstanceOf(ClassNotFoundException.class);
    }

    /** jdeps (the JDK's) finds no class DiSNI refers to missing from what we ship: no NoClassDefFoundError later. */
    @Test
    void disniFindsEveryClassItRefersToInTheShippedJars() throws IOException {
        List<String> jars = runtimeJars();
        String disni = jars.stream().filter(j -> j.contains("/com/ibm/disni/disni/")).findFirst().orElseThrow();
        List<String> others = jars.stream().filter(j -> !j.equals(disni)).toList();
        assertThat(missingDependencies(disni, others)).isEmpty();
        // the check can fail: without slf4j-api (DiSNI logs through it) jdeps names what is missing
        assertThat(missingDependencies(disni, others.stream().filter(j -> !j.contains("/slf4j-api/")).toList()))
                .contains("org.slf4j.Logger", "not found");
    }

    private static String missingDependencies(String jar, List<String> classPath) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int code = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--multi-release", "25", "--missing-deps",
                "-cp", String.join(File.pathSeparator, classPath), jar);
        assertThat(code).as("jdeps: %s", out).isZero();
        return out.toString().trim();
    }
}

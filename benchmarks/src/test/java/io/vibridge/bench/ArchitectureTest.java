package io.vibridge.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.vibridge.bench.verbs.VerbsBench;
import org.junit.jupiter.api.Test;

/** The benchmarks measure the libraries, never the gateway; VerbsBench runs on whichever verbs provider is chosen. */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.bench");

    @Test
    void knowsNoGateway() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vibridge.gateway..", "io.vertx..", "io.netty..")
                .check(MAIN);
    }

    @Test
    void verbsBenchUsesTheVerbsSpiOnly() {
        // --provider picks soft or DiSNI at run time; a provider's internals would tie the figures to one of them
        noClasses().that().belongToAnyOf(VerbsBench.class).should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.verbs.soft..", "io.vibridge.verbs.disni..").check(MAIN);
    }
}

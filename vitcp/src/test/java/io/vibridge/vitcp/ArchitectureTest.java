package io.vibridge.vitcp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** docs/design.md "Modules": vitcp depends on no module of ours and knows nothing of Vert.x or Netty. */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.vitcp");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.vibridge.vitcp.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void dependsOnNoOtherModuleOfOurs() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.cm..", "io.vibridge.verbs..", "io.vibridge.gateway..")
                .check(MAIN);
    }

    @Test
    void protocolCodeKnowsNoNetworkFramework() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..").check(MAIN);
    }

    @Test
    void theWireCodecsKnowNoEngine() {
        // The codecs are the bottom layer: the engine and the provider build on them, never the reverse.
        noClasses().that().resideInAPackage("io.vibridge.vitcp.wire..").should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.vitcp.engine..", "io.vibridge.vitcp.provider..")
                .check(MAIN);
    }
}

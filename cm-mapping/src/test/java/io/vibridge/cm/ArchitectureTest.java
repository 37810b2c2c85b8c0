package io.vibridge.cm;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** docs/design.md "Modules": cm-mapping depends on no module of ours and knows nothing of Vert.x or Netty. */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.cm");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.vibridge.cm.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void dependsOnNoOtherModuleOfOurs() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.vitcp..", "io.vibridge.verbs..", "io.vibridge.gateway..")
                .check(MAIN);
    }

    @Test
    void protocolCodeKnowsNoNetworkFramework() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..").check(MAIN);
    }
}

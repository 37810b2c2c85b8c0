package io.vibridge.verbs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md "Modules": the verbs SPI and its providers depend on no module of ours; the SPI (the root
 * package) knows no provider; providers do not know each other.
 */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.verbs");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.vibridge.verbs.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theSpiKnowsNoProvider() {
        noClasses().that().resideInAPackage("io.vibridge.verbs").should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.verbs.soft..", "io.vibridge.verbs.disni..")
                .check(MAIN);
    }

    @Test
    void providersDoNotKnowEachOther() {
        noClasses().that().resideInAPackage("io.vibridge.verbs.soft..").should().dependOnClassesThat()
                .resideInAPackage("io.vibridge.verbs.disni..").check(MAIN);
        noClasses().that().resideInAPackage("io.vibridge.verbs.disni..").should().dependOnClassesThat()
                .resideInAPackage("io.vibridge.verbs.soft..").check(MAIN);
    }

    @Test
    void dependsOnNoOtherModuleOfOurs() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.vibridge.vitcp..", "io.vibridge.cm..", "io.vibridge.gateway..")
                .check(MAIN);
    }

    @Test
    void knowsNoNetworkFramework() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..").check(MAIN);
    }
}

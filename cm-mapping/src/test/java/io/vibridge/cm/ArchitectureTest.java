package io.vibridge.cm;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.vibridge.vitcp.wire.Discriminator;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md "Modules": of our modules cm-mapping uses only vitcp's discriminator type (routes match on it), and it
 * knows nothing of Vert.x or Netty.
 */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.cm");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.vibridge.cm.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void usesNoOtherModuleOfOursButTheViDiscriminator() {
        noClasses().should().dependOnClassesThat(resideInAnyPackage("io.vibridge.vitcp..", "io.vibridge.iwarp..",
                        "io.vibridge.verbs..", "io.vibridge.gateway..", "io.vibridge.interop..", "io.vibridge.bench..")
                .and(not(type(Discriminator.class))))
                .check(MAIN);
    }

    @Test
    void protocolCodeKnowsNoNetworkFramework() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..").check(MAIN);
    }
}

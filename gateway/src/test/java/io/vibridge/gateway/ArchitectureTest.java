package io.vibridge.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md "Modules" and "Threads": the gateway adapts the protocol modules to Vert.x at its edge
 * only; it reaches InfiniBand through the verbs SPI, never a provider's internals; the VI/TCP tools
 * share the demo's control protocol but not the InfiniBand demo service.
 */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.vibridge.gateway");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.vibridge.gateway.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void vertxOnlyWhereTheGatewayMeetsTheNetwork() {
        // the client socket, the listener, the admin endpoint; a connection's context and timers, and the
        // cut-through copies and the target WRITEs that carry them (pooled Netty buffers). The rest of the bridge
        // (staging, the front ends, the InfiniBand side, the ordering) is plain Java, unit-tested without an event
        // loop. Vert.x's JSON values
        // (io.vertx.core.json) need no event loop: the command line's views and perf --json use them.
        noClasses().that().resideOutsideOfPackages(
                        "io.vibridge.gateway.server..", "io.vibridge.gateway.bridge.client..", "io.vibridge.gateway.admin..")
                .and().haveNameNotMatching("io\\.vibridge\\.gateway\\.bridge\\.(BridgedConnection|ConnectionTimers|CutThrough|TargetOp)(\\$.*)?")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAnyPackage("io.vertx..", "io.netty..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.vertx.core.json.."))))
                .check(MAIN);
    }

    @Test
    void theBridgeKnowsEachClientProtocolInItsFrontEndOnly() {
        // the seam is the RDMA operation (FrontEnd, TargetOp): the generic connection, the InfiniBand leg and the
        // client socket speak neither VI/TCP nor iWARP
        noClasses().that().resideInAPackage("io.vibridge.gateway.bridge..")
                .and().resideOutsideOfPackage("io.vibridge.gateway.bridge.vi..")
                .should().dependOnClassesThat().resideInAPackage("io.vibridge.vitcp..")
                .check(MAIN);
        noClasses().that().resideInAPackage("io.vibridge.gateway.bridge..")
                .and().resideOutsideOfPackage("io.vibridge.gateway.bridge.iwarp..")
                .should().dependOnClassesThat().resideInAPackage("io.vibridge.iwarp..")
                .check(MAIN);
    }

    @Test
    void frontEndsSpeakNoVerbs() {
        noClasses().that().resideInAnyPackage("io.vibridge.gateway.bridge.vi..", "io.vibridge.gateway.bridge.iwarp..")
                .should().dependOnClassesThat().resideInAPackage("io.vibridge.verbs..")
                .check(MAIN);
    }

    @Test
    void reachesInfinibandThroughTheVerbsSpiOnly() {
        // The provider is chosen at start (DiSNI or soft); gateway code that named soft internals would break on hardware.
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.vibridge.verbs.soft..", "io.vibridge.verbs.disni..")
                .check(MAIN);
    }

    @Test
    void toolsDoNotDependOnTheInfinibandDemoService() {
        noClasses().that().resideInAPackage("io.vibridge.gateway.tools..").should().dependOnClassesThat()
                .resideInAPackage("io.vibridge.gateway.demo")
                .check(MAIN);
    }
}

package io.vibridge.vitcp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.provider.ViNic;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor a modular application reads (module-info.java): the provider library and the
 * codecs are exported, the echo command is not, and the module resolves and links with slf4j-api alone,
 * which is what an application's module path must hold beside it.
 */
class ModuleDescriptorTest {
    static final String NAME = "io.vibridge.vitcp";
    static final Path CLASSES = location(ViNic.class);
    static final Path SLF4J = location(org.slf4j.Logger.class);

    static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ModuleDescriptor descriptor() {
        return ModuleFinder.of(CLASSES).find(NAME).orElseThrow().descriptor();
    }

    @Test
    void exportsTheLibraryAndNotTheCommand() {
        ModuleDescriptor d = descriptor();
        assertThat(d.exports()).map(ModuleDescriptor.Exports::source).containsExactlyInAnyOrder(
                "io.vibridge.vitcp.provider", "io.vibridge.vitcp.wire", "io.vibridge.vitcp.engine",
                "io.vibridge.vitcp.rdmatcp", "io.vibridge.vitcp.security");
        assertThat(d.packages()).as("every package of the module").contains("io.vibridge.vitcp.cli");
        assertThat(d.requires()).filteredOn(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)
                        && !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.MANDATED))
                .as("what an application needs beside the module").map(ModuleDescriptor.Requires::name)
                .containsExactly("org.slf4j");
    }

    /** Resolved in a layer of its own from the module and slf4j-api only; every exported class then links. */
    @Test
    void resolvesWithSlf4jAloneAndEveryExportedClassLinks() throws Exception {
        Configuration cf = ModuleLayer.boot().configuration()
                .resolve(ModuleFinder.of(CLASSES, SLF4J), ModuleFinder.of(), Set.of(NAME));
        assertThat(cf.modules()).map(ResolvedModule::name).containsExactlyInAnyOrder(NAME, "org.slf4j");
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader(NAME);
        List<String> classes = exportedClasses(descriptor());
        assertThat(classes).hasSizeGreaterThan(50);
        for (String name : classes) {
            Class<?> c = Class.forName(name, false, loader);
            assertThat(c.getModule().getName()).isEqualTo(NAME);
            // resolves every type its fields, methods and constructors name
            c.getDeclaredFields();
            c.getDeclaredMethods();
            c.getDeclaredConstructors();
        }
    }

    /** Only the echo command uses picocli, and nothing names a logging backend: those stay off an application's path. */
    @Test
    void onlyTheCommandUsesPicocliAndNothingALoggingBackend() {
        noClasses().that().resideOutsideOfPackage("io.vibridge.vitcp.cli..").should().dependOnClassesThat()
                .resideInAnyPackage("picocli..").check(ArchitectureTest.MAIN);
        noClasses().should().dependOnClassesThat().resideInAnyPackage("ch.qos.logback..", "org.apache.log4j..")
                .check(ArchitectureTest.MAIN);
    }

    static List<String> exportedClasses(ModuleDescriptor d) throws IOException {
        List<String> out = new ArrayList<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            Path dir = CLASSES.resolve(e.source().replace('.', '/'));
            try (Stream<Path> files = Files.list(dir)) {
                files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".class") && !f.equals("package-info.class"))
                        .forEach(f -> out.add(e.source() + "." + f.substring(0, f.length() - ".class".length())));
            }
        }
        return out;
    }
}

package io.vibridge.iwarp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.engine.IwarpConnection;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor a modular application reads (module-info.java): every package exported, nothing
 * required but java.base, and the module links in a layer of its own.
 */
class ModuleDescriptorTest {
    static final String NAME = "io.vibridge.iwarp";

    @Test
    void exportsEveryPackageAndNeedsNothing() throws Exception {
        Path classes = Path.of(IwarpConnection.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor d = ModuleFinder.of(classes).find(NAME).orElseThrow().descriptor();
        assertThat(d.exports()).map(ModuleDescriptor.Exports::source).containsExactlyInAnyOrderElementsOf(d.packages());
        assertThat(d.requires()).map(ModuleDescriptor.Requires::name).containsExactly("java.base");

        Configuration cf = ModuleLayer.boot().configuration().resolve(ModuleFinder.of(classes), ModuleFinder.of(),
                Set.of(NAME));
        assertThat(cf.modules()).map(ResolvedModule::name).containsExactly(NAME);
        ClassLoader loader = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader())
                .findLoader(NAME);
        int linked = 0;
        for (String pkg : d.packages()) {
            try (Stream<Path> files = Files.list(classes.resolve(pkg.replace('.', '/')))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    String simple = f.getFileName().toString().replace(".class", "");
                    Class<?> c = Class.forName(pkg + "." + simple, false, loader);
                    assertThat(c.getModule().getName()).isEqualTo(NAME);
                    c.getDeclaredMethods();
                    c.getDeclaredFields();
                    linked++;
                }
            }
        }
        assertThat(linked).isGreaterThan(15);
    }
}

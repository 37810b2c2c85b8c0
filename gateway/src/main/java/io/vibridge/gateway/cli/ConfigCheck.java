package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.GatewayConfig;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code --check}: reached only when the configuration loaded, which ran every check the start runs
 * before it binds a port or opens a device (each key, route and listener; the staging budget, and whether
 * the pool fits the memory of this JVM, which the launcher starts with the service's JAVA_OPTS). Prints
 * the one-line summary, and a warning when the staging pool holds fewer connections than the limit
 * (the gateway starts then, but refuses the ones beyond).
 */
final class ConfigCheck {
    private ConfigCheck() {
    }

    static int report(CommandSpec spec, GatewayConfig cfg, String source) {
        String name = spec.qualifiedName();
        spec.commandLine().getOut().println(name + ": configuration OK (" + source + "): " + cfg.summary());
        spec.commandLine().getOut().flush();
        if (cfg.stagingShortOfMaxConnections()) {
            spec.commandLine().getErr().println(name + ": warning: the staging pool holds "
                    + cfg.stagingConnectionCapacity() + " connections at once, fewer than limits.max-connections = "
                    + cfg.limits().maxConnections() + " (raise staging.max-slots, or with auto "
                    + "-XX:MaxDirectMemorySize, or lower limits.buffer-per-connection)");
            spec.commandLine().getErr().flush();
        }
        return 0;
    }
}

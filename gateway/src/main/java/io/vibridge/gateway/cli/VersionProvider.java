package io.vibridge.gateway.cli;

import picocli.CommandLine;

/** Reports the version recorded in the jar's manifest (or "development" when run from classes). */
final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[] {"vibridge " + (version == null ? "development" : version)};
    }
}

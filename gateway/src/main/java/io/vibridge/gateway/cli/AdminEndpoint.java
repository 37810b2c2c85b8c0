package io.vibridge.gateway.cli;

import java.net.URI;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Where {@code stat} and {@code connections} ask a running gateway: its admin endpoint and the token it wants. */
final class AdminEndpoint {

    @Option(names = "--url", paramLabel = "<url>", defaultValue = "http://127.0.0.1:9464", converter = AdminUrl.class,
            description = "The gateway's admin endpoint (default: ${DEFAULT-VALUE}).")
    URI url;

    @Mixin
    AdminAuth auth;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The body of {@code GET path}; see {@link AdminClient#get(URI, String, String)}. */
    String get(String path) throws AdminClient.Unreachable, InterruptedException {
        return AdminClient.get(url, path, auth.token(command));
    }
}

package io.vibridge.gateway.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The admin endpoint's bearer token for {@code stat}, {@code connections} and {@code devices}, as the
 * gateway takes it: {@code --token-file}, else the file named by VIBRIDGE_ADMIN_TOKEN_FILE, else
 * VIBRIDGE_ADMIN_TOKEN. Not an option of its own: a token on the command line would show in {@code ps}.
 */
final class AdminAuth {
    static final String TOKEN_ENV = "VIBRIDGE_ADMIN_TOKEN";
    static final String TOKEN_FILE_ENV = "VIBRIDGE_ADMIN_TOKEN_FILE";

    @Option(names = "--token-file", paramLabel = "<file>",
            description = "A file whose first line is the gateway's admin token (admin.token); default: the file "
                    + "named by " + TOKEN_FILE_ENV + ", else the token in " + TOKEN_ENV + ", else none.")
    Path tokenFile;

    /** The token to send, or null for none; an unreadable or empty file is an option error of {@code command}. */
    String token(CommandSpec command) {
        Path file = tokenFile;
        if (file == null && System.getenv(TOKEN_FILE_ENV) != null && !System.getenv(TOKEN_FILE_ENV).isEmpty()) {
            file = Path.of(System.getenv(TOKEN_FILE_ENV));
        }
        if (file != null) {
            try {
                String first = Files.readString(file, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
                if (first.isEmpty()) {
                    throw new ParameterException(command.commandLine(), "--token-file " + file + " is empty");
                }
                return first;
            } catch (IOException | RuntimeException e) {
                if (e instanceof ParameterException p) {
                    throw p;
                }
                throw new ParameterException(command.commandLine(), "--token-file: cannot read " + file + ": "
                        + e.getMessage());
            }
        }
        String env = System.getenv(TOKEN_ENV);
        return env == null || env.isBlank() ? null : env.strip();
    }
}

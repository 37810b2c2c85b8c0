package io.vibridge.gateway.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import picocli.CommandLine;

/**
 * GETs a JSON view of a running gateway's admin endpoint ({@code vibridge connections}, {@code stat},
 * {@code devices}). A gateway that does not answer is {@link Unreachable}: the commands print its message
 * as one line and exit 1, as {@code healthcheck} does.
 */
final class AdminClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** The admin endpoint did not answer, or not with 200. */
    static final class Unreachable extends Exception {
        Unreachable(String message) {
            super(message);
        }
    }

    private AdminClient() {
    }

    /** Prints {@code e} as {@code spec}'s one-line error; returns the exit code of an absent gateway, 1. */
    static int report(CommandLine.Model.CommandSpec spec, Unreachable e) {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
        spec.commandLine().getErr().flush();
        return 1;
    }

    /** The body of {@code base + path} (base: {@code http://host:port}, a trailing slash allowed), without a token. */
    static String get(URI base, String path) throws Unreachable, InterruptedException {
        return get(base, path, null);
    }

    /** As {@link #get(URI, String)}, sending {@code token} (admin.token) as {@code Authorization: Bearer} when not null. */
    static String get(URI base, String path, String token) throws Unreachable, InterruptedException {
        String b = base.toString();
        URI uri = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path);
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT);
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 401) {
                throw new Unreachable(uri + " answered 401: the gateway requires its admin token ("
                        + (token == null ? "none given: " : "this one is wrong: ") + "--token-file, "
                        + AdminAuth.TOKEN_FILE_ENV + " or " + AdminAuth.TOKEN_ENV + ")");
            }
            if (r.statusCode() != 200) {
                throw new Unreachable(uri + " answered " + r.statusCode() + ": " + r.body().strip());
            }
            return r.body();
        } catch (IOException e) {
            throw new Unreachable("cannot reach the gateway's admin endpoint " + uri + ": "
                    + (e instanceof ConnectException ? "connection refused"
                            : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + " (is the gateway running? --url names its admin address)");
        }
    }
}

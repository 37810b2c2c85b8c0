package io.vibridge.gateway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * A container health check that needs nothing but the JRE: GETs an admin URL and exits 0 on a
 * 2xx answer, 1 otherwise. Used by the image's HEALTHCHECK, which works the same on every base.
 */
@Command(name = "healthcheck", description = "Exit 0 when the admin endpoint answers 2xx, else 1.")
final class HealthcheckCommand implements Callable<Integer> {

    @Option(names = "--url", defaultValue = "http://127.0.0.1:9464/health",
            description = "URL to probe (default: ${DEFAULT-VALUE}).")
    URI url;

    @Option(names = "--timeout", defaultValue = "PT2S",
            description = "Connect and response timeout, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build()) {
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(url).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.discarding());
            boolean ok = response.statusCode() / 100 == 2;
            if (!ok) {
                System.err.println(url + " answered " + response.statusCode());
            }
            return ok ? 0 : 1;
        } catch (Exception e) {
            System.err.println(url + ": " + e);
            return 1;
        }
    }
}

package io.vibridge.gateway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * A container health check that needs nothing but the JRE: GETs an admin URL and exits 0 on a
 * 2xx answer, 1 otherwise. Docker runs it every few seconds, so it stays cheap: a plain
 * {@link HttpURLConnection} costs a fraction of the CPU that starting an HttpClient does.
 */
@Command(name = "healthcheck", description = "Exit 0 when the admin endpoint answers 2xx, else 1.")
final class HealthcheckCommand implements Callable<Integer> {

    @Option(names = "--url", paramLabel = "<url>", defaultValue = "http://127.0.0.1:9464/health",
            description = "URL to probe (default: ${DEFAULT-VALUE}).")
    URI url;

    @Option(names = "--timeout", paramLabel = "<duration>", defaultValue = "PT2S",
            description = "Connect and read timeout, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) url.toURL().openConnection();
            connection.setConnectTimeout((int) timeout.toMillis());
            connection.setReadTimeout((int) timeout.toMillis());
            connection.setUseCaches(false);
            int status = connection.getResponseCode();
            if (status / 100 != 2) {
                System.err.println(url + " answered " + status);
                return 1;
            }
            return 0;
        } catch (Exception e) {
            System.err.println(url + ": " + e);
            return 1;
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
        }
    }
}

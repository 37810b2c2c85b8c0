package io.vibridge.gateway.cli;

import java.net.URI;
import java.net.URISyntaxException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --url} of the admin clients ({@code stat}, {@code connections}): {@code http://host:port}, checked
 * when parsed so that a typo (a missing scheme, {@code localhost:9464} read as scheme "localhost") is one
 * line and exit 2, not the HTTP client's stack trace.
 */
final class AdminUrl implements ITypeConverter<URI> {

    @Override
    public URI convert(String value) {
        URI uri;
        try {
            uri = new URI(value.strip());
        } catch (URISyntaxException e) {
            throw invalid(value, e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            throw invalid(value, scheme == null ? "no scheme" : "scheme '" + scheme + "' is not http or https");
        }
        if (uri.getHost() == null) {
            throw invalid(value, "no host");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null
                || (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))) {
            throw invalid(value, "give the admin endpoint's base, without a path");
        }
        return uri;
    }

    private static TypeConversionException invalid(String value, String why) {
        return new TypeConversionException("expected http://host:port (the gateway's admin address, e.g. "
                + "http://127.0.0.1:9464), got '" + value + "': " + why);
    }
}

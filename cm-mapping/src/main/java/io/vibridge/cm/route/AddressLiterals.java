package io.vibridge.cm.route;

import java.net.InetAddress;
import java.util.regex.Pattern;

/**
 * Strict IP address literals for route targets and direct routes. Never resolves names: a route
 * lookup must not make the gateway query DNS on behalf of a VI client, and configuration should
 * say exactly where traffic goes.
 */
final class AddressLiterals {

    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final Pattern PORT = Pattern.compile("[1-9]\\d{0,4}");

    private AddressLiterals() {
    }

    /**
     * An IPv4 dotted-quad or IPv6 literal (brackets optional for IPv6), or {@code null} if
     * {@code text} is neither. No zone ids.
     */
    static InetAddress parseAddress(String text) {
        String t = text.trim();
        if (IPV4.matcher(t).matches()) {
            return InetAddress.ofLiteral(t);
        }
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        if (t.indexOf(':') >= 0 && IPV6_CHARS.matcher(t).matches()) {
            try {
                return InetAddress.ofLiteral(t);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    /** A port 1..65535 in decimal without sign or leading zeros, or -1. */
    static int parsePort(String text) {
        if (!PORT.matcher(text).matches()) {
            return -1;
        }
        int port = Integer.parseInt(text);
        return port <= 0xFFFF ? port : -1;
    }

    /**
     * The target of a direct-route discriminator {@code a.b.c.d:port} or {@code [ipv6]:port}, or
     * {@code null} if {@code text} is not of that form.
     */
    static HostPort parseHostPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String host = text.substring(0, colon);
        int port = parsePort(text.substring(colon + 1));
        if (port < 0) {
            return null;
        }
        boolean bracketed = host.startsWith("[") && host.endsWith("]");
        if (!bracketed && host.indexOf(':') >= 0) {
            return null; // a bare IPv6 literal would be ambiguous with the port
        }
        if (!bracketed && !IPV4.matcher(host).matches()) {
            return null;
        }
        InetAddress address = parseAddress(host);
        return address == null ? null : new HostPort(address, port);
    }

    /** An address and port. */
    record HostPort(InetAddress address, int port) {
    }
}

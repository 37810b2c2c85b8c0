package io.vibridge.interop.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Small parsing helpers shared by the commands. */
final class Cli {
    private Cli() {
    }

    /** An IP literal or a host name, as rping's getaddrinfo takes. */
    static InetAddress address(String text, String option) {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(option + ": unknown host " + text);
        }
    }

    /** {@code host:port} or {@code [v6]:port}. */
    static InetSocketAddress hostPort(String text, String option) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(option + ": expected HOST:PORT, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": bad port in '" + text + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(option + ": port out of range in '" + text + "'");
        }
        return new InetSocketAddress(address(host, option), port);
    }
}

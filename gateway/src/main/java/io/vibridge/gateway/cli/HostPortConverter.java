package io.vibridge.gateway.cli;

import io.vibridge.gateway.tools.ViClientOptions;
import io.vibridge.vitcp.cli.OptionConverter;
import java.net.InetSocketAddress;

/** {@code --gateway host:port} (or {@code [v6]:port}): {@link ViClientOptions#parseHostPort(String)}. */
final class HostPortConverter extends OptionConverter<InetSocketAddress> {

    HostPortConverter() {
        super(ViClientOptions::parseHostPort);
    }
}

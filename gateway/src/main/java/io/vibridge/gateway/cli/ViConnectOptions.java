package io.vibridge.gateway.cli;

import io.vibridge.vitcp.cli.CommandLines;
import io.vibridge.vitcp.cli.ReliabilityConverter;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The options {@code ping} and {@code perf} share for the VI they connect: its reliability level and its key. */
final class ViConnectOptions {

    @Option(names = "--reliability", defaultValue = "rd", paramLabel = "<ud|rd|rr>",
            converter = ReliabilityConverter.class, description = "ud, rd or rr (default: ${DEFAULT-VALUE}).")
    ReliabilityLevel reliability;

    @Option(names = "--key", paramLabel = "<key>",
            description = "HMAC-SHA256 connect key, at least 16 bytes: text, hex:... or base64:....")
    String keyText;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** The Security Type 1 key's bytes (VITCP-PROFILE §5), or null without {@code --key}; a bad key is an option error. */
    byte[] key() {
        return CommandLines.key(spec, keyText);
    }
}
